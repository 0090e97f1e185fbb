"""The state of one parity run, shared by its phases (recording, routing, float64 reference, verdict), and the small
helpers every phase uses (losses on both sides, array conversions, one-line error messages)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .hooks import ROOT, flatten


# layer gradients: share of elements that may sit on the other side of a ReLU / max-pool kink
# (measured: a faithful U-Net at 2x32x256x256 had a few such elements in the last ReLU's input grad)
GRAD_OUTLIERS = 1e-5


# tensors failing the float32 screen are kept (torch's and MindSpore's values) until the float64 reference has run;
# beyond this much, later ones keep the screen's verdict (a real slip fails the first layers it reaches anyway)
STASH_BYTES = 2 << 30


class ParityError(ValueError):
    """Bad input to a parity run (the torch side fails, weights do not fit): one line for the user."""


def _close_ms_graph() -> None:
    """A MindSpore error inside ``ms.value_and_grad`` leaves PyNative's gradient graph open: the process then records
    every op, and the next model's init (timm's ``trunc_normal_``, ``weight.copy_(rand...)``) fails with "A leaf
    tensor that requires grad is being used in an inplace operator" (measured: fastvit built after a failed
    efficientvit run). Closed here, as MindSpore cleans it, only when one is left open."""
    from mindspore.common.api import _pynative_executor

    if _pynative_executor.requires_grad():
        _pynative_executor.clear_res()


class _Stash:
    """Tensors that failed the float32 screen, kept (both sides) for the float64 reference, within a budget.

    A gradient often appears under several keys (a container's input gradient is its first child's, one layer's
    output gradient the next one's input gradient): the same torch storage with an equal MindSpore array is kept
    once."""

    def __init__(self, budget_bytes: int):
        self.items: dict = {}
        self.budget = budget_bytes
        self.used = 0
        self.refused = 0
        self._by_storage: dict = {}

    def add(self, ident, row, t_outs, m_arrays) -> None:
        t_keep, m_keep, size = [], [], 0
        for t, m in zip(t_outs, m_arrays):
            m = np.array(m, copy=True)  # the MindSpore array as compared: its tensor may be changed in place later
            key = (t.data_ptr(), int(t.numel())) if hasattr(t, "data_ptr") else None
            seen = self._by_storage.get(key) if key is not None else None
            if seen is not None and seen.shape == m.shape and np.array_equal(seen, m):
                m_keep.append(seen)
            else:
                m_keep.append(m)
                size += int(np.prod(m.shape)) * 8
            t_keep.append(_np32(t))
        if self.used + size > self.budget:
            self.refused += 1
            return
        self.used += size
        for t, m in zip(t_outs, m_keep):
            if hasattr(t, "data_ptr"):
                self._by_storage[(t.data_ptr(), int(t.numel()))] = m
        self.items[ident] = (row, t_keep, m_keep)


def _snapshot(torch_model):
    """A copy of the state_dict that keeps its ``_metadata`` (module versions): a module whose
    ``_load_from_state_dict`` checks its version (torchvision's MNASNet) refuses a plain dict."""
    import collections

    sd = torch_model.state_dict()
    snap = collections.OrderedDict((k, v.detach().clone()) for k, v in sd.items())
    meta = getattr(sd, "_metadata", None)
    if meta is not None:
        snap._metadata = meta
    return snap


def _np32(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _same_storage(a, b) -> bool:
    """Two torch views of one tensor (hooks detach each output anew), unchanged since."""
    return (a is b or (hasattr(a, "data_ptr") and hasattr(b, "data_ptr") and a.data_ptr() == b.data_ptr()
                       and a.shape == b.shape and a.dtype == b.dtype and a.stride() == b.stride()
                       and a._version == b._version))


def _cat(arrays):
    import torch

    parts = [(a.detach() if hasattr(a, "detach") else torch.from_numpy(np.ascontiguousarray(a))).reshape(-1)
             .to(torch.float64) for a in arrays]
    return parts[0] if len(parts) == 1 else torch.cat(parts)


def _torch_loss(loss, out, target):
    import torch

    if loss is None:
        return sum(o.sum() for o in flatten(out) if o.is_floating_point())
    return loss(out, torch.from_numpy(np.array(target))) if target is not None else loss(out)


def _ms_loss(loss, out, target):
    import mindspore as ms

    if loss is None:
        outs = [o for o in flatten(out) if str(o.dtype).lower().startswith(("float", "bfloat"))]
        total = outs[0].sum()
        for o in outs[1:]:
            total = total + o.sum()
        return total
    return loss(out, ms.Tensor(np.array(target))) if target is not None else loss(out)


def _as_list(inputs) -> list:
    if isinstance(inputs, (list, tuple)):
        return [_np(x) for x in inputs]
    return [_np(inputs)]


def _np(x):
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    if hasattr(x, "asnumpy"):
        return x.asnumpy()
    return np.asarray(x)


def _path(key: str) -> str:
    return key.split("#", 1)[0]


def _cell_at(net, path):
    for n, c in net.cells_and_names():
        if (n or ROOT) == path:
            return c
    return net


def _line(exc) -> str:
    lines = [ln.strip() for ln in str(exc).strip().splitlines() if ln.strip().strip("-=*# ")]
    return lines[0][:300] if lines else ""


@dataclass
class Run:
    """One parity run: what ``compare`` was given, and the state its phases share (recording.py fills it, routing.py
    and reference.py judge from it, verdict.py builds the tables from it)."""

    report: Any
    torch_model: Any
    ms_model: Any
    inputs: list
    target: Any
    loss: Any
    ms_loss: Any
    backward: bool
    reference: bool
    name_map: Any
    initial: Any
    no_params: bool = False  # no trainable parameter: the gradient flows to the inputs (then layer gradients decide)
    layer_hooks: bool = False  # layer gradients recorded in the first pass (no_params)
    defer: bool = False  # torch's backward waits for MindSpore's run, to be routed as MindSpore routed its kinks
    stash: Any = None  # _Stash: tensors failing the float32 screen, kept for the float64 reference
    screened: dict = field(default_factory=dict)  # parameter gradients outside the screen: (torch, MindSpore, axis)
    xs_t: list = field(default_factory=list)  # torch's inputs
    rec: Any = None  # hooks.TorchRecorder of torch's first run
    router: Any = None  # routing._KinkRouter on torch's first run (defer)
    fkinks: Any = None  # kinks.FunctionalKinks (defer)
    loss_t: Any = None  # torch's loss, its backward still to come (defer)
    t_records: dict = field(default_factory=dict)  # torch's layer outputs, freed as they are compared
    t_meta: dict = field(default_factory=dict)  # key -> (path, type) of torch's layer calls
    order: list = field(default_factory=list)  # torch's layer calls in execution order
    rows: dict = field(default_factory=dict)  # key -> forward comparison
    straddles: dict = field(default_factory=dict)  # ReLU-like layer -> elements on different sides of a kink
    pool_routes: dict = field(default_factory=dict)  # max-pool layer -> MindSpore's winner of each window
    # torch's outputs of the calls the root makes (single tensors), kept for the float64 reference of parameter
    # gradients: it starts at the first screened layer, and takes the calls before it from here (_SkipAhead)
    top_outputs: dict = field(default_factory=dict)
    ms_types: dict = field(default_factory=dict)  # key -> (path, type) of MindSpore's cell calls
    grad_rows: list = field(default_factory=list)  # layer gradient comparisons
    seen_grads: set = field(default_factory=set)
    routing: dict = field(default_factory=dict)  # parameter name -> routing term

    @property
    def rtol(self):
        return self.report.tolerances["rtol"]

    @property
    def atol(self):
        return self.report.tolerances["atol"]

    @property
    def grtol(self):
        return self.report.tolerances["grad_rtol"]
