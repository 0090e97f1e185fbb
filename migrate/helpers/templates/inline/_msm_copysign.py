def _msm_copysign(a, b):
    """copysign as in PyTorch: the sign is b's sign bit, also of -0.0 (MindSpore's kernel takes -0.0 as positive);
    mixed dtypes promote as torch promotes them."""
    if not ops.is_tensor(b):
        r = ops.abs(ops.copysign(a, b))
        return -r if str(float(b)).startswith("-") else r
    a, b = _msm_promote([a, b]) if ops.is_tensor(a) else (a, b)
    r = ops.abs(ops.copysign(a, b))
    return ops.where(_msm_signbit(b), -r, r)
