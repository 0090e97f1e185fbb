"""The float64 reference: torch's model run in float64 on the same inputs and weights, judging only the tensors that
failed the float32 screen (``_reference_pass``), from the first screened layer on (``_SkipAhead``), with the
magnitude of the summed terms of a parameter gradient (``sum_of_terms``) in its floor (metrics.py)."""
from __future__ import annotations

import numpy as np

from . import metrics
from .hooks import ROOT, TorchRecorder
from .routing import _KinkRouter
from .state import _cat, _line, _torch_loss


def _deepcopy_module(model):
    """``copy.deepcopy(model)`` where a module holds a tensor computed from its parameters as a plain attribute (an
    equalized-learning-rate or weight-norm pre-hook sets ``module.weight = weight_orig * c`` at every call): torch
    refuses to deep-copy such a non-leaf tensor, so the copy holds it detached (the hook computes it again)."""
    import copy

    import torch

    memo = {}
    for m in model.modules():
        for v in vars(m).values():
            if isinstance(v, torch.Tensor) and not isinstance(v, torch.nn.Parameter) and v.grad_fn is not None:
                memo[id(v)] = v.detach().clone()
    return copy.deepcopy(model, memo)


def _reference_pass(report, torch_model, inputs, target, loss, stash, initial, no_params, top_outputs=None,
                    kinks=None, fkinks=None) -> None:
    """The float64 tier: run torch in float64 on the same inputs and weights, keeping only the stashed tensors."""
    import copy

    import torch

    try:
        ref_model = _deepcopy_module(torch_model)
        ref_model.load_state_dict(initial)
        ref_model = ref_model.double()
        ref_loss = copy.deepcopy(loss).double() if isinstance(loss, torch.nn.Module) else loss
    except Exception as exc:  # noqa: BLE001 - a model that cannot be copied keeps the screen's verdict
        report.determinism.append(f"float64 reference not run ({type(exc).__name__}: {_line(exc)}): "
                                  "the float32 screen's verdicts stand")
        return
    owners = {}  # parameter -> owning module key (for the magnitude of its gradient's terms)
    modules = dict(ref_model.named_modules())
    for ident in stash.items:
        if ident[0] == "param":
            owner = ident[1].rpartition(".")[0]
            if owner in modules and not list(modules[owner].children()):
                owners[ident[1]] = owner or ROOT
    want = {"fwd": {i[1] for i in stash.items if i[0] == "fwd"},
            "grad": {i for i in stash.items if i[0] in ("out", "in")} | {("out", o, 0) for o in owners.values()},
            "inputs": set(owners.values())}
    # only what the stash needs: gradients for the stashed parameters alone (autograd then records nothing before
    # the first of them and stops its backward there), no backward at all when only forward tensors are stashed,
    # and the forward stops once its last stashed tensor is judged (_Judged)
    wanted = {i[1] for i in stash.items if i[0] == "param"}
    needs_backward = bool(wanted) or (no_params and bool(want["grad"]))
    for n, p in ref_model.named_parameters():
        p.grad = None
        p.requires_grad_(n in wanted)
    xs = [torch.from_numpy(np.array(x)) for x in inputs]
    xs = [x.double() if x.is_floating_point() else x for x in xs]
    if no_params and needs_backward:
        xs = [x.requires_grad_(True) if x.is_floating_point() else x for x in xs]
    tgt = target
    if target is not None and np.issubdtype(np.asarray(target).dtype, np.floating):
        tgt = np.asarray(target, np.float64)
    judged = [0]
    k_fwd, k_grad = report.tolerances["k_torch"], report.tolerances["k_torch_grad"]

    def judge(ident, refs, terms=None):
        """Judge a stashed tensor the moment its float64 value exists, then free both sides' copies."""
        item = stash.items.get(ident)
        if item is None:
            return
        row, t_outs, m_arrays = item
        if len(refs) != len(t_outs) or any(int(np.prod(r.shape)) != int(np.prod(t.shape))
                                           for r, t in zip(refs, t_outs)):
            return
        new = metrics.judge(row, _cat(t_outs), _cat(m_arrays), _cat(refs),
                            None if terms is None else terms.reshape(-1), k_fwd if ident[0] == "fwd" else k_grad)
        if new is not row:
            row.clear()
            row.update(new)
        judged[0] += 1
        del stash.items[ident]
        if not needs_backward and not stash.items:
            raise _Judged

    skip = None
    if wanted and not no_params and all(i[0] == "param" for i in stash.items):
        skip = _SkipAhead(ref_model, torch_model, wanted, top_outputs)
    # the float64 backward routed through the ReLU / max-pool kinks as MindSpore routed them, as torch's float32
    # one was (_KinkRouter): the three differ by rounding only
    router = None
    if wanted and needs_backward and kinks and (kinks[0] or kinks[1]):
        router = _KinkRouter(ref_model, {k: ("pool", w) for k, w in kinks[1].items()}, kinks[0])
    rec = TorchRecorder(ref_model, grads=needs_backward, want=want, sink=judge)
    routed_f = fkinks if (fkinks is not None and wanted and needs_backward and fkinks.ms_units) else None
    if routed_f is not None:
        routed_f.begin_torch_run()
        routed_f.flipped = {"elements": 0, "calls": 0}
    try:
        with torch.set_grad_enabled(needs_backward):
            if routed_f is not None:
                with routed_f.torch_mode(rec.current):
                    out = ref_model(*xs)
                routed_f.align()
            else:
                out = ref_model(*xs)
        rec.end_forward()
        if needs_backward:
            lt = _torch_loss(ref_loss, out, tgt)
            del out
            if lt.requires_grad:
                lt.backward()
    except _Judged:
        pass
    except Exception as exc:  # noqa: BLE001
        report.determinism.append(f"float64 reference failed ({type(exc).__name__}: {_line(exc)}): "
                                  "the float32 screen's verdicts stand")
        return
    finally:
        rec.remove()
        if skip is not None:
            skip.remove()
        if router is not None:
            router.remove()
        if routed_f is not None:
            routed_f.clear()
    if router is not None and router.flipped["layers"]:
        report.determinism.append(
            f"float64 reference routed as MindSpore routed its kinks, at {router.flipped['layers']} layer call(s): "
            f"{router.flipped['relu']} ReLU element(s), {router.flipped['pool']} max-pool window(s)")
    if routed_f is not None and routed_f.flipped["calls"]:
        report.determinism.append(
            f"float64 reference routed as MindSpore routed the kinks of functional calls, at "
            f"{routed_f.flipped['calls']} call(s): {routed_f.flipped['elements']} element(s)")
    if skip is not None and skip.skipped:
        report.determinism.append(
            f"float64 reference for {len(wanted)} parameter gradient(s) only: the {skip.skipped} layer call(s) that "
            "run before the first of them (and hold none of them) were not run in float64; their float32 outputs "
            f"({skip.reused} taken from torch's first run, the others run again in float32) were promoted to "
            "float64 (the reference starts at the first screened layer, from torch's own float32 input to it)")
    for name, p in dict(ref_model.named_parameters()).items():
        for ident in [i for i in stash.items if i[0] == "param" and i[1] == name]:
            g = p.grad if p.grad is not None else torch.zeros_like(p)
            if ident[2] is not None:
                g = g.unsqueeze(ident[2])
            terms = None
            if name in owners:
                key = owners[name]
                terms = sum_of_terms(modules[key] if key != ROOT else ref_model, name.rpartition(".")[2],
                                     rec.inputs.get(key), rec.out_grads.get(key, {}).get(0))
                if terms is not None and ident[2] is not None:
                    terms = terms.unsqueeze(ident[2])
            judge(ident, [g], terms)
    judged = judged[0]
    report.reference = {"ran": True, "tensors": judged}
    stash.items.clear()


