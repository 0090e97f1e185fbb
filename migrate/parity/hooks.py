"""Record what every layer does, on both sides, keyed by module path.

A layer called several times gets keys ``path``, ``path#2``, ... in call order; the root module is
``(root)``. torch is run first and its tensors are kept (``TorchRecorder``); the MindSpore run then
compares each layer as soon as it has run (``MsRecorder`` calls back with numpy arrays), so only
one side's activations are held in memory at any time.

torch: forward pre-hooks and forward hooks; gradients with tensor hooks (``register_hook``) on each
layer's outputs and on a fresh ``view_as`` of each input, so that a layer's input gradient is the
part that flowed through that layer only.
MindSpore: each cell's ``construct`` is wrapped (forward hooks do not fire for a cell that defines
``bprop``), the outputs are synchronised with ``asnumpy()`` right there so that a failing op is
blamed on the cell that ran it, and ``register_backward_hook`` gives the gradients at each cell's
outputs and inputs.
"""
from __future__ import annotations

from collections import defaultdict

import numpy as np

ROOT = "(root)"


def flatten(value) -> list:
    """Tensors of a (nested) tuple / list / dict output, in order."""
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in flatten(v)]
    if isinstance(value, dict):
        return [t for v in value.values() for t in flatten(v)]
    return [value] if hasattr(value, "shape") and hasattr(value, "dtype") else []


class _Keys:
    def __init__(self):
        self.calls = defaultdict(int)

    def next(self, path: str) -> str:
        self.calls[path] += 1
        n = self.calls[path]
        return path if n == 1 else f"{path}#{n}"


class TorchRecorder:
    """Hooks every submodule of a torch model; ``records`` maps key -> (path, type, outputs).

    ``want`` (the float64 reference run) limits what is kept: ``{"fwd": keys, "grad": {(kind, key, i)},
    "inputs": keys}``; every call is still counted so that keys line up with the first run. ``inputs``
    keeps each wanted layer's inputs (for the magnitude of the terms of its parameter gradients).

    An output that is the very tensor a child module returned (a side output passed up, a tuple output
    also used inside forward) gets no second gradient hook: torch's tensor hook would see the gradient
    from the child's consumers inside the parent too, while MindSpore's backward hook on the parent sees
    only what reaches it from outside; ``shared`` lists those (key, index) and they are compared at the
    child. ``versions`` remembers each recorded output's version counter, so that an output changed in
    place after its layer returned (``out += identity``) is detected (``mutated()``).
    """

    def __init__(self, model, grads: bool = True, want: dict | None = None, clone: bool = False, sink=None,
                 outputs: bool = True):
        self.clone = clone
        self.outputs = outputs  # False: gradients only (no layer outputs kept)
        self.sink = sink  # sink(ident, tensors): wanted outputs / gradients are handed over, not stored
        self.records: dict = {}
        self.versions: dict = {}
        self.inputs: dict = {}
        self.out_grads: dict = defaultdict(dict)
        self.in_grads: dict = defaultdict(dict)
        self.shared: set = set()
        self.stack: list = []
        self.parent: dict = {}  # key -> the key of the call it ran inside (None for the root)
        self.types: dict = {}  # key -> the module's class name
        self.handles: list = []
        self.keys = _Keys()
        self.grads = grads
        self.want = want
        self._produced: dict = {}
        for path, module in model.named_modules():
            path = path or ROOT
            self.handles.append(module.register_forward_pre_hook(self._pre(path)))
            self.handles.append(module.register_forward_hook(self._post(path)))

    def _wants(self, what, item) -> bool:
        return self.want is None or item in self.want.get(what, ())

    def _pre(self, path):
        def hook(module, inputs):
            key = self.keys.next(path)
            self.parent[key] = self.stack[-1] if self.stack else None
            self.stack.append(key)
            self.types[key] = type(module).__name__
            if self.want is not None and key in self.want.get("inputs", ()):
                self.inputs[key] = [x.detach() for x in inputs if hasattr(x, "detach")]
            if not self.grads:
                return None
            new, changed = [], False
            for i, x in enumerate(inputs):
                if (hasattr(x, "requires_grad") and x.requires_grad and x.is_floating_point()
                        and self._wants("grad", ("in", key, i))):
                    x = x.view_as(x)
                    x.register_hook(self._grad_hook(self.in_grads, key, i, "in"))
                    changed = True
                new.append(x)
            return tuple(new) if changed else None
        return hook

    def _post(self, path):
        def hook(module, inputs, output):
            key = self.stack.pop()
            outs = flatten(output)
            if self.sink is not None and self._wants("fwd", key):
                self.sink(("fwd", key), [o.detach() for o in outs])
            elif self.outputs and self._wants("fwd", key):
                self.records[key] = (path, type(module).__name__,
                                     [o.detach().clone() if self.clone else o.detach() for o in outs])
                self.versions[key] = [o._version for o in outs]
            for i, o in enumerate(outs):
                if id(o) in self._produced:
                    self.shared.add((key, i))
                    continue
                self._produced[id(o)] = o
                if self.grads and o.requires_grad and self._wants("grad", ("out", key, i)):
                    o.register_hook(self._grad_hook(self.out_grads, key, i, "out"))
        return hook

    def current(self):
        """(key, class name) of the innermost module running now, or (None, None) outside the model."""
        return (self.stack[-1], self.types.get(self.stack[-1])) if self.stack else (None, None)

    def mutated(self) -> list:
        """Keys whose recorded outputs were changed in place after the layer returned."""
        return [k for k, (_, _, outs) in list(self.records.items())
                if any(o._version != v for o, v in zip(outs, self.versions[k]))]

    def end_forward(self):
        self._produced.clear()

    def _grad_hook(self, store, key, i, kind):
        def hook(grad):
            if self.sink is not None:
                self.sink((kind, key, i), [grad.detach()])
                if not (self.want and key in self.want.get("inputs", ())):
                    return
            store[key][i] = grad.detach()
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles.clear()
        self._produced.clear()


