"""Kinks decided by functional calls and tensor methods (``F.relu``, ``torch.relu``, ``x.relu()``,
``x.clamp(min=0)``, ``torch.maximum(a, b)``, ``torch.max(a, b)``, ``abs``, ``F.hardtanh``, ``F.relu6``,
``F.leaky_relu``), routed in torch's backward as MindSpore routed them.

The module router (routing._KinkRouter) handles ReLU-like and max-pool *layers*: both sides have a layer to hook.
A functional call has no layer; what both sides do have is the layer it runs in (the innermost module / cell,
keyed as the recorders key them) and the order of the calls inside it. So each side records its kink *decisions*
("units") per enclosing layer key, in call order:

==========  =========================================================  =================================
kind        decision (one bit per output element)                      torch / MindSpore calls
==========  =========================================================  =================================
``gt``      x > bound                                                  relu, clamp(min=), hardtanh's and
                                                                       relu6's lower bound, maximum(x, c)
``lt``      x < bound                                                  clamp(max=), upper bounds,
                                                                       minimum(x, c)
``max2``    a > b                                                      maximum(a, b), max(a, b),
                                                                       leaky_relu (``maximum(a*x, x)``)
``min2``    a < b                                                      minimum(a, b), min(a, b)
``sign``    x > 0                                                      abs
==========  =========================================================  =================================

torch: a ``TorchFunctionMode`` during the forward sees every such call (``F.relu`` as well as ``x.relu()``);
MindSpore: the primitives' ``__call__`` (ReLU, ReLU6, Maximum, Minimum, Abs, ClampScalar, ClampTensor) and the
C tensor methods (``clamp``, ``clip``, ``abs``, ``maximum``, ``minimum``) are wrapped while the port runs; a
composite (MindSpore's ``hardtanh`` is a maximum then a minimum, ``leaky_relu`` a maximum) gives the same units
as torch's single call. Calls inside a ReLU-like / max-pool layer are the module router's and are not recorded.
The two sequences of a layer are aligned on (kind, shape) (difflib), so an extra call on one side (a MindSpore
op built from a maximum) does not shift the others. MindSpore keeps its bits (packed); torch keeps the inputs.

At torch's backward, a unit whose bits differ from MindSpore's at a few elements (at most STRADDLE_SHARE of them,
at least 16, each within float noise of the kink: ``|margin| <= 1e-3 * max|x| + 1e-6``) gets the gradient
MindSpore's decision gives there: ``grad_in += grad_out * (slope_ms - slope_torch)`` at those elements (both
inputs of a two-tensor max / min). More, or farther from the kink, is not float noise: torch keeps its own
decisions (the forward comparison speaks for that layer). In-place calls (``relu_``, ``inplace=True``) and
broadcasting two-tensor max / min are recorded (the alignment needs them) but not routed.
"""
from __future__ import annotations

import difflib
from collections import defaultdict

import numpy as np