class _SkipAhead:
    """The float64 reference for parameter gradients alone, from the first layer holding one of them on: every layer
    call that starts before that layer and holds none of the wanted parameters runs as the float32 model's layer
    (torch_model, no autograd), its output promoted to float64. The gradient of a parameter depends on the input of
    its layer (which then carries torch's float32 rounding from the layers before, the same rounding torch's and
    MindSpore's runs start from) and on the backward from the loss to that layer, which passes only through layers
    that run after it; so nothing it sums is cut. (A layer that reaches a wanted parameter by other means than
    holding it - a functional call on another layer's weight - would lose that use; holding is checked by identity,
    so tied and shared parameters are seen.) A layer called before as well as after the start runs in float64
    from the start on. BatchNorm running statistics of the float32 model are put back afterwards."""

    def __init__(self, ref_model, torch_model, wanted, cache=None):
        self.torch_model = torch_model
        # torch's float32 outputs of the root's calls in its first run (key -> tensor): a call found there is not
        # run again. Keys count every call of a layer, here as there: the float64 model's calls, and the float32
        # model's calls made inside a layer run as float32 (hooks on the float32 model count those)
        self.cache, self.calls, self.reused = cache or {}, {}, 0
        self.buffers = {n: b.detach().clone() for n, b in torch_model.named_buffers()}
        params = dict(ref_model.named_parameters())
        targets = {id(params[n]) for n in wanted if n in params}
        self.started, self.skipped, self.patched, self.handles = False, 0, [], []
        if any(id(p) in targets for p in ref_model.parameters(recurse=False)):
            return  # the root holds one itself: it starts with the first call
        for path, m in ref_model.named_modules():
            if not path:
                continue
            if any(id(p) in targets for p in m.parameters(recurse=False)):
                self.handles.append(m.register_forward_pre_hook(self._start))
            if any(id(p) in targets for p in m.parameters()):
                continue  # holds one: runs in float64 (its children decide for themselves)
            try:
                twin = torch_model.get_submodule(path)
            except AttributeError:
                continue
            m.forward = self._fast(m.forward, twin, path)
            self.patched.append(m)
            self.handles.append(twin.register_forward_pre_hook(self._counter(path)))

    def _counter(self, path):
        def hook(module, args):
            self._count(path)  # returns None: the arguments stay as they are
        return hook

    def _count(self, path):
        self.calls[path] = n = self.calls.get(path, 0) + 1
        return path if n == 1 else f"{path}#{n}"

    def _start(self, module, args):
        self.started = True

    def _fast(self, orig, twin, path):
        import torch

        def forward(*args, **kwargs):
            if self.started:
                self._count(path)
                return orig(*args, **kwargs)
            n = self.calls.get(path, 0) + 1
            hit = self.cache.get(path if n == 1 else f"{path}#{n}")
            if hit is not None:
                self._count(path)
                self.skipped += 1
                self.reused += 1
                return hit.detach().to(torch.float64)
            with torch.no_grad():  # the float32 layer's pre-hook counts this call
                out = twin(*_cast(args, torch.float64, torch.float32), **_cast(kwargs, torch.float64, torch.float32))
            self.skipped += 1
            return _cast(out, torch.float32, torch.float64)
        return forward

    def remove(self):
        import torch

        for m in self.patched:
            m.__dict__.pop("forward", None)
        self.patched.clear()
        for h in self.handles:
            h.remove()
        with torch.no_grad():
            for n, b in self.torch_model.named_buffers():
                b.copy_(self.buffers[n])


