def _msmigrate_getitem(x, index):
    """``x[index]`` for an index with a step (written by msmigrate). MindSpore 2.10's CPU StridedSliceGrad fails
    ("input memory out of bounds", measured) for a step on an axis that is neither the first nor the last of a
    tensor of 3 or more dimensions (swin's PatchMerging ``x[:, 0::2, 0::2, :]``, LeViT's ``x[:, ::2, ::2]``):
    those axes are taken with ops.gather of the positions the slice selects (the same values; its gradient adds
    into them), the rest of the index as written. An index holding anything but slices and one Ellipsis, and
    anything but a Tensor, is indexed as written (torch refuses negative steps on tensors)."""
    if not isinstance(x, ms.Tensor):
        return x[index]
    items = index if isinstance(index, tuple) else (index,)
    if any(not isinstance(i, slice) and i is not Ellipsis for i in items):
        return x[index]
    n, ells = x.ndim, [a for a, i in enumerate(items) if i is Ellipsis]
    if len(ells) > 1 or len(items) - len(ells) > n:
        return x[index]  # MindSpore's own error
    if ells:
        items = items[:ells[0]] + (slice(None),) * (n - len(items) + 1) + items[ells[0] + 1:]
    stepped = [a for a, s in enumerate(items)
               if s.step is not None and s.step != 1 and not (s.step > 0 and a in (0, n - 1))]
    if not stepped:
        return x[index]
    out = x[tuple(slice(None) if a in stepped else s for a, s in enumerate(items))]
    for a in stepped:
        positions = list(range(*items[a].indices(x.shape[a])))
        if not positions:
            return x[index]
        out = ops.gather(out, ms.Tensor(positions, ms.int32), a)
    return out
