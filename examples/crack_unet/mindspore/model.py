"""CrackUNet: a small U-Net for binary road-crack segmentation."""
from mindspore import nn, ops


class DoubleConv(nn.Cell):
    """(3x3 conv -> BatchNorm -> ReLU) twice; keeps the spatial size."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.block = nn.SequentialCell(
            nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, has_bias=False, pad_mode='pad'),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
            nn.Conv2d(out_channels, out_channels, kernel_size=3, padding=1, has_bias=False, pad_mode='pad'),
            nn.BatchNorm2d(out_channels),
            nn.ReLU(),
        )

    def construct(self, x):
        return self.block(x)


class CrackUNet(nn.Cell):
    """U-Net with `depth` down/up levels, skip connections by concatenation.

    Channels double at each level: base, 2*base, ... and 2**depth * base in the bottleneck.
    Input height and width must be divisible by 2**depth. Returns one logit map per class.
    """

    def __init__(self, in_channels=3, n_classes=1, base=16, depth=3, dropout=0.1):
        super().__init__()
        widths = [base * 2 ** i for i in range(depth)]
        self.encoders = nn.CellList()
        channels = in_channels
        for width in widths:
            self.encoders.append(DoubleConv(channels, width))
            channels = width
        self.pool = nn.MaxPool2d(2, stride=2, pad_mode='valid')
        self.bottleneck = nn.SequentialCell(
            DoubleConv(channels, channels * 2),
            nn.Dropout2d(dropout),
        )
        channels = channels * 2
        self.upsamples = nn.CellList()
        self.decoders = nn.CellList()
        for width in reversed(widths):
            self.upsamples.append(nn.Conv2dTranspose(channels, width, kernel_size=2, stride=2, has_bias=True, pad_mode='pad'))
            self.decoders.append(DoubleConv(2 * width, width))
            channels = width
        self.head = nn.Conv2d(channels, n_classes, kernel_size=1, has_bias=True, pad_mode='pad')
        self.update_parameters_name()  # msmigrate: CellList.append names parameters without their path

    def construct(self, x):
        skips = []
        for encoder in self.encoders:
            x = encoder(x)
            skips.append(x)
            x = self.pool(x)
        x = self.bottleneck(x)
        for upsample, decoder, skip in zip(self.upsamples, self.decoders, reversed(skips)):
            x = upsample(x)
            x = ops.cat([skip, x], axis=1)
            x = decoder(x)
        return self.head(x)