def _cast(value, src, dst):
    """``value`` with every tensor of dtype ``src`` in it (tuples, lists, dicts) converted to ``dst``."""
    if hasattr(value, "dtype") and hasattr(value, "to"):
        return value.detach().to(dst) if value.dtype == src else value
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return type(value)(*(_cast(v, src, dst) for v in value))
    if isinstance(value, (tuple, list)):
        return type(value)(_cast(v, src, dst) for v in value)
    if isinstance(value, dict):
        return {k: _cast(v, src, dst) for k, v in value.items()}
    return value


class _Judged(BaseException):
    """Raised from the float64 reference's forward once every stashed tensor is judged and no backward is needed."""


_MULTILINEAR = ("Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
                "ConvTranspose3d", "Embedding", "LazyLinear")


_NORMS = ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "GroupNorm", "LayerNorm", "InstanceNorm1d",
          "InstanceNorm2d", "InstanceNorm3d", "SyncBatchNorm", "RMSNorm")


def sum_of_terms(module, pname, inputs, grad_out):
    """S for the gradient of ``module.pname``: per element, sum |terms| of the sum that gradient is (computed in
    float32: it is a magnitude, and its own rounding, ~1e-6 relative, does not move a floor; float64 took 3x as
    long, 2.6 s of the 5.8 s reference run on the benchmark U-Net at base 32).

    Multilinear layers (Linear, Conv*, ConvTranspose*, Embedding): the gradient of a weight or bias is a sum of
    products of inputs and output gradients with 0/1 coefficients, so S is the same gradient with |inputs|,
    |output gradient| (and |weights|). Normalisation layers (out = weight * xhat + bias): S(bias) = sum |g|,
    S(weight) = sum |g| |xhat|. Other layers: None (the floor then rests on torch's own error).
    The gradients are taken of the scalar sum(y * g) rather than with ``grad_outputs=g``: the same vector-Jacobian
    product, without the first-call import of torch.fx's symbolic shapes that an explicit output gradient costs
    (1.2 s).
    """
    import copy

    import torch

    if inputs is None or grad_out is None or type(module).__name__ not in _MULTILINEAR + _NORMS:
        return None
    try:
        m = copy.deepcopy(module).float()
        for p in m.parameters():
            p.grad = None
        param = dict(m.named_parameters()).get(pname)
        if param is None:
            return None
        g = grad_out.detach().abs().float()
        if type(module).__name__ in _MULTILINEAR:
            with torch.no_grad():
                for p in m.parameters():
                    p.abs_()
            xs = [x.detach().abs().float() if x.is_floating_point() else x for x in inputs]
            y = m(*xs)
            return torch.autograd.grad((y * g).sum(), param)[0].detach()
        x = inputs[0].detach().float()
        if pname == "weight":
            with torch.no_grad():  # weight 1, bias 0: the output is xhat itself
                param.fill_(1.0)
                if getattr(m, "bias", None) is not None:
                    m.bias.zero_()
            xhat = m(x).detach()
            g = g * torch.sign(xhat)
        y = m(x)
        return torch.autograd.grad((y * g).sum(), param)[0].detach().abs()
    except Exception:  # noqa: BLE001 - no estimate: torch's own error is the floor
        return None
