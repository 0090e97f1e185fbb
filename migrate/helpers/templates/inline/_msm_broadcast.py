def _msm_broadcast(*tensors):
    """The tensors broadcast to one shape, as torch's kernels broadcast them (MindSpore's cross and polar read
    past a smaller operand: other numbers, measured)."""
    rank = max(t.ndim for t in tensors)
    shape = [1] * rank
    for t in tensors:
        for i, d in enumerate(t.shape):
            j = rank - t.ndim + i
            if shape[j] == 1:
                shape[j] = d
    return [ops.broadcast_to(t, tuple(shape)) for t in tensors]
