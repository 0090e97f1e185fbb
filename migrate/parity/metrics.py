"""Error measures and verdicts between a torch tensor (the reference) and a MindSpore array.

Every compared tensor gets a verdict in one of two tiers (see README, "How parity decides"):

1. **float32 screen** (always, cheap): ``|torch32 - ms| <= atol + rtol * max|torch32|`` element-wise
   (a norm-wise allowance: relative to the tensor's largest magnitude), with a share ``outliers`` of
   elements allowed outside for layer gradients (ReLU / max-pool kinks). ``floor`` is that allowance,
   ``error`` the largest difference once the allowed outliers are set aside, ``ratio = error / floor``.
2. **float64 reference** (only for tensors that fail the screen): a float64 run of the torch model
   gives the exact value ``r``; the noise floor is what float32 arithmetic can explain,

       floor = K_TORCH * ||torch32 - r||  +  EPS32 * ||S||        (2-norms over the tensor)

   where ``torch32 - r`` is torch's own float32 error on this very tensor (evidence of how much rounding
   this value accumulates through the network, cancellation included) and ``S`` the magnitude of the terms
   the value sums where it is known (parameter gradients: ``S = sum |terms|``, see reference.sum_of_terms;
   a bias gradient before BatchNorm sums large terms to zero: its allowance is ~eps x sum|terms|, not
   eps x |result|). ``error = ||ms - r||``, ``ratio = error / floor``; the tensor passes when ratio <= 1.

``K_TORCH`` (forward, 32) and ``K_TORCH_GRAD`` (gradients, 128): MindSpore's CPU kernels accumulate in other
orders and by other algorithms than torch's. On faithful ports their error against float64 was measured at up
to ~15x torch's own on the forward and parameter gradients the screen rejects, and up to ~46x on layer input
gradients behind BatchNorm under the sum-of-outputs loss on a 256x256 U-Net (BatchNorm's backward sums over
batch x pixels: the longer the sum, the larger the gap), so the floors allow 32x and 128x. A real slip is
typically 30x-1e6x outside its floor.

Kinks (routing._KinkRouter): ReLU-like layers and max-pools route each gradient element by a comparison (x > 0,
which input is largest). Where the two frameworks decide otherwise on an input closer to the kink than their
forward outputs differ, either decision is a correct float32 evaluation, but each such flip moves a whole gradient
value (an O(1) term of the next convolution's weight gradient) that no rounding bound covers. So torch's backward
runs after MindSpore's and takes MindSpore's decision there (ReLU sides read off both outputs, max-pool winners off
MindSpore's input), and so does the float64 reference's: ``torch32``, ``ms`` and ``r`` above then differ by
rounding only. A layer call where more than 0.1 % of the elements (at least 16) differ is not noise at a kink and
keeps torch's own decisions. Where a layer's routing in MindSpore is not known that way, parameter gradients still
outside the screen get a routing term (routing._routing_terms: torch's float32 gradient again with noise of the
observed forward difference at those layers): tier "routing" passes a gradient within the screen of that gradient,
or with ``||ms - torch32|| <= routing = ||noised - torch32||``; otherwise the term joins the float64 floor.
Why K is 32 / 128 (the sqrt(n / log2 n) accuracy ratio of two correct float32 summations of n terms): README.

Other measures (informative): ``max_abs = max|t - m|``, ``max_rel`` element-wise relative to ``|t|``,
``cosine``, ``scaled_err = max_abs / max|t|``, ``within`` = share of elements within the screen tolerance.
Computed with torch (multi-threaded, no copies of the MindSpore array beyond one float view).
"""
from __future__ import annotations

import math

import numpy as np

K_TORCH = 32.0  # forward tensors: sqrt(n / log2 n) for fan-ins up to n ~ 14,000 (README)
K_TORCH_GRAD = 128.0  # gradients (and parameters after a step): the same for sums up to n ~ 300,000
EPS32 = float(np.finfo(np.float32).eps)  # 1.19e-7
TINY = 1e-30


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
    # a float32 sum (20x faster than a float64 one here): finite means no NaN / Inf; an overflow to Inf of finite
    # values falls through to the exact test
    if math.isfinite(float(t.sum())):
        return False
    return not bool(torch.isfinite(t).all())


class _Scratch:
    """Reused work buffers for compare (fresh 30 MB allocations cost page faults that doubled its time)."""

    def __init__(self):
        self.bufs: dict = {}

    def get(self, slot: str, n: int, dtype):
        import threading

        import torch

        key = (slot, dtype, threading.get_ident())  # hooks on another thread never share a buffer
        buf = self.bufs.get(key)
        if buf is None or buf.numel() < n:
            buf = torch.empty(n, dtype=dtype)
            self.bufs[key] = buf
        return buf[:n]

    def release(self):
        self.bufs.clear()


SCRATCH = _Scratch()


