"""Routing: ReLU-like and max-pool layers send each gradient element one way or the other by a comparison; where the
frameworks decided differently (inputs within their forward difference of the kink), torch's backward is routed as
MindSpore's was (``_KinkRouter``), and where that is not known a routing run gives a noise term (``_routing_terms``)."""
from __future__ import annotations

import math

import numpy as np

from . import metrics
from .hooks import ROOT
from .state import _line, _torch_loss


_KINKS = ("ReLU", "ReLU6", "LeakyReLU", "PReLU", "RReLU", "Hardtanh", "Threshold", "MaxPool1d", "MaxPool2d",
          "MaxPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d")


# element-wise kinks whose side can be read off the output: (lower, upper) bound attributes, None when absent
_SIGN_KINKS = {"ReLU": (0.0, None), "LeakyReLU": (0.0, None), "PReLU": (0.0, None), "ReLU6": (0.0, 6.0),
               "Hardtanh": ("min_val", "max_val")}


# a ReLU-like layer where more elements than this share (at least 16) changed side is not float noise at a kink:
# the forward comparison speaks for it, and no flip is replayed
STRADDLE_SHARE = 1e-3


def _straddles(torch_model, meta, t_out, m_out):
    """Elements of a ReLU-like layer's output that torch and MindSpore put on different sides of a kink, and the
    input value that puts torch on MindSpore's side: ``(flat indices, values)``, or None when there are none or
    too many (see STRADDLE_SHARE)."""
    import torch

    path, typ = meta
    try:
        module = torch_model if path == ROOT else torch_model.get_submodule(path)
    except AttributeError:
        return None
    lo, hi = (getattr(module, b, None) if isinstance(b, str) else b for b in _SIGN_KINKS[typ])
    t = t_out.detach().reshape(-1)
    m = torch.from_numpy(np.ascontiguousarray(m_out)).reshape(-1)
    if t.shape != m.shape or not t.is_floating_point():
        return None
    idx, vals, sides = [], [], []
    tiny = float(torch.finfo(t.dtype).tiny)
    for bound, above in ((lo, True), (hi, False)):
        if bound is None:
            continue
        t_side, m_side = (t > bound, m > bound) if above else (t < bound, m < bound)
        sides.append((float(bound), above, np.packbits(m_side.numpy())))
        where = torch.nonzero(t_side != m_side).reshape(-1)
        if where.numel() == 0:
            continue
        # MindSpore on the open side: its output is its input there; else just past the bound
        past = bound - max(tiny, abs(bound) * 1e-7) if above else bound + max(tiny, abs(bound) * 1e-7)
        vals.append(torch.where(m_side[where], m[where], torch.full_like(m[where], past)))
        idx.append(where)
    if not idx:  # routed alike everywhere: known exactly, so the routing run adds no noise here
        empty = torch.zeros(0, dtype=t.dtype)
        return torch.zeros(0, dtype=torch.long), empty, sides, empty
    idx, vals = torch.cat(idx), torch.cat(vals)
    if idx.numel() > max(16, STRADDLE_SHARE * t.numel()):
        return None
    idx, first = _unique(idx)  # an element outside both bounds' agreement is listed once
    vals = vals[first]
    delta = _slope(module, typ, lo, hi, m[idx], idx, tuple(t_out.shape)) - _slope(
        module, typ, lo, hi, t[idx], idx, tuple(t_out.shape))
    return idx, vals.to(t.dtype), sides, delta.to(t.dtype)


def _unique(idx):
    """Sorted unique flat indices and the position of each one's first occurrence in ``idx``."""
    import torch

    uniq, inverse = torch.unique(idx, sorted=True, return_inverse=True)
    first = torch.full((uniq.numel(),), idx.numel(), dtype=torch.long)
    first.scatter_reduce_(0, inverse, torch.arange(idx.numel()), reduce="amin")
    return uniq, first


