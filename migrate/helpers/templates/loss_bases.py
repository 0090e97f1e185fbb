# torch losses as base classes (smp's ``class L1Loss(nn.L1Loss, base.Loss): pass``, written by msmigrate): torch's
# constructor arguments, the legacy size_average / reduce flags giving the reduction as torch's do, over MindSpore's
# loss cells (named as torch names them).


def _msmigrate_reduction(size_average, reduce, reduction):
    """torch's _Reduction.legacy_get_string: the deprecated flags, when given, decide the reduction."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


class _MsmigrateL1LossBase(nn.L1Loss):
    """torch.nn.L1Loss as a base class (written by msmigrate)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction=_msmigrate_reduction(size_average, reduce, reduction))


class _MsmigrateMSELossBase(nn.MSELoss):
    """torch.nn.MSELoss as a base class (written by msmigrate)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__(reduction=_msmigrate_reduction(size_average, reduce, reduction))


class _MsmigrateNLLLossBase(nn.NLLLoss):
    """torch.nn.NLLLoss as a base class (written by msmigrate): weight and ignore_index as torch's."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(weight=weight, ignore_index=ignore_index,
                         reduction=_msmigrate_reduction(size_average, reduce, reduction))
        self.ignore_index = ignore_index


class _MsmigrateBCELossBase(nn.BCELoss):
    """torch.nn.BCELoss as a base class (written by msmigrate). A weight is refused: MindSpore 2.10's BCELoss gave
    wrong values for a broadcast (per-class) weight on CPU (measured)."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        if weight is not None:
            raise NotImplementedError("BCELoss(weight=...): MindSpore's CPU BCELoss gave wrong values for a broadcast "
                                      "weight (measured)")
        super().__init__(reduction=_msmigrate_reduction(size_average, reduce, reduction))


class _MsmigrateBCEWithLogitsLossBase(nn.BCEWithLogitsLoss):
    """torch.nn.BCEWithLogitsLoss as a base class (written by msmigrate): weight and pos_weight as torch's."""

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(reduction=_msmigrate_reduction(size_average, reduce, reduction), weight=weight,
                         pos_weight=pos_weight)


_MsmigrateL1LossBase.__name__ = "L1Loss"
_MsmigrateMSELossBase.__name__ = "MSELoss"
_MsmigrateNLLLossBase.__name__ = "NLLLoss"
_MsmigrateBCELossBase.__name__ = "BCELoss"
_MsmigrateBCEWithLogitsLossBase.__name__ = "BCEWithLogitsLoss"


class _MsmigrateCrossEntropyLossBase(nn.Cell):
    """torch.nn.CrossEntropyLoss as a base class (written by msmigrate): targets int64 class indices or class
    probabilities, weight, ignore_index, reduction (the legacy flags too) and label_smoothing as torch's, through
    ops.cross_entropy (MindSpore's nn.CrossEntropyLoss takes int32 labels only, measured)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                 label_smoothing=0.0):
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction = _msmigrate_reduction(size_average, reduce, reduction)
        self.label_smoothing = label_smoothing

    def construct(self, input, target):
        return ops.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing)


_MsmigrateCrossEntropyLossBase.__name__ = "CrossEntropyLoss"
