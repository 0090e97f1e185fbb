def _msmigrate_to(x, *args, dtype=None):
    """Tensor.to (written by msmigrate) where the conversion could not tell a device from a dtype: a dtype, or a
    tensor argument's dtype, casts; a device (a string, an index, a device object) is ignored, since MindSpore places
    tensors by its context. As in torch, the tensor itself comes back when its dtype does not change."""
    for a in args:
        if isinstance(a, ms.Tensor):
            dtype = a.dtype
        elif isinstance(a, ms.dtype.Type):
            dtype = a
    return x if dtype is None or dtype == x.dtype else x.astype(dtype)
