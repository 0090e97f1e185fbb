"""Typical PyTorch model files, written the way users write them (several import styles on purpose)."""

UNET = '''\
"""A small U-Net."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.block = nn.Sequential(
            nn.Conv2d(cin, cout, kernel_size=3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),  # in-place is a torch memory detail
            nn.Conv2d(cout, cout, 3, padding=1, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return self.block(x)


class UNet(nn.Module):
    def __init__(self, in_channels=3, n_classes=2, base=8):
        super(UNet, self).__init__()
        self.down1 = DoubleConv(in_channels, base)
        self.down2 = DoubleConv(base, base * 2)
        self.pool = nn.MaxPool2d(2)
        self.mid = DoubleConv(base * 2, base * 4)
        self.up2 = nn.ConvTranspose2d(base * 4, base * 2, 2, stride=2)
        self.dec2 = DoubleConv(base * 4, base * 2)
        self.dec1 = DoubleConv(base * 2 + base, base)
        self.head = nn.Conv2d(base, n_classes, 1)
        self.drop = nn.Dropout2d(0.1)

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(self.pool(d1))
        m = self.drop(self.mid(self.pool(d2)))
        u2 = self.dec2(torch.cat([self.up2(m), d2], dim=1))
        u1 = F.interpolate(u2, scale_factor=2, mode="bilinear", align_corners=False)
        u1 = self.dec1(torch.cat((u1, d1), 1))
        return self.head(u1)
'''

RESNET = '''\
from torch import nn
from torch.nn import functional as F
from torch.nn import Conv2d, BatchNorm2d


def conv3x3(cin, cout, stride=1):
    return Conv2d(cin, cout, kernel_size=3, stride=stride, padding=1, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv1 = conv3x3(cin, cout, stride)
        self.bn1 = BatchNorm2d(cout)
        self.conv2 = conv3x3(cout, cout)
        self.bn2 = BatchNorm2d(cout)
        self.shortcut = nn.Sequential()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(
                Conv2d(cin, cout, 1, stride=stride, bias=False), BatchNorm2d(cout)
            )

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet(nn.Module):
    def __init__(self, num_classes=10, widths=(8, 16, 32)):
        super().__init__()
        self.stem = nn.Sequential(conv3x3(3, widths[0]), BatchNorm2d(widths[0]), nn.ReLU())
        layers = []
        cin = widths[0]
        for i, w in enumerate(widths):
            layers.append(BasicBlock(cin, w, stride=1 if i == 0 else 2))
            cin = w
        self.layers = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        x = self.layers(self.stem(x))
        x = torch_flatten(self.avgpool(x))
        return self.fc(x)


def torch_flatten(x):
    return x.view(x.size(0), -1)
'''
