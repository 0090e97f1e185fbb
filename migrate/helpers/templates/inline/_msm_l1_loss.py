def _msm_l1_loss(input, target, reduction="mean"):
    """l1_loss as in PyTorch: reduction='sum' of integer inputs sums in int64 (MindSpore keeps int32)."""
    if reduction == "sum":
        d = ops.abs(input - target)
        if d.dtype in (ms.int8, ms.int16, ms.int32, ms.uint8):
            return ops.sum(d.astype(ms.int64))
    return ops.l1_loss(input, target, reduction=reduction)
