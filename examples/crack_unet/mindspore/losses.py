"""Losses for crack segmentation: BCE + Dice + a Sobel edge-aware auxiliary term.

All losses take raw logits (N, 1, H, W) and a float mask (N, 1, H, W) in {0, 1}
and return a scalar tensor.
"""
import mindspore as ms
from mindspore import nn, ops


class EdgeAwareLoss(nn.Cell):
    """weight * L1 distance between the Sobel edges of sigmoid(logits) and of the mask.

    The Sobel x and y kernels live in a frozen 1 -> 2 channel convolution, so the
    loss is differentiable with respect to the logits but the kernels never change.
    """

    def __init__(self, weight=0.1):
        super().__init__()
        kernels = ms.Tensor([
            [[[-1.0, 0.0, 1.0], [-2.0, 0.0, 2.0], [-1.0, 0.0, 1.0]]],   # horizontal gradient
            [[[-1.0, -2.0, -1.0], [0.0, 0.0, 0.0], [1.0, 2.0, 1.0]]],   # vertical gradient
        ])
        self.sobel = nn.Conv2d(1, 2, kernel_size=3, padding=1, has_bias=False, pad_mode='pad')
        self.sobel.weight = ms.Parameter(kernels, requires_grad=False)
        self.weight = weight

    def construct(self, logits, mask):
        edge_pred = self.sobel(ops.sigmoid(logits))
        edge_true = self.sobel(mask)
        return self.weight * ops.l1_loss(edge_pred, edge_true)


class DiceLoss(nn.Cell):
    """1 - soft Dice coefficient of sigmoid(logits) and the mask, averaged over the batch."""

    def __init__(self, smooth=1.0):
        super().__init__()
        self.smooth = smooth

    def construct(self, logits, mask):
        probs = ops.sigmoid(logits)
        intersection = (probs * mask).sum(dim=(1, 2, 3))
        total = probs.sum(dim=(1, 2, 3)) + mask.sum(dim=(1, 2, 3))
        dice = (2.0 * intersection + self.smooth) / (total + self.smooth)
        return 1.0 - dice.mean()


class CrackLoss(nn.Cell):
    """BCE-with-logits + dice_weight * Dice + EdgeAwareLoss(edge_weight).

    edge_weight=0 drops the edge term (the ablation without the auxiliary loss).
    """

    def __init__(self, edge_weight=0.1, dice_weight=1.0):
        super().__init__()
        self.bce = nn.BCEWithLogitsLoss()
        self.dice = DiceLoss()
        self.edge = EdgeAwareLoss(weight=edge_weight)
        self.edge_weight = edge_weight
        self.dice_weight = dice_weight

    def construct(self, logits, mask):
        loss = self.bce(logits, mask) + self.dice_weight * self.dice(logits, mask)
        if self.edge_weight > 0:
            loss = loss + self.edge(logits, mask)
        return loss
