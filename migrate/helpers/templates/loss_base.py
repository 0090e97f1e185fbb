class _MsmigrateLoss(nn.Cell):
    """torch.nn.modules.loss._Loss (written by msmigrate): the base of a user's loss class; it keeps `reduction`
    ('mean' by default; the legacy size_average / reduce flags give it as torch's do)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        if size_average is not None or reduce is not None:
            size_average = True if size_average is None else size_average
            reduce = True if reduce is None else reduce
            reduction = ("mean" if size_average else "sum") if reduce else "none"
        self.reduction = reduction


class _MsmigrateWeightedLoss(_MsmigrateLoss):
    """torch.nn.modules.loss._WeightedLoss (written by msmigrate): a _Loss with an optional class `weight` tensor."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.weight = weight
