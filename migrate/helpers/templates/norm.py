def _msmigrate_norm(input, p="fro", dim=None, keepdim=False):
    """torch.norm / Tensor.norm with p or dim known only when the code runs (written by msmigrate): torch's vector
    norm over `dim` (all elements when None; 'fro' is the 2-norm of the entries), composed from abs / sum / amax so
    that two axes give torch's vector norm, not a matrix norm."""
    import math

    axes = tuple(range(input.ndim)) if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    if isinstance(p, str):
        if p != "fro":
            raise NotImplementedError(f"norm(p={p!r}) is not mapped (only 'fro' and numbers)")
        p = 2
    a = ops.abs(input)
    if p == math.inf:
        return ops.amax(a, axes, keepdim)
    if p == -math.inf:
        return ops.amin(a, axes, keepdim)
    if p == 0:
        return ops.sum((a != 0).astype(input.dtype), axes, keepdim)
    if p == 1:
        return ops.sum(a, axes, keepdim)
    if p == 2:
        return ops.sqrt(ops.sum(a * a, axes, keepdim))
    return ops.pow(ops.sum(ops.pow(a, p), axes, keepdim), 1.0 / p)
