"""Nets for the must-pass / must-fail tables (test_verdicts.py): torch models and hand-written MindSpore ports
that keep the torch attribute names (as the converter does). ``bug=`` on a port plants one slip a real port makes.

SlipNet (2x3x16x16 in): conv1-bn1-act1 (ReLU), conv2-bn2-act2 (GELU, erf), avg (AvgPool 3/2/1, count_include_pad),
up (bilinear x2, align_corners=False), conv3 (padding 1), maxp (MaxPool 3/2, ceil_mode), gap, proj (square Linear),
ln (LayerNorm on small-variance features, as on embeddings of std ~0.02), head (Linear).
"""
from __future__ import annotations

import mindspore as ms
import mindspore.nn as mnn
import mindspore.ops as ops
import numpy as np
import torch
import torch.nn as tnn
import torch.nn.functional as F

SLIPS = ("bn_eps", "ln_eps", "align_corners", "gelu_tanh", "padding", "count_include_pad", "ceil_mode",
         "momentum", "dropped_bias", "transposed")


# ----------------------------------------------------------------------------- SlipNet
class TUp(tnn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)


class TSlipNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.bn1, self.act1 = tnn.Conv2d(3, 8, 3, padding=1), tnn.BatchNorm2d(8), tnn.ReLU()
        self.conv2, self.bn2, self.act2 = tnn.Conv2d(8, 8, 3, padding=1), tnn.BatchNorm2d(8), tnn.GELU()
        self.avg = tnn.AvgPool2d(3, stride=2, padding=1)
        self.up = TUp()
        self.conv3 = tnn.Conv2d(8, 8, 3, padding=1)
        self.maxp = tnn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.gap = tnn.AdaptiveAvgPool2d(1)
        self.proj = tnn.Linear(8, 8)
        self.ln = tnn.LayerNorm(8)
        self.head = tnn.Linear(8, 3)

    def forward(self, x):
        x = self.act1(self.bn1(self.conv1(x)))
        x = self.act2(self.bn2(self.conv2(x)))
        x = self.maxp(self.conv3(self.up(self.avg(x))))
        x = torch.flatten(self.gap(x), 1)
        return self.head(self.ln(self.proj(x) * 0.05))


class MUp(mnn.Cell):
    def __init__(self, align_corners=False):
        super().__init__()
        self.align_corners = align_corners

    def construct(self, x):
        h, w = x.shape[2], x.shape[3]
        return ops.interpolate(x, size=(2 * h, 2 * w), mode="bilinear", align_corners=self.align_corners)


class MTransposedLinear(mnn.Cell):
    """A hand port of a square Linear that forgets the transpose: x @ W instead of x @ W.T."""

    def __init__(self, n):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(np.zeros((n, n), np.float32)), name="weight")
        self.bias = ms.Parameter(ms.Tensor(np.zeros((n,), np.float32)), name="bias")

    def construct(self, x):
        return ops.matmul(x, self.weight) + self.bias


