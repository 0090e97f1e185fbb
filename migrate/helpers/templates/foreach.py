def _msmigrate_foreach(op, tensors, *args, inplace=False, split=None):
    """torch._foreach_* (written by msmigrate): op applied to each tensor of the list, with the matching element of
    each list argument (a scalar or a single tensor is shared by all; a tensor at position ``split`` holds one
    scalar per tensor, as torch's addcdiv_/addcmul_ take it). In place, each result is written back with copy_ (the
    tensor object and its dtype stay, as torch's in-place ops keep them) and the list itself is returned, as torch
    returns it."""
    n = len(tensors)
    args = [list(a) if i == split and isinstance(a, ms.Tensor) else a for i, a in enumerate(args)]
    columns = [a if isinstance(a, (list, tuple)) else [a] * n for a in args]
    out = [op(t, *row) for t, *row in zip(tensors, *columns)]
    if inplace:
        for t, value in zip(tensors, out):
            t.copy_(value)
        return tensors
    return out