def _slope(module, typ, lo, hi, v, idx, shape):
    """The derivative of a ReLU-like layer at the flat elements ``idx`` whose outputs are ``v``: 1 between the
    bounds, 0 above the upper one, below the lower one 0 (ReLU, ReLU6, Hardtanh), ``negative_slope`` (LeakyReLU)
    or the channel's weight (PReLU). The side of each bound is read off the output as the kink's own backward
    reads it (torch's threshold_backward: ``out > 0``)."""
    import torch

    below = torch.zeros(v.shape, dtype=v.dtype)
    if typ == "LeakyReLU":
        below.fill_(float(module.negative_slope))
    elif typ == "PReLU":
        w = module.weight.detach().reshape(-1).to(v.dtype)
        if w.numel() == 1:
            below.fill_(float(w[0]))
        elif len(shape) >= 2 and shape[1] == w.numel():
            inner = int(np.prod(shape[2:])) if len(shape) > 2 else 1
            below = w[(idx // inner) % shape[1]]
    d = torch.ones(v.shape, dtype=v.dtype)
    if lo is not None:
        d = torch.where(v > lo, d, below)
    if hi is not None:
        d = torch.where(v < hi, d, torch.zeros_like(d))
    return d


def _enforce_sides(x, sides, fresh):
    """Put every element of ``x`` (a ReLU-like layer's input in the routing run) on the side of each kink that
    MindSpore's output put it (``sides``: (bound, lower?, packed MindSpore sides)): the replayed straddles are set
    already, this catches an element the replays upstream moved across (they move values by float noise, so such an
    element was within that noise of the bound). Moved elements go just past the bound. ``fresh``: ``x`` is a
    copy already. Returns (x, n moved)."""
    import torch

    moved = 0
    tiny = float(torch.finfo(x.dtype).tiny)
    for bound, above, packed in sides:
        n = x.numel()
        if packed.size * 8 < n:
            continue
        ms_side = torch.from_numpy(np.unpackbits(packed, count=n).view(bool))
        flat = x.detach().reshape(-1)
        cur = flat > bound if above else flat < bound
        where = torch.nonzero(cur != ms_side).reshape(-1)
        if not where.numel():
            continue
        step = max(tiny, abs(bound) * 1e-7)
        inside, outside = (bound + step, bound - step) if above else (bound - step, bound + step)
        if not fresh:
            x, fresh = x.clone(memory_format=torch.contiguous_format), True
        with torch.no_grad():
            vals = torch.where(ms_side[where], torch.full((), inside, dtype=x.dtype),
                               torch.full((), outside, dtype=x.dtype))
            x.view(-1)[where] = vals
        moved += int(where.numel())
    return x, moved


_POOL_KINKS = ("MaxPool1d", "MaxPool2d", "MaxPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d")


def _pool(module, x):
    """torch's pooling of ``module`` applied to ``x``, with the winners: (values, flat index per plane)."""
    import torch.nn.functional as F

    typ = type(module).__name__
    dims = int(typ[-2])
    if typ.startswith("Adaptive"):
        fn = getattr(F, f"adaptive_max_pool{dims}d")
        return fn(x, module.output_size, return_indices=True)
    fn = getattr(F, f"max_pool{dims}d")
    return fn(x, module.kernel_size, module.stride, module.padding, module.dilation, ceil_mode=module.ceil_mode,
              return_indices=True)


def _pool_winners(torch_model, meta, ms_in, ms_out, t_out):
    """Which input won each window of a max-pool in MindSpore: torch's pooling (the same module) of MindSpore's own
    input, accepted only when it gives MindSpore's output exactly (then the winners are MindSpore's, up to exact
    ties, which route the same value). A max-pool's output alone cannot say which input won; its input can.
    Returns the winners (int32 where they fit) or None."""
    import torch

    path, _typ = meta
    try:
        module = torch_model if path == ROOT else torch_model.get_submodule(path)
        if getattr(module, "return_indices", False):
            return None
        x = torch.from_numpy(np.ascontiguousarray(ms_in))
        if not x.is_floating_point() or tuple(ms_out.shape) != tuple(t_out.shape):
            return None
        with torch.no_grad():
            vals, idx = _pool(module, x)
    except Exception:  # noqa: BLE001 - no exact routing for this layer: the noise term covers it
        return None
    if tuple(vals.shape) != tuple(ms_out.shape) or not np.array_equal(vals.numpy(), ms_out):
        return None
    return idx.to(torch.int32) if x[0].numel() < 2 ** 31 else idx


def _route_pool(module, x, won):
    """``x`` (a max-pool's input in the routing run) with each window whose winner differs from MindSpore's
    (``won``) changed so that MindSpore's winner wins: its value is raised to just above the current winner's (a
    change within the frameworks' forward difference, since the two were that close). Returns (x, n flipped), or
    (None, n) when it cannot be done (too many windows differ: not float noise; or overlapping windows)."""
    import torch

    with torch.no_grad():
        _, cur = _pool(module, x.detach())
    if tuple(cur.shape) != tuple(won.shape):
        return None, 0
    where = torch.nonzero((cur != won.to(cur.dtype)).reshape(-1)).reshape(-1)
    n = int(where.numel())
    if n == 0:
        return x, 0
    if n > max(16, STRADDLE_SHARE * cur.numel()):
        return None, n
    lead = x.dim() - int(type(module).__name__[-2])  # batch and channel dimensions: one plane per index
    plane_in, plane_out = int(np.prod(x.shape[lead:])), int(np.prod(cur.shape[lead:]))
    base = (where // plane_out) * plane_in
    g_won = base + won.reshape(-1)[where].to(torch.long)
    g_cur = base + cur.reshape(-1)[where]
    # in place without autograd seeing it (the gradient still flows through these elements), as for ReLU flips
    x = x.clone(memory_format=torch.contiguous_format)
    with torch.no_grad():
        flat = x.view(-1)
        top = flat[g_cur]
        flat[g_won] = torch.nextafter(top, torch.full_like(top, math.inf))
        _, again = _pool(module, x.detach())
    if not torch.equal(again, won.to(again.dtype)):  # windows overlap: one change moved another window
        return None, n
    return x, n


class _KinkRouter:
    """Routes a torch run's backward through its ReLU-like and max-pool layers as MindSpore routed them.

    ReLU and max-pool send each gradient element one way or the other by a comparison (x > 0, which input is
    largest). Where the compared values are closer than the two frameworks' forward outputs differ, MindSpore can
    decide one way and torch the other; each such flip moves a whole gradient value, and the next convolution's
    weight gradient sums it as an O(1) term that no rounding bound covers. Either decision is a correct float32
    evaluation of the same function at a point within rounding of the kink, so the reference takes MindSpore's:
    this router adds, at the input gradient of each hooked layer call, the difference between the two decisions'
    backward at the elements where they differ (ReLU-like: ``grad_out x (slope_ms - slope_torch)``, from the
    layers' outputs; max-pool: the window's gradient moved from torch's winner to MindSpore's, read off
    MindSpore's input, _pool_winners). The forward is not changed (the flipped inputs are within rounding of the
    kink, so the forward values move by rounding only); the backward becomes the one MindSpore's decisions give.

    ``decisions`` (key -> ("relu", flat indices, slope change) | ("pool", MindSpore's winners)) may be filled after
    the forward and before the backward (torch's first run: MindSpore runs in between). ``ms_sides`` (key ->
    MindSpore's packed sides, _straddles) makes the router decide at each ReLU-like call from this run's own output
    (the float64 reference). A layer call where more than STRADDLE_SHARE of the elements (at least 16) differ is not
    float noise at a kink: left as it is (the forward comparison speaks for it)."""

    def __init__(self, model, decisions=None, ms_sides=None):
        from .hooks import _Keys

        self.decisions = {} if decisions is None else decisions
        self.ms_sides = ms_sides or {}
        self.keys, self.stack, self.grad_out, self.inputs, self.handles = _Keys(), [], {}, {}, []
        self.active = True
        self.flipped = {"relu": 0, "pool": 0, "layers": 0}
        self.refused: set = set()  # layer calls left with this run's own decisions (too many differ)
        for path, module in model.named_modules():
            typ = type(module).__name__
            if typ in _SIGN_KINKS or typ in _POOL_KINKS:
                self.handles.append(module.register_forward_pre_hook(self._pre(path or ROOT, typ)))
                self.handles.append(module.register_forward_hook(self._post(typ)))

    def end_forward(self):
        self.active = False  # a later forward (a re-recording) is not counted

    def _pre(self, path, typ):
        def hook(module, args):
            if not self.active:
                return None
            key = self.keys.next(path)
            x = args[0] if args else None
            if not (hasattr(x, "requires_grad") and x.requires_grad and x.is_floating_point()):
                self.stack.append(None)
                return None
            self.stack.append(key)
            x = x.view_as(x)  # its gradient is the part that flowed through this layer only
            x.register_hook(self._fix(module, typ, key))
            if typ in _POOL_KINKS:
                self.inputs[key] = x.detach()  # held by autograd for the pool's backward anyway
            return (x, *args[1:])
        return hook

    def _post(self, typ):
        def hook(module, args, output):
            if not self.active:
                return None
            key = self.stack.pop()
            if key is None or not (hasattr(output, "requires_grad") and output.requires_grad):
                return None
            if key in self.ms_sides and typ in _SIGN_KINKS:
                found = _flips_against(module, typ, output, self.ms_sides[key])
                if found is not None:
                    self.decisions[key] = ("relu", *found)

            def capture(grad):
                self.grad_out[key] = grad
            output.register_hook(capture)
            return None
        return hook

    def _fix(self, module, typ, key):
        def hook(grad):
            import torch

            g_out = self.grad_out.pop(key, None)
            x = self.inputs.pop(key, None)
            decision = self.decisions.get(key)
            if g_out is None or decision is None:
                return None
            go = g_out.reshape(-1)
            if decision[0] == "relu":
                _, idx, delta = decision
                if not idx.numel() or go.numel() != grad.numel() or int(idx.max()) >= grad.numel():
                    return None
                g = grad.clone(memory_format=torch.contiguous_format)
                g.view(-1).index_add_(0, idx, go[idx] * delta.to(g.dtype))
                self.flipped["relu"] += int(idx.numel())
                self.flipped["layers"] += 1
                return g
            won = decision[1]
            if x is None:
                return None
            with torch.no_grad():
                _, cur = _pool(module, x)
            if tuple(cur.shape) != tuple(won.shape) or cur.numel() != go.numel():
                return None
            where = torch.nonzero((cur != won.to(cur.dtype)).reshape(-1)).reshape(-1)
            if not where.numel():
                return None
            if where.numel() > max(16, STRADDLE_SHARE * cur.numel()):
                self.refused.add(key)
                return None
            lead = x.dim() - int(type(module).__name__[-2])  # batch and channel dimensions: one plane per index
            plane_in, plane_out = int(np.prod(x.shape[lead:])), int(np.prod(cur.shape[lead:]))
            base = (where // plane_out) * plane_in
            g = grad.clone(memory_format=torch.contiguous_format)
            flat = g.view(-1)
            flat.index_add_(0, base + won.reshape(-1)[where].to(torch.long), go[where])
            flat.index_add_(0, base + cur.reshape(-1)[where], -go[where])
            self.flipped["pool"] += int(where.numel())
            self.flipped["layers"] += 1
            return g
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles.clear()
        self.grad_out.clear()
        self.inputs.clear()


def _flips_against(module, typ, out, sides):
    """The elements of a ReLU-like layer's output (this run) on another side of a kink than MindSpore's
    (``sides``: _straddles' packed sides) and the slope change that puts them on MindSpore's: (flat indices, slope
    change), or None when too many differ (see STRADDLE_SHARE) or the shapes do not fit."""
    import torch

    lo, hi = (getattr(module, b, None) if isinstance(b, str) else b for b in _SIGN_KINKS[typ])
    v = out.detach().reshape(-1)
    n = v.numel()
    ms_bits, where = {}, []
    for bound, above, packed in sides:
        if packed.size * 8 < n:
            return None
        ms_side = torch.from_numpy(np.unpackbits(packed, count=n).view(bool))
        mine = v > bound if above else v < bound
        ms_bits[above] = ms_side
        where.append(torch.nonzero(mine != ms_side).reshape(-1))
    if not where:
        return None
    idx = torch.unique(torch.cat(where), sorted=True)
    if idx.numel() > max(16, STRADDLE_SHARE * n):
        return None
    if not idx.numel():
        return idx, torch.zeros(0, dtype=v.dtype)
    # MindSpore's side of each bound as a value on that side, for _slope
    m_v = torch.zeros(idx.numel(), dtype=v.dtype)
    span_lo = float(lo) if lo is not None else -1.0
    span_hi = float(hi) if hi is not None else span_lo + 2.0
    inside = (span_lo + span_hi) / 2
    m_v.fill_(inside)
    if True in ms_bits:
        m_v = torch.where(ms_bits[True][idx], m_v, torch.full_like(m_v, span_lo - 1.0))
    if False in ms_bits:
        m_v = torch.where(ms_bits[False][idx], m_v, torch.full_like(m_v, span_hi + 1.0))
    shape = tuple(out.shape)
    delta = _slope(module, typ, lo, hi, m_v, idx, shape) - _slope(module, typ, lo, hi, v[idx], idx, shape)
    return idx, delta


def _routing_terms(report, torch_model, inputs, target, loss, rows, screened, straddles=None,
                   routed=None, pools=None) -> dict:
    """The routing term of the parameter gradients outside the float32 screen: name -> ||g_routed - g_torch||.

    Run only where some ReLU / max-pool layer's routing in MindSpore is not known (``rows`` holds those layers;
    torch's own backward was routed by _KinkRouter everywhere else, ``screened`` holds that gradient). The
    description below is of the run as it was when it carried every layer; the layers of known routing are still
    replayed in its forward, so that its gradient differs from ``screened``'s by the noise alone.

    ReLU and max-pool route each gradient element by a comparison (x > 0, which input is largest). Where the
    compared values are closer than the two frameworks' forward outputs differ, MindSpore can route it one way and
    torch the other; each such flip moves a whole gradient value, and the next convolution's weight gradient sums
    it as an O(1) term. torch's own float32 run flips few of them against float64, so K x torch_err misses them.
    Evidence for the term: torch float32 forward+backward once more, routed as MindSpore routed it wherever that is
    known: at a ReLU-like layer (``straddles``: the elements the two outputs put on different sides of the kink, at
    most STRADDLE_SHARE of the layer, set to MindSpore's side, then every element the replays upstream moved across
    put back on MindSpore's side, _enforce_sides), at a max-pool (``pools``: MindSpore's winners, read off its
    input, _pool_winners; _route_pool makes them win). A layer whose routing is not known (another kink type, too
    many flips, overlapping windows) gets Gaussian noise of the rms by which the frameworks' outputs differ there
    (measured in the forward comparison) added to its input instead (fixed seed). routing = ||g_routed - g_torch||.
    A slip in the backward leaves the forward at noise level, so this term stays at noise level beside it."""
    import torch

    from .hooks import _Keys

    rms = {k: r.get("rms_diff") for k, r in rows.items() if r.get("rms_diff")}
    straddles, pools = straddles or {}, pools or {}
    names = set(screened)
    if not names or not (rms or straddles or pools):
        return {}
    buffers = {n: b.detach().clone() for n, b in torch_model.named_buffers()}
    caller = {p: p.grad for p in torch_model.parameters()}
    for p in caller:
        p.grad = None
    gen = torch.Generator().manual_seed(0)
    keys, handles, flipped, pool_flipped, exact_layers, noised, moved = _Keys(), [], [0], [0], [0], [0], [0]

    def pre_hook(path):
        def hook(module, args):
            key = keys.next(path)
            sigma, flips, won = rms.get(key), straddles.get(key), pools.get(key)
            if type(module).__name__ not in _KINKS or not (sigma or flips is not None or won is not None) or not args:
                return None
            if not hasattr(args[0], "shape") or not args[0].is_floating_point():
                return None
            x = args[0]
            exact = False  # this layer routed exactly as MindSpore routed it: no noise needed
            if won is not None:
                routed_x, n = _route_pool(module, x, won)
                if routed_x is not None:
                    x, exact = routed_x, True
                    pool_flipped[0] += n
            if flips is not None and (not flips[0].numel() or int(flips[0].max()) < x.numel()):
                exact = True
                if flips[0].numel():
                    flipped[0] += int(flips[0].numel())
                    # in place without autograd seeing it: the gradient still flows through these elements
                    x = x.clone(memory_format=torch.contiguous_format) if x is args[0] or not x.is_contiguous() else x
                    with torch.no_grad():
                        x.view(-1)[flips[0]] = flips[1].to(x.dtype)
                x, n = _enforce_sides(x, flips[2], x is not args[0] and x.is_contiguous())
                moved[0] += n
            if exact:
                exact_layers[0] += 1
            elif sigma:
                noised[0] += 1
                x = x + sigma * torch.randn(x.shape, generator=gen, dtype=x.dtype)
            else:
                return None
            return (x, *args[1:])
        return hook

    for path, module in torch_model.named_modules():
        handles.append(module.register_forward_pre_hook(pre_hook(path or ROOT)))
    # gradients for the screened parameters only: autograd records nothing before the first of them and its
    # backward stops there (in a U-Net the full-resolution encoder levels, the costliest, are often skipped)
    wanted = {p: p.requires_grad for p in caller}
    for n, p in torch_model.named_parameters():
        p.requires_grad_(n in names and wanted[p])
    try:
        out = torch_model(*[torch.from_numpy(np.array(x)) for x in inputs])
        lt = _torch_loss(loss, out, target)
        del out
        lt.backward()
        perturbed = {n: p.grad for n, p in torch_model.named_parameters() if n in names}
    except Exception as exc:  # noqa: BLE001 - no term: the float64 verdict stands
        report.determinism.append(f"routing term not computed ({type(exc).__name__}: {_line(exc)})")
        return {}
    finally:
        for p, flag in wanted.items():
            p.requires_grad_(flag)
        for h in handles:
            h.remove()
        with torch.no_grad():
            for n, b in torch_model.named_buffers():
                b.copy_(buffers[n])
        for p, g in caller.items():
            p.grad = g
    if not (exact_layers[0] or noised[0]):
        return {}
    terms = {}
    for name, (tg, _mg, axis) in screened.items():
        g = perturbed.get(name)
        if g is None:
            continue
        g = g.detach()
        if axis is not None:
            g = g.unsqueeze(axis)
        if routed is not None:
            routed[name] = g
        terms[name] = float((g.to(torch.float64).reshape(-1)
                             - torch.from_numpy(np.ascontiguousarray(tg)).to(torch.float64).reshape(-1)).norm())
    how = []
    if exact_layers[0]:
        how.append(f"{exact_layers[0]} ReLU / max-pool layer(s) routed exactly as MindSpore routed them ("
                   f"{flipped[0]} element(s) the frameworks put on different sides of a ReLU kink, "
                   f"{pool_flipped[0]} max-pool window(s) whose winner differed"
                   + (f", {moved[0]} element(s) moved across a ReLU kink by those replays put back on MindSpore's "
                      "side" if moved[0] else "") + ")")
    if noised[0]:
        how.append(f"noise of the observed forward difference added at {noised[0]} such layer input(s) whose "
                   "routing in MindSpore is not known")
    report.determinism.append(
        f"{len(terms)} parameter gradient(s) outside the float32 screen were given a routing term (ReLU / max-pool "
        f"inputs closer than the frameworks' forward difference route gradients differently): how far torch's "
        f"gradient moved in a float32 run with " + "; and ".join(how))
    return terms


def _judge_routing(report, stash, screened, routing, routed=None, grtol=None, atol=None) -> None:
    """Tier 2 for parameter gradients (float32, no float64 run). Passes when MindSpore's gradient passes the float32
    screen against the routed torch gradient (``routed``: the run that routed every ReLU / max-pool layer whose
    routing in MindSpore is known exactly as MindSpore did), i.e. the whole difference is that routing; or else when
    ||ms - torch|| <= routing, i.e. MindSpore is as close to torch as torch is to itself under the routing
    difference (the form that carries layers whose routing is not known, where the run added noise of the
    observed forward difference). The routed screen comes first: where the replayed flips are all the difference,
    ||ms - torch|| and the term are the same number up to rounding, and ``<=`` is a coin toss (it reads 0.9x where
    the routed screen reads 0.02x)."""
    import torch

    by_name = {r["name"]: r for r in report.grads}
    for name, (tg, mg, axis) in screened.items():
        term, row = routing.get(name), by_name.get(name)
        if not term or row is None:
            continue
        screen = {"floor": row.get("floor"), "error": row.get("error"), "ratio": row.get("ratio")}
        g = (routed or {}).get(name)
        if g is not None and grtol is not None:
            again = metrics.compare(g, mg, grtol, atol)
            if again["passed"]:
                row.update(tier="routing", floor=again["floor"], error=again["error"], ratio=again["ratio"],
                           passed=True, routing=term, screen=screen,
                           note="within the float32 screen of torch's gradient routed as MindSpore routed its "
                                "ReLU / max-pool kinks")
                stash.items.pop(("param", name, axis), None)
                continue
        err = float((torch.from_numpy(np.ascontiguousarray(mg)).to(torch.float64).reshape(-1)
                     - torch.from_numpy(np.ascontiguousarray(tg)).to(torch.float64).reshape(-1)).norm())
        if err <= term:
            row.update(tier="routing", floor=term, error=err, ratio=err / term, passed=True, routing=term,
                       screen=screen)
            stash.items.pop(("param", name, axis), None)
