def _msmigrate_corrcoef(input):
    """torch.corrcoef as torch computes it: cov, then divided by the standard deviations of the rows and of the
    columns in turn, clipped to [-1, 1]. A constant row gives nan as in torch (MindSpore's nan / 0 is -inf and its
    clip turns nan into -1: both kept off nan). A 1-D input is one variable (a 0-d result, c / c); a floating input
    keeps its dtype (MindSpore's cov gives float32 for float16)."""
    c = ops.cov(input)
    if c.ndim == 0:
        r = c / c
    else:
        s = ops.sqrt(c.diagonal())
        r = c / s.reshape(-1, 1)
        r = ops.where(ops.isnan(r), r, r / s.reshape(1, -1))
        r = ops.where(ops.isnan(r), r, r.clip(-1, 1))
    if ops.is_floating_point(input) and r.dtype != input.dtype:
        r = r.astype(input.dtype)
    return r
