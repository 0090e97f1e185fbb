"""Small torch models and their hand-written MindSpore ports, faithful and with planted bugs.

Each port keeps the torch attribute names (as the converter does), so module paths align.
``bug=`` selects a planted divergence:

* ``"slope"``        one block's LeakyReLU slope is 0.2 instead of 0.1 (forward)
* ``"bprop"``        a cell whose bprop doubles its gradient (backward only)
* ``"momentum"``     BatchNorm momentum passed as torch's 0.1 instead of 1 - 0.1 (after a step)
* ``"padding"``      a conv padded (top 0, bottom 2, left 0, right 2) instead of 1 all round
* ``"stopgrad"``     ops.stop_gradient on one branch (its gradient vanishes)
* ``"nan"``          a layer that takes the log of a negative number on MindSpore only
"""
from __future__ import annotations

import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn
import torch.nn.functional as F


# ----------------------------------------------------------------------------- small CNN
class TorchBlock(tnn.Module):
    def __init__(self, cin, cout, slope=0.1):
        super().__init__()
        self.conv = tnn.Conv2d(cin, cout, 3, padding=1)
        self.bn = tnn.BatchNorm2d(cout, momentum=0.1)
        self.act = tnn.LeakyReLU(slope)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class TorchBranch(tnn.Module):
    """Two branches added: a (1x1 conv) + b (3x3 conv)."""

    def __init__(self, c):
        super().__init__()
        self.a = tnn.Conv2d(c, c, 1)
        self.b = tnn.Conv2d(c, c, 3, padding=1)

    def forward(self, x):
        return self.a(x) + self.b(x)


class Identity2(tnn.Module):
    """A 1x1 conv followed by a parameter-free gate (identity)."""

    def __init__(self, c):
        super().__init__()
        self.proj = tnn.Conv2d(c, c, 1)
        self.gate = tnn.Identity()

    def forward(self, x):
        return self.gate(self.proj(x))


class TorchCNN(tnn.Module):
    def __init__(self, classes=3, dropout=0.5):
        super().__init__()
        self.stem = TorchBlock(3, 8)
        self.blocks = tnn.Sequential(TorchBlock(8, 8), TorchBlock(8, 16))
        self.branch = TorchBranch(16)
        self.mid = Identity2(16)
        self.drop = tnn.Dropout(dropout)
        self.pool = tnn.AdaptiveAvgPool2d(1)
        self.head = tnn.Linear(16, classes)

    def forward(self, x):
        x = self.mid(self.branch(self.blocks(self.stem(x))))
        return self.head(self.drop(torch.flatten(self.pool(x), 1)))


class MsBlock(mnn.Cell):
    def __init__(self, cin, cout, slope=0.1, momentum=0.9, padding=1):
        super().__init__()
        self.conv = mnn.Conv2d(cin, cout, 3, pad_mode="pad", padding=padding, has_bias=True)
        self.bn = mnn.BatchNorm2d(cout, momentum=momentum)
        self.act = mnn.LeakyReLU(slope)

    def construct(self, x):
        return self.act(self.bn(self.conv(x)))


class MsBranch(mnn.Cell):
    def __init__(self, c, stop=False):
        super().__init__()
        self.a = mnn.Conv2d(c, c, 1, has_bias=True)
        self.b = mnn.Conv2d(c, c, 3, pad_mode="pad", padding=1, has_bias=True)
        self.stop = stop

    def construct(self, x):
        b = self.b(x)
        if self.stop:
            b = ops.stop_gradient(b)
        return self.a(x) + b


class MsGate(mnn.Cell):
    def construct(self, x):
        return x


class MsScaledGate(MsGate):
    """Forward identical; backward doubles the gradient that reaches the input."""

    def bprop(self, x, out, dout):
        return (dout * 2,)


class MsIdentity2(mnn.Cell):
    def __init__(self, c, scale=False):
        super().__init__()
        self.proj = mnn.Conv2d(c, c, 1, has_bias=True)
        self.gate = MsScaledGate() if scale else MsGate()

    def construct(self, x):
        return self.gate(self.proj(x))


class MsLog(mnn.Cell):
    def construct(self, x):
        return ops.log(x - 100.0)


class MsCNN(mnn.Cell):
    def __init__(self, classes=3, dropout=0.5, bug=None):
        super().__init__()
        self.stem = MsBlock(3, 8)
        self.blocks = mnn.SequentialCell([
            MsBlock(8, 8, slope=0.2 if bug == "slope" else 0.1,
                    momentum=0.1 if bug == "momentum" else 0.9,
                    padding=(0, 2, 0, 2) if bug == "padding" else 1),
            MsBlock(8, 16)])
        self.branch = MsBranch(16, stop=bug == "stopgrad")
        self.mid = MsIdentity2(16, scale=bug == "bprop")
        self.drop = mnn.Dropout(p=dropout)
        self.pool = mnn.AdaptiveAvgPool2d(1)
        self.head = mnn.Dense(16, classes)
        self.nan = MsLog() if bug == "nan" else None

    def construct(self, x):
        x = self.mid(self.branch(self.blocks(self.stem(x))))
        if self.nan is not None:
            x = self.nan(x)
        return self.head(self.drop(ops.flatten(self.pool(x), start_dim=1)))


def torch_cnn(**kw):
    return TorchCNN(**kw)


def ms_cnn(**kw):
    return MsCNN(**kw)


def bce(out, target):
    return F.binary_cross_entropy_with_logits(out, target)


class TorchBCE(tnn.Module):
    def forward(self, out, target):
        return F.binary_cross_entropy_with_logits(out, target)


class MsBCE(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.loss = mnn.BCEWithLogitsLoss()

    def construct(self, out, target):
        return self.loss(out, target)
