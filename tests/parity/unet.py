"""A small U-Net in torch and its faithful MindSpore port (same attribute names), for parity tests
and benchmarks/parity_overhead.py. ``base`` sets the width (64 is the classic U-Net)."""
from __future__ import annotations

import mindspore.nn as mnn
import mindspore.ops as ops
import torch
import torch.nn as tnn
import torch.nn.functional as F


class TorchDoubleConv(tnn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.net = tnn.Sequential(
            tnn.Conv2d(cin, cout, 3, padding=1, bias=False), tnn.BatchNorm2d(cout), tnn.ReLU(inplace=True),
            tnn.Conv2d(cout, cout, 3, padding=1, bias=False), tnn.BatchNorm2d(cout), tnn.ReLU(inplace=True))

    def forward(self, x):
        return self.net(x)


class TorchUp(tnn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.up = tnn.ConvTranspose2d(cin, cin // 2, 2, stride=2)
        self.conv = TorchDoubleConv(cin, cout)

    def forward(self, x, skip):
        return self.conv(torch.cat([skip, self.up(x)], dim=1))


class TorchUNet(tnn.Module):
    def __init__(self, in_channels=3, classes=1, base=8, depth=3):
        super().__init__()
        chans = [base * 2 ** i for i in range(depth + 1)]
        self.inc = TorchDoubleConv(in_channels, chans[0])
        self.downs = tnn.ModuleList(TorchDoubleConv(chans[i], chans[i + 1]) for i in range(depth))
        self.pool = tnn.MaxPool2d(2)
        self.ups = tnn.ModuleList(TorchUp(chans[i + 1], chans[i]) for i in reversed(range(depth)))
        self.outc = tnn.Conv2d(chans[0], classes, 1)

    def forward(self, x):
        skips = [self.inc(x)]
        for down in self.downs:
            skips.append(down(self.pool(skips[-1])))
        x = skips.pop()
        for up in self.ups:
            x = up(x, skips.pop())
        return self.outc(x)


class MsDoubleConv(mnn.Cell):
    def __init__(self, cin, cout):
        super().__init__()
        self.net = mnn.SequentialCell([
            mnn.Conv2d(cin, cout, 3, pad_mode="pad", padding=1, has_bias=False), mnn.BatchNorm2d(cout), mnn.ReLU(),
            mnn.Conv2d(cout, cout, 3, pad_mode="pad", padding=1, has_bias=False), mnn.BatchNorm2d(cout), mnn.ReLU()])

    def construct(self, x):
        return self.net(x)


class MsUp(mnn.Cell):
    def __init__(self, cin, cout):
        super().__init__()
        self.up = mnn.Conv2dTranspose(cin, cin // 2, 2, stride=2, pad_mode="valid", has_bias=True)
        self.conv = MsDoubleConv(cin, cout)

    def construct(self, x, skip):
        return self.conv(ops.cat([skip, self.up(x)], axis=1))


class MsUNet(mnn.Cell):
    def __init__(self, in_channels=3, classes=1, base=8, depth=3):
        super().__init__()
        chans = [base * 2 ** i for i in range(depth + 1)]
        self.inc = MsDoubleConv(in_channels, chans[0])
        self.downs = mnn.CellList([MsDoubleConv(chans[i], chans[i + 1]) for i in range(depth)])
        self.pool = mnn.MaxPool2d(kernel_size=2, stride=2)
        self.ups = mnn.CellList([MsUp(chans[i + 1], chans[i]) for i in reversed(range(depth))])
        self.outc = mnn.Conv2d(chans[0], classes, 1, has_bias=True)

    def construct(self, x):
        skips = [self.inc(x)]
        for down in self.downs:
            skips.append(down(self.pool(skips[-1])))
        x = skips.pop()
        for up in self.ups:
            x = up(x, skips.pop())
        return self.outc(x)


class TorchBCEDice(tnn.Module):
    def forward(self, logits, target):
        p = torch.sigmoid(logits)
        dice = 1 - (2 * (p * target).sum() + 1) / (p.sum() + target.sum() + 1)
        return F.binary_cross_entropy_with_logits(logits, target) + dice


class MsBCEDice(mnn.Cell):
    def __init__(self):
        super().__init__()
        self.bce = mnn.BCEWithLogitsLoss()

    def construct(self, logits, target):
        p = ops.sigmoid(logits)
        dice = 1 - (2 * (p * target).sum() + 1) / (p.sum() + target.sum() + 1)
        return self.bce(logits, target) + dice
