def _msmigrate_pad_mode(padding):
    """torch's Conv ``padding`` known only when the code runs (written by msmigrate): 'same' / 'valid' are
    MindSpore's pad modes, numbers pad explicitly."""
    return padding if isinstance(padding, str) else "pad"


def _msmigrate_pad(padding, dims):
    """torch pads (ph, pw) on both sides; MindSpore's Conv2d takes (top, bottom, left, right), its Conv3d
    (head, tail, top, bottom, left, right), its Conv1d one int."""
    if isinstance(padding, str):
        return 0
    if isinstance(padding, (tuple, list)):
        if dims == 2 and len(padding) == 2:
            return (padding[0], padding[0], padding[1], padding[1])
        if dims == 3 and len(padding) == 3:
            return (padding[0], padding[0], padding[1], padding[1], padding[2], padding[2])
        if dims == 1 and len(padding) == 1:
            return padding[0]
        raise ValueError(f"padding={padding!r} has no MindSpore form for a {dims}-d convolution")
    return padding
