def _msmigrate_scatter(input, dim, index, src=None, value=None):
    """torch.scatter / Tensor.scatter without reduce (written by msmigrate): TensorScatterElements with src cut to
    the index's shape, as torch reads it; a number (src or value=) fills the index's shape. MindSpore 2.10's
    Tensor.scatter / ops.scatter return silently wrong numbers once the process has run a scatter of another shape
    (updates dropped, measured); ops.tensor_scatter_elements does not."""
    if src is None:
        src = value
    if ops.is_tensor(src):
        src = src[tuple(slice(0, n) for n in index.shape)]
    else:
        src = ops.full(index.shape, src, dtype=input.dtype)
    return ops.tensor_scatter_elements(input, index, src, dim)
