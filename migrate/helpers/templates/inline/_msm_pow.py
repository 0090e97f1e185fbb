def _msm_pow(base, exponent):
    """pow as in PyTorch: an integer 0 ** negative is 0 (MindSpore's Pow kernel gives the dtype's minimum)."""
    if not (ops.is_tensor(base) or ops.is_tensor(exponent)):
        return base ** exponent
    out = ops.pow(base, exponent)
    if ops.is_tensor(out) and out.dtype in (ms.int8, ms.int16, ms.int32, ms.int64, ms.uint8):
        b = base if ops.is_tensor(base) else ms.Tensor(base, out.dtype)
        e = exponent if ops.is_tensor(exponent) else ms.Tensor(exponent, out.dtype)
        out = ops.where(ops.logical_and(b == 0, e < 0), ops.zeros_like(out), out)
    return out
