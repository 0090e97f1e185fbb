def _msm_signbit(x):
    """signbit as in PyTorch: the sign bit, also of -0.0 and -nan (MindSpore's kernel answers False for -0.0)."""
    bits = {ms.float16: ms.int16, ms.bfloat16: ms.int16, ms.float32: ms.int32, ms.float64: ms.int64}.get(x.dtype)
    return x.view(bits) < 0 if bits is not None else x < 0