def compare(reference, port, rtol: float, atol: float, outliers: float = 0.0) -> dict:
    """The float32 screen for one pair; a shape mismatch fails with no numbers.

    ``outliers``: share of elements allowed outside tolerance (rounded down, so tensors smaller
    than 1/outliers get none). Used for layer gradients, where an input sitting within rounding
    of a ReLU / max-pool kink sends its gradient one way in torch and the other in MindSpore.
    """
    import torch

    t, m = _as_torch(reference), _as_torch(port)
    row = {"shape": list(t.shape)}
    if tuple(t.shape) != tuple(m.shape):
        row.update(max_abs=None, max_rel=None, cosine=None, within=0.0, scaled_err=None, passed=False,
                   shape_ms=list(m.shape), floor=None, error=None, ratio=math.inf, tier="shape",
                   note=f"shape differs: torch {tuple(t.shape)} vs MindSpore {tuple(m.shape)}")
        return row
    if t.numel() == 0:
        row.update(max_abs=0.0, max_rel=0.0, cosine=1.0, within=1.0, scaled_err=0.0, passed=True,
                   floor=atol, error=0.0, ratio=0.0, tier="float32")
        return row
    dtype = torch.float64 if t.dtype == torch.float64 else torch.float32
    t, m = t.to(dtype).reshape(-1), m.to(dtype).reshape(-1)
    n = t.numel()
    diff = torch.sub(t, m, out=SCRATCH.get("diff", n, dtype))
    nt, nm = float(t.norm()), float(m.norm())
    dot = float(torch.dot(t, m))
    diff.abs_()
    lo, hi = torch.aminmax(t)
    scale, max_abs = max(-float(lo), float(hi)), float(diff.max())
    if not (math.isfinite(scale) and math.isfinite(max_abs)):
        return _compare_nonfinite(row, t, m, rtol, atol)
    tol = atol + rtol * scale
    n_bad = int(torch.count_nonzero(diff > tol)) if max_abs > tol else 0
    allowed = int(outliers * n)
    # error: the (allowed+1)-th largest difference, so that ratio <= 1 exactly when the screen passes
    error = float(torch.topk(diff, min(allowed + 1, n)).values[-1]) if allowed else max_abs
    rms_diff = float(diff.norm()) / math.sqrt(n)
    rel = torch.abs(t, out=SCRATCH.get("rel", n, dtype)).clamp_min_(1e-12)
    max_rel = float(torch.div(diff, rel, out=rel).max())
    row.update(max_abs=max_abs, max_rel=max_rel, rms_diff=rms_diff, cosine=_cosine(dot, nt, nm),
               within=1 - n_bad / n,
               scaled_err=_scaled(max_abs, scale), passed=n_bad <= allowed, floor=tol, error=error,
               ratio=error / tol if tol > 0 else (0.0 if error == 0 else math.inf), tier="float32")
    return row


def judge(row: dict, t32, port, ref, terms=None, k_torch: float = K_TORCH) -> dict:
    """Re-judge a screened ``row`` against the float64 reference ``ref`` (same shape as ``t32``).

    ``terms``: ``S`` (same shape), the magnitude of the terms each element sums, or None.
    """
    import torch

    t = _as_torch(t32).to(torch.float64).reshape(-1)
    m = _as_torch(port).to(torch.float64).reshape(-1)
    r = _as_torch(ref).to(torch.float64).reshape(-1)
    if not (bool(torch.isfinite(m).all()) and bool(torch.isfinite(r).all())):
        return row  # NaN / Inf: the screen's verdict stands
    torch_err = float((t - r).norm())
    s_norm = float(_as_torch(terms).to(torch.float64).norm()) if terms is not None else 0.0
    floor = k_torch * torch_err + EPS32 * s_norm
    error = float((m - r).norm())
    ratio = error / floor if floor > TINY else (0.0 if error <= TINY else math.inf)
    out = dict(row)
    out.update(tier="float64", floor=floor, error=error, ratio=ratio, passed=ratio <= 1.0,
               screen={"floor": row.get("floor"), "error": row.get("error"), "ratio": row.get("ratio")},
               torch_err=torch_err, terms=s_norm if terms is not None else None)
    return out


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
    tol = atol + rtol * scale
    ok_fin = d <= tol
    n_ok = int(ok_fin.sum()) + int(same_special.sum())
    max_abs = float(d.max()) if d.numel() else 0.0
    max_rel = float((d / tt.abs().clamp_min(1e-12)).max()) if d.numel() else 0.0
    if bool((~finite & ~same_special).any()):  # a NaN/Inf on one side only is an infinite error
        max_abs = max_rel = math.inf
    cos = _cosine(float(torch.dot(tt, mm)), float(tt.norm()), float(mm.norm())) if tt.numel() else 0.0
    row["nonfinite"] = True  # NaN / Inf on a side (runner: the finiteness checks run only for such rows)
    row.update(max_abs=max_abs, max_rel=max_rel, cosine=cos, within=n_ok / t.numel(),
               scaled_err=_scaled(max_abs, scale), passed=n_ok == t.numel(), floor=tol, error=max_abs,
               ratio=max_abs / tol if tol > 0 else math.inf, tier="float32")
    return row


def compare_scalar(reference: float, port: float, rtol: float, atol: float) -> bool:
    return bool(np.isclose(port, reference, rtol=rtol, atol=atol, equal_nan=True))
