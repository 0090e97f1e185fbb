def _msmigrate_fill_diagonal(input, fill_value):
    """Tensor.fill_diagonal_ without wrap (written by msmigrate), as torch: the cells whose indices are all equal,
    input[i, i, ..., i]; a 2-D input may be tall or wide (min(rows, cols) cells), more dimensions must all have the
    same length. The result is written back by the converted statement."""
    shape = input.shape
    if len(shape) < 2:
        raise ValueError("fill_diagonal_: dimensions must be larger than 1")
    if len(shape) > 2 and len(set(shape)) != 1:
        raise ValueError("fill_diagonal_: all dimensions of input must be of equal length")
    first = ops.arange(shape[0]).reshape((shape[0],) + (1,) * (len(shape) - 1))
    mask = None
    for d in range(1, len(shape)):
        ids = ops.arange(shape[d]).reshape((1,) * d + (shape[d],) + (1,) * (len(shape) - d - 1))
        mask = (first == ids) if mask is None else ops.logical_and(mask, first == ids)
    return input.masked_fill(mask, fill_value)
