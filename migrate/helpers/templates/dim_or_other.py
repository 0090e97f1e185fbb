def _msmigrate_max(input, other):
    """torch.max(input, other_or_dim) (written by msmigrate): an int is a dim (values, indices), a tensor the
    elementwise maximum, told apart when the code runs."""
    if isinstance(other, int) and not isinstance(other, bool):
        return ops.max(input, other, keepdims=False)
    return ops.maximum(input, other)


def _msmigrate_min(input, other):
    """torch.min(input, other_or_dim) (written by msmigrate): an int is a dim (values, indices), a tensor the
    elementwise minimum, told apart when the code runs."""
    if isinstance(other, int) and not isinstance(other, bool):
        return ops.min(input, other, keepdims=False)
    return ops.minimum(input, other)