STRADDLE_SHARE = 1e-3
MARGIN_REL = 1e-3
MARGIN_ABS = 1e-6
# layers whose own kinks the module router routes (their inner functional calls are not recorded)
LAYER_KINKS = ("ReLU", "ReLU6", "LeakyReLU", "PReLU", "RReLU", "Hardtanh", "Threshold", "MaxPool1d", "MaxPool2d",
               "MaxPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "AdaptiveMaxPool3d")


def _num(v):
    """A Python number (or a one-element tensor / array) as a float; None when it is not one."""
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    try:
        if int(np.prod(tuple(v.shape))) == 1:
            return float(v.reshape(-1)[0]) if not hasattr(v, "asnumpy") else float(v.asnumpy().reshape(-1)[0])
    except Exception:  # noqa: BLE001
        return None
    return None


class FunctionalKinks:
    """Both sides' units and the torch backward's corrections (see the module docstring)."""

    def __init__(self):
        self.ms_units: dict = defaultdict(list)  # key -> [(kind, shape, packed a > b, packed a < b, tie weight)]
        self.t_units: dict = defaultdict(list)  # key -> [_TorchUnit]
        self.pairs: dict = {}  # (key, torch index) -> MindSpore unit
        self.flipped = {"elements": 0, "calls": 0}
        self.refused = 0
        self.recording_ms = False

    # ------------------------------------------------------------------ torch
    def torch_mode(self, current):
        """A TorchFunctionMode recording torch's units; ``current()`` -> (key, type) of the innermost layer."""
        return _torch_mode(self, current)

    def begin_torch_run(self):
        self.t_units = defaultdict(list)
        self.pairs = {}

    def align(self):
        """Pair torch's units with MindSpore's, layer by layer, on (kind, shape)."""
        self.pairs = {}
        for key, t_list in self.t_units.items():
            m_list = self.ms_units.get(key)
            if not m_list:
                continue
            a = [(u.kind, u.shape) for u in t_list]
            b = [(u[0], u[1]) for u in m_list]
            for blk in difflib.SequenceMatcher(None, a, b, autojunk=False).get_matching_blocks():
                for i in range(blk.size):
                    self.pairs[(key, blk.a + i)] = m_list[blk.b + i]

    def clear(self):
        self.t_units = defaultdict(list)
        self.ms_units = defaultdict(list)
        self.pairs = {}

    # ------------------------------------------------------------------ MindSpore
    def ms_tap(self, current, methods=None):
        """Wrap MindSpore's kink primitives and tensor methods; ``current()`` -> (key, type) of the innermost cell.
        ``methods``: the tensor methods to wrap (None: all; a wrapped C method costs every call of it, so the
        runner wraps only those the port's source names). Returns a callable that removes the wrappers."""
        return _ms_tap(self, current, methods)


class _TorchUnit:
    __slots__ = ("kind", "shape", "op", "slot")

    def __init__(self, kind, shape, op, slot):
        self.kind, self.shape, self.op, self.slot = kind, shape, op, slot


class _TorchOp:
    """One recorded torch call: its units ``(kind, bound, tie weight)``, inputs, and the gradient at its output
    (captured in backward). ``form``: "elem" (x against bounds: slope = the product of the units' weights),
    "leaky" (one unit, alpha * x against x), "abs", "pair" (two tensors), "other" (recorded, not routed)."""

    __slots__ = ("kinks", "key", "first", "units", "xs", "form", "extra", "g_out", "pending")

    def __init__(self, kinks, key, form, xs, extra):
        self.kinks, self.key, self.form, self.xs, self.extra = kinks, key, form, xs, extra
        self.units, self.g_out, self.pending, self.first = [], None, 0, 0

    def margin(self, i):
        """a - b of unit ``i`` (flat): x - bound, a - b, or (alpha - 1) x for leaky_relu (alpha * x vs x)."""
        kind, bound, _ = self.units[i]
        if self.form == "pair":
            a, b = (x.detach().reshape(-1) for x in self.xs)
            return a - b
        x = self.xs[0].detach().reshape(-1)
        if self.form == "leaky":
            return (self.extra - 1.0) * x
        if kind in ("gt", "lt"):
            return x - bound
        return x

    def flips(self):
        """{unit: (flat indices, MindSpore's states there)} for the units MindSpore decided otherwise at a few
        elements near the kink; None when some unit differs too much (left as torch decided)."""
        import torch

        out = {}
        for i in range(len(self.units)):
            ms = self.kinks.pairs.get((self.key, self.first + i))
            if ms is None:
                continue
            margin = self.margin(i)
            n = margin.numel()
            m_state = _unpack_state(ms, n)
            if m_state is None:
                continue
            where = torch.nonzero(torch.sign(margin).to(torch.int8) != m_state).reshape(-1)
            if not where.numel():
                continue
            scale = float(margin.abs().max()) if n else 0.0
            near = margin[where].abs() <= MARGIN_REL * scale + MARGIN_ABS
            if where.numel() > max(16, STRADDLE_SHARE * n) or not bool(near.all()):
                self.kinks.refused += 1
                return None
            out[i] = (where, m_state[where], ms[4])
        return out

    def correction(self, slot, grad):
        """grad (at input ``slot``) with MindSpore's decisions where they differ from torch's."""
        import torch

        g_out = self.g_out
        self.pending -= 1
        if self.pending <= 0:
            self.g_out = None
        if g_out is None or g_out.numel() != grad.numel():
            return None
        found = self.flips()
        if not found:
            return None
        go = g_out.reshape(-1)
        idx = torch.unique(torch.cat([w for w, _, _ in found.values()]), sorted=True)
        dtype = grad.dtype
        t_w, m_w = [], []
        for i, (kind, _bound, tie) in enumerate(self.units):
            t_state = torch.sign(self.margin(i)[idx]).to(torch.int8)
            t_w.append(_weight(kind, t_state, tie, dtype))
            m_state = t_state.clone()
            m_tie = tie
            if i in found:
                w, states, m_tie = found[i]
                m_state[torch.searchsorted(idx, w)] = states
            m_w.append(_weight(kind, m_state, m_tie, dtype))
            if self.form == "abs":
                t_w[-1], m_w[-1] = t_state.to(dtype), m_state.to(dtype)  # the slope is the sign
        t_slope, m_slope = self._slope(t_w), self._slope(m_w)
        delta = m_slope - t_slope
        if self.form == "pair" and slot == 1:
            delta = -delta  # b takes what a does not
        keep = delta != 0
        if not bool(keep.any()):
            return None
        idx, delta = idx[keep], delta[keep]
        g = grad.clone(memory_format=torch.contiguous_format)
        g.view(-1).index_add_(0, idx, go[idx] * delta)
        if slot == 0:
            self.kinks.flipped["elements"] += int(idx.numel())
            self.kinks.flipped["calls"] += 1
        return g

    def _slope(self, weights):
        if self.form == "leaky":  # the alpha branch's share
            return self.extra * weights[0] + (1 - weights[0])
        d = weights[0]
        for w in weights[1:]:
            d = d * w
        return d


def _weight(kind, state, tie, dtype):
    """The share of the gradient a unit passes (to x, or to a): 1 on the inside / winning side, 0 beyond, ``tie``
    at an exact tie (each framework's own convention: torch's clamp passes it, its hardtanh does not)."""
    import torch

    inside = 1 if kind in ("gt", "max2", "sign") else -1
    w = (state == inside).to(dtype)
    return torch.where(state == 0, torch.full_like(w, tie), w)


def _unpack_state(ms, n):
    """MindSpore's states of one unit (+1: a > b, -1: a < b, 0: tie) as an int8 tensor, or None."""
    import torch

    _kind, _shape, above, below, _tie = ms
    if above.size * 8 < n or below.size * 8 < n:
        return None
    up = np.unpackbits(above, count=n).astype(np.int8)
    down = np.unpackbits(below, count=n).astype(np.int8)
    return torch.from_numpy(up - down)


def _torch_table():
    import torch
    import torch.nn.functional as F

    T = torch.Tensor
    table = {}
    for f in (F.relu, torch.relu, T.relu):
        table[f] = "relu"
    for f in (torch.relu_, T.relu_):
        table[f] = "relu_"
    table[F.relu6] = "relu6"
    table[F.hardtanh] = "hardtanh"
    table[F.hardtanh_] = "hardtanh_"
    table[F.leaky_relu] = "leaky"
    for f in (torch.clamp, torch.clip, T.clamp, T.clip):
        table[f] = "clamp"
    for f in (torch.clamp_min, T.clamp_min):
        table[f] = "clamp_min"
    for f in (torch.clamp_max, T.clamp_max):
        table[f] = "clamp_max"
    for f in (T.clamp_, T.clip_, torch.clamp_):
        table[f] = "clamp_"
    for f in (torch.maximum, T.maximum, torch.max, T.max):
        table[f] = "max"
    for f in (torch.minimum, T.minimum, torch.min, T.min):
        table[f] = "min"
    for f in (torch.abs, T.abs, torch.absolute, T.absolute, T.__abs__):
        table[f] = "abs"
    for f in (T.abs_, torch.abs_):
        table[f] = "abs_"
    return table


_TABLE: dict = {}


def _arg(args, kwargs, i, name, default=None):
    if len(args) > i:
        return args[i]
    return kwargs.get(name, default)


def _torch_mode(kinks, current):
    import torch
    from torch.overrides import TorchFunctionMode

    if not _TABLE:
        _TABLE.update(_torch_table())
    table = _TABLE

    class Mode(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            name = table.get(func)
            if name is None:
                return func(*args, **kwargs)
            key, typ = current()
            if key is None or typ in LAYER_KINKS:
                return func(*args, **kwargs)
            return _torch_call(kinks, key, name, func, args, kwargs)

    del torch
    return Mode()


def _torch_call(kinks, key, name, func, args, kwargs):
    """Record the units of one torch kink call and route its backward."""
    import torch

    x = args[0] if args else kwargs.get("input")
    if not isinstance(x, torch.Tensor) or not x.is_floating_point():
        return func(*args, **kwargs)
    form, units, xs, extra, inplace = "elem", [], [x], None, name.endswith("_")
    base = name.rstrip("_")
    if base == "relu":
        inplace = inplace or bool(kwargs.get("inplace", False)) or (len(args) > 1 and args[1] is True)
        units = [("gt", 0.0, 0.0)]
    elif base == "relu6":
        inplace = inplace or bool(_arg(args, kwargs, 1, "inplace", False))
        units = [("gt", 0.0, 0.0), ("lt", 6.0, 0.0)]
    elif base == "hardtanh":
        inplace = inplace or bool(_arg(args, kwargs, 3, "inplace", False))
        units = [("gt", float(_arg(args, kwargs, 1, "min_val", -1.0)), 0.0),
                 ("lt", float(_arg(args, kwargs, 2, "max_val", 1.0)), 0.0)]
    elif base == "leaky":
        inplace = inplace or bool(_arg(args, kwargs, 2, "inplace", False))
        alpha = float(_arg(args, kwargs, 1, "negative_slope", 0.01))
        form, extra = "leaky", alpha
        units = [("max2" if alpha <= 1 else "min2", None, 1.0)]  # torch: slope alpha at 0
    elif base in ("clamp", "clamp_min", "clamp_max"):
        lo = _arg(args, kwargs, 1, "min") if base != "clamp_max" else None
        hi = (_arg(args, kwargs, 2, "max") if base == "clamp" else
              _arg(args, kwargs, 1, "max") if base == "clamp_max" else None)
        lo_v, hi_v = _num(lo), _num(hi)
        if (lo is not None and lo_v is None) or (hi is not None and hi_v is None):
            form = "other"  # tensor bounds: recorded for the alignment only
        units = ([("gt", lo_v, 1.0)] if lo is not None else []) + ([("lt", hi_v, 1.0)] if hi is not None else [])
    elif base in ("max", "min"):
        other = _arg(args, kwargs, 1, "other")
        if not isinstance(other, torch.Tensor) or not other.is_floating_point():
            return func(*args, **kwargs)  # a reduction (max(x), max(x, dim)): not an element-wise kink
        two = "max2" if base == "max" else "min2"
        one = "gt" if base == "max" else "lt"
        if other.numel() == 1 and x.numel() > 1:
            units, form = [(one, _num(other), 0.5)], "elem"
        elif x.numel() == 1 and other.numel() > 1:
            units, form, xs = [(one, _num(x), 0.5)], "elem", [other]
        elif tuple(x.shape) == tuple(other.shape):
            units, form, xs = [(two, None, 0.5)], "pair", [x, other]
        else:
            units, form = [(two, None, 0.5)], "other"
    elif base == "abs":
        units, form = [("sign", None, 0.0)], "abs"
    if not units:
        return func(*args, **kwargs)
    shape = tuple(torch.broadcast_shapes(*[tuple(t.shape) for t in xs])) if form == "other" else tuple(xs[0].shape)
    op = _TorchOp(kinks, key, form, xs, extra)
    op.units = units
    op.first = len(kinks.t_units[key])
    for i, (kind, _b, _tie) in enumerate(units):
        kinks.t_units[key].append(_TorchUnit(kind, shape, op, i))
    routed = (not inplace and form != "other" and torch.is_grad_enabled()
              and any(t.requires_grad for t in xs))
    if not routed:
        op.xs = None  # never corrected: nothing to hold
        return func(*args, **kwargs)
    views = []
    for slot, t in enumerate(xs):
        if t.requires_grad:
            v = t.view_as(t)
            v.register_hook(_input_hook(op, slot))
            op.pending += 1
            views.append(v)
        else:
            views.append(t)
    op.xs = [t.detach() for t in xs]
    new_args = list(args)
    if form == "elem" and xs[0] is not x:  # max(c, x): x is the second argument
        new_args[1] = views[0]
    elif form == "pair":
        new_args[0] = views[0]
        if len(new_args) > 1:
            new_args[1] = views[1]
        else:
            kwargs = {**kwargs, "other": views[1]}
    else:
        if new_args:
            new_args[0] = views[0]
        else:
            kwargs = {**kwargs, "input": views[0]}
    out = func(*new_args, **kwargs)
    if isinstance(out, torch.Tensor) and out.requires_grad:
        def capture(grad):
            op.g_out = grad
        out.register_hook(capture)
    return out


def _input_hook(op, slot):
    def hook(grad):
        return op.correction(slot, grad)
    return hook


# ---------------------------------------------------------------------- MindSpore
def _ms_bits(kind, a, b):
    """Packed (a > b, a < b) of one MindSpore unit, from its input arrays (b: a bound, the second tensor, or None
    for abs: 0)."""
    b = 0.0 if b is None else b
    return (np.packbits(np.ascontiguousarray(a > b).reshape(-1)),
            np.packbits(np.ascontiguousarray(a < b).reshape(-1)))


def _arr(v):
    if hasattr(v, "asnumpy"):
        return v.asnumpy()
    return v


def _is_float_tensor(v):
    return hasattr(v, "asnumpy") and str(v.dtype).lower().startswith(("float", "bfloat"))


def _ms_record(kinks, current, units, shape):
    key, typ = current()
    if key is None or typ in LAYER_KINKS:
        return
    for kind, a, b, tie in units:
        try:
            a_arr, b_arr = _arr(a), _arr(b)
            above, below = _ms_bits(kind, np.broadcast_to(a_arr, shape) if hasattr(a_arr, "shape") else a_arr,
                                    b_arr)
        except Exception:  # noqa: BLE001 - a unit we cannot read: recorded without bits (never routed)
            above = below = np.zeros(0, np.uint8)
        kinks.ms_units[key].append((kind, shape, above, below, tie))


def _two(kind_one, kind_two, a, b):
    """The unit of maximum / minimum(a, b): with a scalar (or one-element) side a bound, else a two-tensor unit."""
    a_t, b_t = _is_float_tensor(a), _is_float_tensor(b)
    a_n = int(np.prod(tuple(a.shape))) if hasattr(a, "shape") else 1
    b_n = int(np.prod(tuple(b.shape))) if hasattr(b, "shape") else 1
    if a_t and (not b_t or (b_n == 1 and a_n > 1)):
        return [(kind_one, a, _num(b), 0.5)], tuple(a.shape)
    if b_t and (not a_t or (a_n == 1 and b_n > 1)):
        return [(kind_one, b, _num(a), 0.5)], tuple(b.shape)
    if a_t and b_t:
        shape = tuple(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
        return [(kind_two, a, b, 0.5)], shape
    return [], None


TENSOR_METHODS = ("clamp", "clip", "abs", "__abs__", "maximum", "minimum")


def methods_named(paths) -> set:
    """The kink tensor methods the sources at ``paths`` may call (``.clamp(``, ``abs(`` ...)."""
    import re

    found = set()
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except OSError:
            return set(TENSOR_METHODS)
        for name in ("clamp", "clip", "abs", "maximum", "minimum"):
            if re.search(rf"\.{name}\s*\(", text):
                found.add(name)
        if re.search(r"(?<![\w.])abs\s*\(", text):
            found.add("__abs__")
    return found


def _ms_tap(kinks, current, methods=None):
    import mindspore as ms
    from mindspore.ops.auto_generate import gen_ops_prim as P

    state = {"depth": 0}
    undo = []

    def units_of(name, args, kwargs):
        x = args[0] if args else kwargs.get("input", kwargs.get("x"))
        if name == "ReLU":
            return [("gt", x, 0.0, 0.0)], tuple(x.shape)
        if name == "ReLU6":
            return [("gt", x, 0.0, 0.0), ("lt", x, 6.0, 0.0)], tuple(x.shape)
        if name == "Abs":
            return [("sign", x, None, 0.0)], tuple(x.shape)
        if name in ("Maximum", "Minimum"):
            other = args[1] if len(args) > 1 else kwargs.get("other", kwargs.get("y"))
            return _two("gt" if name == "Maximum" else "lt", "max2" if name == "Maximum" else "min2", x, other)
        if name in ("ClampScalar", "ClampTensor", "clamp"):
            lo = args[1] if len(args) > 1 else kwargs.get("min")
            hi = args[2] if len(args) > 2 else kwargs.get("max")
            units = []
            if lo is not None:
                units.append(("gt", x, _num(lo) if not _is_float_tensor(lo) or _num(lo) is not None else lo, 1.0))
            if hi is not None:
                units.append(("lt", x, _num(hi) if not _is_float_tensor(hi) or _num(hi) is not None else hi, 1.0))
            return units, tuple(x.shape)
        return [], None

    def wrap(owner, attr, name, method=False):
        own = attr in owner.__dict__  # else inherited (MindSpore's C tensor methods): deleted again afterwards
        orig = getattr(owner, attr)

        def call(*args, **kwargs):
            inner = args[1:] if not method else args
            if state["depth"] or not kinks.recording_ms:
                return orig(*args, **kwargs)
            x = inner[0] if inner else kwargs.get("input")
            if not _is_float_tensor(x) and not (name in ("Maximum", "Minimum") and len(inner) > 1
                                                and _is_float_tensor(inner[1])):
                return orig(*args, **kwargs)
            state["depth"] += 1
            try:
                out = orig(*args, **kwargs)
            finally:
                state["depth"] -= 1
            try:
                units, shape = units_of(name, inner, kwargs)
                if units:
                    _ms_record(kinks, current, units, shape)
            except Exception:  # noqa: BLE001 - never let recording break the port's run
                pass
            return out

        setattr(owner, attr, call)
        undo.append((owner, attr, orig, own))

    for cls in ("ReLU", "ReLU6", "Abs", "Maximum", "Minimum", "ClampScalar", "ClampTensor"):
        c = getattr(P, cls, None)
        if c is not None and "__call__" in c.__dict__:
            wrap(c, "__call__", cls)
    for attr, name in (("clamp", "clamp"), ("clip", "clamp"), ("abs", "Abs"), ("__abs__", "Abs"),
                       ("maximum", "Maximum"), ("minimum", "Minimum")):
        if hasattr(ms.Tensor, attr) and (methods is None or attr in methods):
            wrap(ms.Tensor, attr, name, method=True)

    def remove():
        for owner, attr, orig, own in reversed(undo):
            if own:
                setattr(owner, attr, orig)
            else:
                delattr(owner, attr)
        undo.clear()

    return remove
