def _msm_out(out, value):
    """out= as in PyTorch: the result is written into the tensor out (each tensor of a tuple out), which takes the
    result's shape (torch resizes it) and keeps its own dtype (torch casts into it); out itself is returned."""
    if isinstance(out, (tuple, list)):
        return tuple(_msm_out(o, v) for o, v in zip(out, value))
    return out.assign_value(value.astype(out.dtype))