class MsRecorder:
    """Wraps every cell of a MindSpore network; calls ``on_forward(key, path, type, arrays)`` after
    each cell and ``on_grad(kind, key, path, arrays)`` ('out' / 'in') from backward hooks. For the keys
    ``want_inputs`` accepts, the cell's input arrays are in ``inputs`` during its on_forward call (the max-pools:
    which input won each window, routing._route_pool)."""

    def __init__(self, net, on_forward, on_grad=None, want_inputs=None):
        self.want_inputs = want_inputs  # want_inputs(key) -> bool: that cell's input arrays go to ``inputs``
        self.inputs: list | None = None  # the current cell's input arrays (only for wanted keys), for on_forward
        self.stack: list = []
        self.types: dict = {}  # key -> the cell's class name
        self.keys = _Keys()
        self.bwd_calls: dict = defaultdict(int)
        self.wrapped: list = []
        self.handles: list = []
        self.on_forward, self.on_grad = on_forward, on_grad
        self._last: dict = {}
        for path, cell in net.cells_and_names():
            path = path or ROOT
            orig = cell.construct
            cell.construct = self._wrap(cell, path, orig)
            self.wrapped.append(cell)
            if on_grad is not None:
                try:
                    self.handles.append(cell.register_backward_hook(self._bwd(path)))
                except Exception:  # noqa: BLE001 - a cell that refuses hooks is just not recorded
                    pass

    def _array(self, o):
        """``o.asnumpy()`` (a view of the tensor's memory, no copy: kept arrays are copied, state._Stash). The
        previous cell's array of the very tensor is reused (the runner then reuses its comparison) only when it
        still holds the tensor's values: an in-place ``copy_`` between two cells (timm's MobileOne block:
        ``out = self.drop_path(out); out += identity_out`` as ``out.copy_(...)``, then ``self.attn(out)``) left the
        earlier array with the old values (measured), and the next cell compared those."""
        fresh = o.asnumpy()
        hit = self._last.get(id(o))
        if hit is not None and hit[0] is o and hit[1].shape == fresh.shape and np.array_equal(hit[1], fresh):
            return hit[1]
        return fresh

    def current(self):
        """(key, class name) of the innermost cell running now, or (None, None) outside the network."""
        return (self.stack[-1], self.types.get(self.stack[-1])) if self.stack else (None, None)

    def _wrap(self, cell, path, orig):
        def construct(*args, **kwargs):
            key = self.keys.next(path)
            self.stack.append(key)
            self.types[key] = type(cell).__name__
            inputs = None
            if self.want_inputs is not None and self.want_inputs(key):
                inputs = []  # usually the previous cell's output, already copied: reused
                for a in args:
                    if hasattr(a, "asnumpy"):
                        inputs.append(self._array(a))
            out = orig(*args, **kwargs)
            # synchronise: errors surface here. A container returning its last child's very tensor reuses that
            # child's array (the tensor is held in _last, so its id cannot be reused meanwhile)
            arrays = [self._array(o) for o in flatten(out)]
            self._last = {id(o): (o, a) for o, a in zip(flatten(out), arrays)}
            self.stack.pop()
            self.inputs = inputs
            try:
                self.on_forward(key, path, type(cell).__name__, arrays)
            finally:
                self.inputs = None
            return out
        return construct

    def _bwd(self, path):
        def hook(cell, grad_input, grad_output):
            # backward runs in reverse: the k-th backward call of a path is its (n-k+1)-th forward call
            self.bwd_calls[path] += 1
            n = self.keys.calls[path] - self.bwd_calls[path] + 1
            key = path if n <= 1 else f"{path}#{n}"
            for kind, grads in (("out", grad_output), ("in", grad_input)):
                items = grads if isinstance(grads, (tuple, list)) else [grads]
                arrays = {i: g.asnumpy() for i, g in enumerate(items) if hasattr(g, "asnumpy")}
                self.on_grad(kind, key, path, arrays)
            return None
        return hook

    def remove(self):
        self._last = {}
        for cell in self.wrapped:
            if "construct" in cell.__dict__:
                del cell.construct
        self.wrapped.clear()
        for h in self.handles:
            try:
                h.remove()
            except Exception:  # noqa: BLE001
                pass
        self.handles.clear()

