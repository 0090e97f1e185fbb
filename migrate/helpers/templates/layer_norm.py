def _msmigrate_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """F.layer_norm whose normalized_shape is only known at run time: ops.layer_norm has no CPU kernel in
    MindSpore 2.10 (LayerNormExt); the classic LayerNorm primitive over the last len(normalized_shape) axes."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    axis = input.ndim - len(shape)
    if weight is None:
        weight = ops.ones(shape, input.dtype)
    if bias is None:
        bias = ops.zeros(shape, input.dtype)
    return ops.LayerNorm(axis, axis, eps)(input, weight, bias)[0]
