"""Error measures between a torch tensor (the reference) and a MindSpore array.

For reference values ``t`` and port values ``m`` of the same shape:

* ``max_abs``  = max |t - m|
* ``max_rel``  = max |t - m| / max(|t|, 1e-12)      (over elements; large where t is ~0)
* ``cosine``   = <t, m> / (|t| |m|)                  (1.0 when both are all zeros)
* ``within``   = share of elements with |t - m| <= atol + rtol |t|   (NaN == NaN, Inf == Inf)
* ``passed``   = within == 1 (every element within tolerance, as numpy.allclose)

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
    import torch

    t = _as_torch(x)
    return bool(t.is_floating_point() and not torch.isfinite(t).all())


def compare(reference, port, rtol: float, atol: float) -> dict:
    """Metrics for one pair; a shape mismatch fails with no numbers."""
    import torch

    t, m = _as_torch(reference), _as_torch(port)
    row = {"shape": list(t.shape)}
    if tuple(t.shape) != tuple(m.shape):
        row.update(max_abs=None, max_rel=None, cosine=None, within=0.0, passed=False,
                   shape_ms=list(m.shape), note=f"shape differs: torch {tuple(t.shape)} vs MindSpore {tuple(m.shape)}")
        return row
    if t.numel() == 0:
        row.update(max_abs=0.0, max_rel=0.0, cosine=1.0, within=1.0, passed=True)
        return row
    dtype = torch.float64 if t.dtype == torch.float64 else torch.float32
    t, m = t.to(dtype), m.to(dtype)
    t_fin, m_fin = torch.isfinite(t), torch.isfinite(m)
    same_special = (~t_fin) & (~m_fin) & ((t == m) | (torch.isnan(t) & torch.isnan(m)))
    diff = (t - m).abs()
    ok = (diff <= atol + rtol * t.abs()) | same_special
    finite = t_fin & m_fin
    if bool(finite.all()):
        d, tt, mm = diff, t, m
    else:
        d, tt, mm = diff[finite], t[finite], m[finite]
    max_abs = float(d.max()) if d.numel() else 0.0
    max_rel = float((d / tt.abs().clamp_min(1e-12)).max()) if d.numel() else 0.0
    if not bool(finite.all()):  # a NaN/Inf on one side only is an infinite error
        if bool((~finite & ~same_special).any()):
            max_abs = max_rel = math.inf
    dot = float((tt.double() * mm.double()).sum()) if tt.numel() else 0.0
    nt, nm = float(tt.double().norm()) if tt.numel() else 0.0, float(mm.double().norm()) if mm.numel() else 0.0
    if nt == 0.0 and nm == 0.0:
        cosine = 1.0
    elif nt == 0.0 or nm == 0.0:
        cosine = 0.0
    else:
        cosine = dot / (nt * nm)
    within = float(ok.to(torch.float64).mean())
    row.update(max_abs=max_abs, max_rel=max_rel, cosine=cosine, within=within, passed=bool(ok.all()))
    return row


def compare_scalar(reference: float, port: float, rtol: float, atol: float) -> bool:
    return bool(np.isclose(port, reference, rtol=rtol, atol=atol, equal_nan=True))
