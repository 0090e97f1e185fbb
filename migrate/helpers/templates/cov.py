def _msmigrate_cov(input, correction=1):
    """torch.cov / Tensor.cov without weights (written by msmigrate): a float16 input gives a float16 result as in
    torch; MindSpore 2.10's ops.cov returns float32 for it (every other dtype agrees with torch, measured)."""
    out = ops.cov(input, correction=correction)
    if input.dtype == ms.float16:
        out = out.astype(ms.float16)
    return out
