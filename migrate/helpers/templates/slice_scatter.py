def _msmigrate_slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """torch.slice_scatter (written by msmigrate): start and end are read as Python slices read them (clamped to
    the axis, as torch does); MindSpore 2.10's ops.slice_scatter counts a start below -size from -size on
    (slice_scatter(x[2, 1, 5], src[2, 1, 5], 1, -2) asked for a [2, 2, 5] src, measured)."""
    start, end, _ = slice(start, end, step).indices(input.shape[dim])
    return ops.slice_scatter(input, src, dim, start, end, step)
