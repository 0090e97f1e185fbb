# torch's reductions used as values (Lightning's ``reduce_fx: Callable = torch.mean``, ignite's
# ``{"MIN": torch.min, "MAX": torch.max, "PRODUCT": torch.prod}``), called later with torch's arguments.


def _msmigrate_value_mean(input, dim=None, keepdim=False, *, dtype=None):
    """torch.mean used as a value (written by msmigrate): torch's arguments; dtype casts the input first, as torch."""
    if dtype is not None:
        input = input.astype(dtype)
    return ops.mean(input, dim, keepdim)


def _msmigrate_value_prod(input, dim=None, keepdim=False, *, dtype=None):
    """torch.prod used as a value (written by msmigrate): torch's arguments; dtype casts the input first, as torch."""
    if dtype is not None:
        input = input.astype(dtype)
    return ops.prod(input, dim, keepdim)


def _msmigrate_value_max(input, dim=None, keepdim=False, *, other=None):
    """torch.max used as a value (written by msmigrate): max(x) the largest element, max(x, dim, keepdim) the
    (values, indices) pair, max(x, other) the elementwise maximum, as torch's overloads."""
    if other is not None:
        return ops.maximum(input, other)
    if isinstance(dim, ms.Tensor):
        return ops.maximum(input, dim)
    if dim is None:
        return input.max()
    return ops.max(input, dim, keepdims=keepdim)


def _msmigrate_value_min(input, dim=None, keepdim=False, *, other=None):
    """torch.min used as a value (written by msmigrate): min(x) the smallest element, min(x, dim, keepdim) the
    (values, indices) pair, min(x, other) the elementwise minimum, as torch's overloads."""
    if other is not None:
        return ops.minimum(input, other)
    if isinstance(dim, ms.Tensor):
        return ops.minimum(input, dim)
    if dim is None:
        return input.min()
    return ops.min(input, dim, keepdims=keepdim)