class MSlipNet(mnn.Cell):
    def __init__(self, bug=None):
        super().__init__()
        self.conv1 = mnn.Conv2d(3, 8, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn1 = mnn.BatchNorm2d(8, momentum=0.1 if bug == "momentum" else 0.9, eps=1e-5)
        self.act1 = mnn.ReLU()
        self.conv2 = mnn.Conv2d(8, 8, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn2 = mnn.BatchNorm2d(8, momentum=0.9, eps=1e-3 if bug == "bn_eps" else 1e-5)
        self.act2 = mnn.GELU(approximate=bug == "gelu_tanh")
        self.avg = mnn.AvgPool2d(3, stride=2, pad_mode="pad", padding=1, count_include_pad=bug != "count_include_pad")
        self.up = MUp(align_corners=bug == "align_corners")
        self.conv3 = mnn.Conv2d(8, 8, 3, pad_mode="pad", padding=0 if bug == "padding" else 1, has_bias=True)
        self.maxp = mnn.MaxPool2d(3, stride=2, pad_mode="pad", ceil_mode=bug != "ceil_mode")
        self.gap = mnn.AdaptiveAvgPool2d(1)
        self.proj = MTransposedLinear(8) if bug == "transposed" else mnn.Dense(8, 8)
        self.ln = mnn.LayerNorm((8,), epsilon=1e-7 if bug == "ln_eps" else 1e-5)
        self.head = mnn.Dense(8, 3, has_bias=bug != "dropped_bias")

    def construct(self, x):
        x = self.act1(self.bn1(self.conv1(x)))
        x = self.act2(self.bn2(self.conv2(x)))
        x = self.maxp(self.conv3(self.up(self.avg(x))))
        x = ops.flatten(self.gap(x), start_dim=1)
        return self.head(self.ln(self.proj(x) * 0.05))


# ----------------------------------------------------------------------------- conv bias before BatchNorm
class TBiasBN(tnn.Module):
    """conv (with bias) -> BN -> ReLU, twice, then a 1x1 head: under the sum of outputs the conv biases' gradients
    are exactly 0 (BatchNorm removes any constant), so both frameworks return float noise there."""

    def __init__(self, c=8):
        super().__init__()
        self.c1, self.b1 = tnn.Conv2d(3, c, 3, padding=1), tnn.BatchNorm2d(c)
        self.c2, self.b2 = tnn.Conv2d(c, c, 3, padding=1), tnn.BatchNorm2d(c)
        self.head = tnn.Conv2d(c, 1, 1)

    def forward(self, x):
        x = F.relu(self.b1(self.c1(x)))
        return self.head(F.relu(self.b2(self.c2(x))))


class TVersionedBiasBN(TBiasBN):
    """TBiasBN whose ``_load_from_state_dict`` insists on its module version, as torchvision's MNASNet does: a
    state_dict copied into a plain dict (no ``_metadata``) is refused, which once kept the float64 reference from
    running at all."""

    _version = 2

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        if local_metadata.get("version", None) not in (1, 2):
            raise ValueError(f"version should be set to 1 or 2 instead of {local_metadata.get('version')}")
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)


class MBiasBN(mnn.Cell):
    def __init__(self, c=8, bn2_eps=1e-5):
        super().__init__()
        self.c1, self.b1 = mnn.Conv2d(3, c, 3, pad_mode="pad", padding=1, has_bias=True), mnn.BatchNorm2d(c)
        self.c2 = mnn.Conv2d(c, c, 3, pad_mode="pad", padding=1, has_bias=True)
        self.b2 = mnn.BatchNorm2d(c, eps=bn2_eps)
        self.head = mnn.Conv2d(c, 1, 1, has_bias=True)

    def construct(self, x):
        x = ops.relu(self.b1(self.c1(x)))
        return self.head(ops.relu(self.b2(self.c2(x))))


# ----------------------------------------------------------------------------- ResNet-style, two outputs, in place
class TBasic(tnn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = tnn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = tnn.BatchNorm2d(cout)
        self.relu = tnn.ReLU(inplace=True)
        self.conv2 = tnn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = tnn.BatchNorm2d(cout)
        self.down = (tnn.Sequential(tnn.Conv2d(cin, cout, 1, stride, bias=False), tnn.BatchNorm2d(cout))
                     if stride != 1 or cin != cout else None)

    def forward(self, x):
        identity = x if self.down is None else self.down(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out += identity  # in place, after bn2's hook has recorded its output
        return self.relu(out)


class TResNet2(tnn.Module):
    """Two outputs: class logits and a 1-channel map (an auxiliary head)."""

    def __init__(self, c=8, classes=4):
        super().__init__()
        self.stem = tnn.Sequential(tnn.Conv2d(3, c, 3, 2, 1, bias=False), tnn.BatchNorm2d(c), tnn.ReLU(inplace=True))
        self.layer1 = TBasic(c, c)
        self.layer2 = TBasic(c, 2 * c, stride=2)
        self.aux = tnn.Conv2d(2 * c, 1, 1)
        self.fc = tnn.Linear(2 * c, classes)

    def forward(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)), self.aux(x)


class MBasic(mnn.Cell):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = mnn.Conv2d(cin, cout, 3, stride, pad_mode="pad", padding=1, has_bias=False)
        self.bn1 = mnn.BatchNorm2d(cout)
        self.relu = mnn.ReLU()
        self.conv2 = mnn.Conv2d(cout, cout, 3, 1, pad_mode="pad", padding=1, has_bias=False)
        self.bn2 = mnn.BatchNorm2d(cout)
        self.down = (mnn.SequentialCell([mnn.Conv2d(cin, cout, 1, stride, has_bias=False), mnn.BatchNorm2d(cout)])
                     if stride != 1 or cin != cout else None)

    def construct(self, x):
        identity = x if self.down is None else self.down(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        out = out + identity
        return self.relu(out)


class MResNet2(mnn.Cell):
    def __init__(self, c=8, classes=4):
        super().__init__()
        self.stem = mnn.SequentialCell([mnn.Conv2d(3, c, 3, 2, pad_mode="pad", padding=1, has_bias=False),
                                        mnn.BatchNorm2d(c), mnn.ReLU()])
        self.layer1 = MBasic(c, c)
        self.layer2 = MBasic(c, 2 * c, stride=2)
        self.aux = mnn.Conv2d(2 * c, 1, 1, has_bias=True)
        self.fc = mnn.Dense(2 * c, classes)

    def construct(self, x):
        x = self.layer2(self.layer1(self.stem(x)))
        return self.fc(ops.flatten(ops.mean(x, (2, 3), keep_dims=True), start_dim=1)), self.aux(x)


# ----------------------------------------------------------------------------- deep supervision: tuple outputs
class TDeepSup(tnn.Module):
    """Side outputs made by child modules, used inside forward AND returned (deep supervision)."""

    def __init__(self, c=6):
        super().__init__()
        self.enc1 = tnn.Sequential(tnn.Conv2d(3, c, 3, padding=1), tnn.BatchNorm2d(c), tnn.ReLU())
        self.side1 = tnn.Conv2d(c, 1, 1)
        self.enc2 = tnn.Sequential(tnn.Conv2d(c, c, 3, padding=1), tnn.BatchNorm2d(c), tnn.ReLU())
        self.side2 = tnn.Conv2d(c, 1, 1)
        self.fuse = tnn.Conv2d(2, 1, 1)

    def forward(self, x):
        f1 = self.enc1(x)
        s1 = self.side1(f1)
        f2 = self.enc2(f1 * torch.sigmoid(s1))
        s2 = self.side2(f2)
        return self.fuse(torch.cat([s1, s2], 1)), s1, s2


class MDeepSup(mnn.Cell):
    def __init__(self, c=6):
        super().__init__()
        self.enc1 = mnn.SequentialCell([mnn.Conv2d(3, c, 3, pad_mode="pad", padding=1, has_bias=True),
                                        mnn.BatchNorm2d(c), mnn.ReLU()])
        self.side1 = mnn.Conv2d(c, 1, 1, has_bias=True)
        self.enc2 = mnn.SequentialCell([mnn.Conv2d(c, c, 3, pad_mode="pad", padding=1, has_bias=True),
                                        mnn.BatchNorm2d(c), mnn.ReLU()])
        self.side2 = mnn.Conv2d(c, 1, 1, has_bias=True)
        self.fuse = mnn.Conv2d(2, 1, 1, has_bias=True)

    def construct(self, x):
        f1 = self.enc1(x)
        s1 = self.side1(f1)
        f2 = self.enc2(f1 * ops.sigmoid(s1))
        s2 = self.side2(f2)
        return self.fuse(ops.cat([s1, s2], 1)), s1, s2


# ----------------------------------------------------------------------------- buffers, parameter-free modules
_SOBEL = np.array([[[[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]],
                   [[[-1.0, -2.0, -1.0], [0.0, 0.0, 0.0], [1.0, 2.0, 1.0]]]], np.float32)


class TSobel(tnn.Module):
    """Parameter-free: Sobel kernels in a registered buffer."""

    def __init__(self):
        super().__init__()
        self.register_buffer("kernels", torch.from_numpy(_SOBEL.copy()))

    def forward(self, x):
        return F.conv2d(x, self.kernels, padding=1).abs()


class MSobel(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.kernels = ms.Tensor(_SOBEL.copy())
        self.conv = ops.Conv2D(out_channel=2, kernel_size=3, pad_mode="pad", pad=1)

    def construct(self, x):
        return ops.abs(self.conv(x, self.kernels))


class TEdgeNet(tnn.Module):
    def __init__(self):
        super().__init__()
        self.conv = tnn.Conv2d(3, 1, 3, padding=1)
        self.edges = TSobel()

    def forward(self, x):
        return self.edges(torch.sigmoid(self.conv(x)))


class MEdgeNet(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = mnn.Conv2d(3, 1, 3, pad_mode="pad", padding=1, has_bias=True)
        self.edges = MSobel()

    def construct(self, x):
        return self.edges(ops.sigmoid(self.conv(x)))


# ----------------------------------------------------------------------------- a ReLU kink straddled by float noise
class TKink(tnn.Module):
    """fc1 -> ReLU -> fc2. ``pin_kink`` moves fc1's bias so that one pre-activation (sample 0, unit 3) sits 1e-6
    below 0 in float64: an element float noise can put on either side of the kink."""

    def __init__(self):
        super().__init__()
        self.fc1, self.act, self.fc2 = tnn.Linear(8, 16), tnn.ReLU(), tnn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))

    def pin_kink(self, x, unit=3, at=-1e-6):
        with torch.no_grad():
            pre = self.fc1.double()(torch.from_numpy(x).double())[0, unit]
            self.fc1.bias.data[unit] -= pre - at
            self.fc1.float()
        return self


class MKink(mnn.Cell):
    """The port, plus 2e-6 at that one pre-activation: what a different summation order can do to a value 1e-6
    from the kink (the forward stays within the screen: 2e-6 < atol). ``bug="bprop"``: the ReLU's gradient doubled
    (a real backward slip, which the replayed flip must not hide)."""

    def __init__(self, bug=None, unit=3, shift=2e-6):
        super().__init__()
        self.fc1, self.fc2 = mnn.Dense(8, 16), mnn.Dense(16, 4)
        self.act = _DoubledReLU() if bug == "bprop" else mnn.ReLU()
        mask = np.zeros((2, 16), np.float32)
        mask[0, unit] = shift
        self.shift = ms.Tensor(mask)

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x) + self.shift))


class _DoubledReLU(mnn.Cell):
    def construct(self, x):
        return ops.relu(x)

    def bprop(self, x, out, dout):
        return (dout * 2 * (x > 0).astype(dout.dtype),)
