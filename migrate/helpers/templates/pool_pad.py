def _msmigrate_pool_pad(padding):
    """torch's avg_pool2d ``padding`` (an int, or (ph, pw) padded on both sides) as MindSpore's ops.avg_pool2d takes
    it: an int, or (top, bottom, left, right) (written by msmigrate; measured: a pair raised ValueError)."""
    if isinstance(padding, (tuple, list)) and len(padding) == 2:
        return (padding[0], padding[0], padding[1], padding[1])
    if isinstance(padding, (tuple, list)) and len(padding) == 1:
        return padding[0]
    return padding
