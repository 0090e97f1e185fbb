"""Error measures between a torch tensor (the reference) and a MindSpore array.

For reference values ``t`` and port values ``m`` of the same shape:

* ``max_abs``  = max |t - m|
* ``max_rel``  = max |t - m| / max(|t|, 1e-12)      (over elements; large where t is ~0)
* ``cosine``   = <t, m> / (|t| |m|)                  (1.0 when both are all zeros)
* ``scaled_err`` = max |t - m| / max|t|                 (what the pass test compares with rtol)
* ``within``   = share of elements with |t - m| <= atol + rtol * max|t|   (NaN == NaN, Inf == Inf)
* ``passed``   = within == 1 (every element within tolerance)

The tolerance is relative to the tensor's largest magnitude (a norm-wise criterion), not to each
element: gradients through BatchNorm, softmax or sums cancel to near zero in places, where float
rounding alone gives element-wise relative errors of 1 or more on a faithful port (measured on a
U-Net: cosine 0.9999999999, element-wise allclose failing). ``max_rel`` is still element-wise.

Computed with torch (multi-threaded, no copies of the MindSpore array beyond one float view).
"""
from __future__ import annotations

import math

import numpy as np


def _as_torch(x):
    import torch

    if isinstance(x, torch.Tensor):
        return x.detach()
    return torch.from_numpy(np.ascontiguousarray(x))


def nonfinite(x) -> bool:
    """True when a floating tensor holds NaN or Inf (one cheap reduction first)."""
    import torch

    t = _as_torch(x)
    if not t.is_floating_point() or t.numel() == 0:
        return False
    if math.isfinite(float(t.sum(dtype=torch.float64))):
        return False
    return not bool(torch.isfinite(t).all())


def compare(reference, port, rtol: float, atol: float, outliers: float = 0.0) -> dict:
    """Metrics for one pair; a shape mismatch fails with no numbers.

    ``outliers``: share of elements allowed outside tolerance (rounded down, so tensors smaller
    than 1/outliers get none). Used for layer gradients, where an input sitting within rounding
    of a ReLU / max-pool kink sends its gradient one way in torch and the other in MindSpore.
    """
    import torch

    t, m = _as_torch(reference), _as_torch(port)
    row = {"shape": list(t.shape)}
    if tuple(t.shape) != tuple(m.shape):
        row.update(max_abs=None, max_rel=None, cosine=None, within=0.0, scaled_err=None, passed=False,
                   shape_ms=list(m.shape), note=f"shape differs: torch {tuple(t.shape)} vs MindSpore {tuple(m.shape)}")
        return row
    if t.numel() == 0:
        row.update(max_abs=0.0, max_rel=0.0, cosine=1.0, within=1.0, scaled_err=0.0, passed=True)
        return row
    dtype = torch.float64 if t.dtype == torch.float64 else torch.float32
    t, m = t.to(dtype).reshape(-1), m.to(dtype).reshape(-1)
    abs_t = t.abs()
    diff = (t - m).abs_()
    scale, max_abs = float(abs_t.max()), float(diff.max())
    if math.isfinite(scale) and math.isfinite(max_abs):  # fast path: everything finite
        tol = atol + rtol * scale
        n_ok = int((diff <= tol).sum())
        max_rel = float(diff.div_(abs_t.clamp_min_(1e-12)).max())
        nt, nm = float(t.norm()), float(m.norm())
        dot = float(torch.dot(t, m))
    else:
        return _compare_nonfinite(row, t, m, rtol, atol)
    row.update(max_abs=max_abs, max_rel=max_rel, cosine=_cosine(dot, nt, nm), within=n_ok / t.numel(),
               scaled_err=_scaled(max_abs, scale), passed=t.numel() - n_ok <= int(outliers * t.numel()))
    return row


def _cosine(dot, nt, nm) -> float:
    if nt == 0.0 and nm == 0.0:
        return 1.0
    if nt == 0.0 or nm == 0.0:
        return 0.0
    return max(-1.0, min(1.0, dot / (nt * nm)))


def _scaled(max_abs, scale) -> float:
    return max_abs / scale if scale > 0 else (0.0 if max_abs == 0 else math.inf)


def _compare_nonfinite(row, t, m, rtol, atol) -> dict:
    """Slow path: NaN/Inf somewhere. NaN == NaN and Inf == Inf count as equal; one-sided ones fail."""
    import torch

    t_fin, m_fin = torch.isfinite(t), torch.isfinite(m)
    same_special = (~t_fin) & (~m_fin) & ((t == m) | (torch.isnan(t) & torch.isnan(m)))
    finite = t_fin & m_fin
    tt, mm = t[finite], m[finite]
    scale = float(t[t_fin].abs().max()) if bool(t_fin.any()) else 0.0
    d = (tt - mm).abs()
    ok_fin = d <= atol + rtol * scale
    n_ok = int(ok_fin.sum()) + int(same_special.sum())
    max_abs = float(d.max()) if d.numel() else 0.0
    max_rel = float((d / tt.abs().clamp_min(1e-12)).max()) if d.numel() else 0.0
    if bool((~finite & ~same_special).any()):  # a NaN/Inf on one side only is an infinite error
        max_abs = max_rel = math.inf
    cos = _cosine(float(torch.dot(tt, mm)), float(tt.norm()), float(mm.norm())) if tt.numel() else 0.0
    row.update(max_abs=max_abs, max_rel=max_rel, cosine=cos, within=n_ok / t.numel(),
               scaled_err=_scaled(max_abs, scale), passed=n_ok == t.numel())
    return row


def compare_scalar(reference: float, port: float, rtol: float, atol: float) -> bool:
    return bool(np.isclose(port, reference, rtol=rtol, atol=atol, equal_nan=True))
