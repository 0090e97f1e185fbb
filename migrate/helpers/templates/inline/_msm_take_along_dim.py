def _msm_take_along_dim(input, indices, dim):
    """take_along_dim as in PyTorch: input and indices broadcast against each other in every dim but ``dim``
    (MindSpore's gather_elements needs them equal)."""
    dim = dim % input.ndim
    shape_x, shape_i = list(input.shape), list(indices.shape)
    for d in range(input.ndim):
        if d != dim:
            shape_x[d] = shape_i[d] = max(shape_x[d], shape_i[d])
    return ops.gather_elements(ops.broadcast_to(input, tuple(shape_x)), dim, ops.broadcast_to(indices, tuple(shape_i)))
