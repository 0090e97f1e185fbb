def _msmigrate_quantile(input, q, dim=None, keepdim=False, interpolation="linear"):
    """torch.quantile (written by msmigrate; MindSpore 2.10's ops.quantile has no CPU kernel): the input sorted along
    dim (flattened when dim is None), the ranks q * (n - 1) interpolated as torch's `interpolation` says; a 1-D q puts
    the quantiles first; a row holding a NaN gives NaN."""
    import numpy as np

    if interpolation not in ("linear", "lower", "higher", "midpoint", "nearest"):
        raise ValueError(f"quantile() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                         f"Got {interpolation}")
    x = input
    if dim is None:
        x, axis = input.reshape(-1), 0
    else:
        axis = dim % input.ndim
    scalar_q = not isinstance(q, ms.Tensor) or q.ndim == 0
    qs = np.atleast_1d(q.asnumpy() if isinstance(q, ms.Tensor) else np.asarray(q, dtype=np.float64))
    if ((qs < 0) | (qs > 1)).any():
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    n = x.shape[axis]
    values = ops.sort(x, axis=axis)[0]
    has_nan = ops.isnan(x).any(axis=axis, keep_dims=True)
    outs = []
    for qv in qs:
        rank = float(qv) * (n - 1)
        lo, hi = int(np.floor(rank)), int(np.ceil(rank))
        if interpolation == "nearest":
            lo = hi = int(np.round(rank))  # half to even, as torch.round
        v_lo = ops.narrow(values, axis, lo, 1)
        v_hi = ops.narrow(values, axis, hi, 1)
        if interpolation in ("lower", "nearest"):
            v = v_lo
        elif interpolation == "higher":
            v = v_hi
        elif interpolation == "midpoint":
            v = (v_lo + v_hi) / 2
        else:
            v = v_lo + (v_hi - v_lo) * (rank - lo)
        v = ops.where(has_nan, ops.full_like(v, float("nan")), v)
        if not keepdim:
            v = v.squeeze(axis)
        elif dim is None:
            v = v.reshape((1,) * input.ndim)
        outs.append(v)
    return outs[0] if scalar_q else ops.stack(outs)
