# apis: torch.nn.CrossEntropyLoss
class CrossEntropyLoss(nn.Cell):
    """PyTorch's CrossEntropyLoss (written by msmigrate): targets are int64 class indices or class probabilities.
    MindSpore's nn.CrossEntropyLoss takes int32 labels only; ops.cross_entropy takes both."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction, self.label_smoothing = reduction, label_smoothing

    def construct(self, input, target):
        return ops.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing)
