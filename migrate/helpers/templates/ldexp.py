def _msmigrate_ldexp(input, other):
    """torch.ldexp / Tensor.ldexp (written by msmigrate): a float16 input scaled by an integer exponent stays
    float16 as in torch; MindSpore 2.10's ops.ldexp returns float32 for it (every other dtype pair agrees with
    torch, measured)."""
    out = ops.ldexp(input, other)
    if input.dtype == ms.float16 and out.dtype == ms.float32 and not ops.is_floating_point(other):
        out = out.astype(ms.float16)
    return out
