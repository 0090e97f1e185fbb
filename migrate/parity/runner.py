"""Run a torch model and its MindSpore port on identical inputs and weights, layer by layer.

Phases (both frameworks eager, train mode, dropout, drop-path and DropBlock disabled):

1. weights: torch -> MindSpore through ``migrate.weights.torch_to_mindspore`` (the name map is
   reused to pair parameter gradients);
2. forward on torch with every module hooked (``hooks.TorchRecorder``);
3. forward + backward on MindSpore with every cell hooked; each layer is compared the moment it has
   run (``hooks.MsRecorder``), so a failing op is blamed on the right layer; then torch's backward,
   routed through its ReLU / max-pool layers as MindSpore routed them (``_KinkRouter``; a model
   without parameters runs torch's backward in phase 2, with its layer gradients hooked);
4. optionally N optimizer steps from the same initial weights with torch semantics on both sides
   (MindSpore: ``mindspore.experimental.optim.SGD``; for Adam :class:`TorchAdam`, torch's exact
   update, because ``experimental.optim.Adam`` adds eps before the bias correction), comparing the
   loss and every parameter and buffer (BatchNorm running statistics included) after each step.

``compare`` returns a :class:`~migrate.parity.report.ParityReport`; ``assert_parity`` raises
``AssertionError`` with the terminal table when parity does not hold.
"""
from __future__ import annotations

import copy
import math
import re
import time

import numpy as np

from . import metrics
from .hooks import ROOT, MsRecorder, TorchRecorder, flatten
from .kinks import FunctionalKinks
from .report import ParityReport

OPTIMIZERS = ("sgd", "adam")
# Adam normalises each element's update (the first step moves every element by lr * sign(grad)), so an element whose
# gradient the two frameworks do not agree on in sign - a gradient at float-noise level, e.g. a conv bias before
# BatchNorm or a weight behind a ReLU that is almost never active - moves in opposite directions. Such elements are
# "undetermined" in that step: both gradients must have the same sign and differ by less than ADAM_AGREEMENT of
# torch's. Parameters are compared on their determined elements; buffers (BatchNorm running statistics) whole. Each
# step starts from torch's state on both sides, so an undetermined element's drift does not carry into later steps.
ADAM_AGREEMENT = 0.01
# layer gradients: share of elements that may sit on the other side of a ReLU / max-pool kink
# (measured: a faithful U-Net at 2x32x256x256 had a few such elements in the last ReLU's input grad)
GRAD_OUTLIERS = 1e-5
# tensors failing the float32 screen are kept (torch's and MindSpore's values) until the float64 reference has run;
# beyond this much, later ones keep the screen's verdict (a real slip fails the first layers it reaches anyway)
STASH_BYTES = 2 << 30


class ParityError(ValueError):
    """Bad input to a parity run (the torch side fails, weights do not fit): one line for the user."""


# ------------------------------------------------------------------------------ public API
def compare(torch_model, ms_model, inputs, *, target=None, loss=None, ms_loss=None, steps: int = 0,
            optimizer: str = "sgd", lr: float = 1e-3, rtol: float = 1e-4, atol: float = 1e-5,
            grad_rtol: float = 1e-2, weights: dict | None = None, backward: bool = True, step_inputs=None,
            step_targets=None, reference: bool = True, k_torch: float = metrics.K_TORCH,
            k_torch_grad: float = metrics.K_TORCH_GRAD, progress=None, lines: bool = True,
            keep_start: bool = False) -> ParityReport:
    """Compare ``torch_model`` with ``ms_model`` on ``inputs`` (an array or a list of arrays).

    ``loss`` / ``ms_loss`` are called as ``loss(output, target)`` (``loss(output)`` without a
    target); without them the loss is the sum of all outputs. ``weights`` (a torch state_dict) is
    loaded into ``torch_model`` first; torch's weights are then copied into ``ms_model``.
    ``steps`` optimizer steps follow, on ``step_inputs[i]`` (default: ``inputs`` every step).
    ``rtol`` / ``grad_rtol`` / ``atol`` set the float32 screen; tensors failing it are judged against a
    float64 run of the torch model (``reference=False``: the screen's verdict is final), with a floor of
    ``k_torch`` (gradients: ``k_torch_grad``) x torch's own float32 error plus eps x the magnitude of the summed
    terms (metrics.py). When the forward diverges and ``lines`` is true, both forwards run once more under a
    tracer and ``first_divergence["line"]`` names the first source line and variable where the values part
    (lines.py). ``keep_start``: the starting weights of both sides stay on the report (``report.start``: torch's
    state_dict, MindSpore's parameter arrays) for a repro (repro.py).
    """
    import torch

    from migrate.weights import WeightsError, map_from_ms_net, torch_to_mindspore

    if optimizer.lower() not in OPTIMIZERS:
        raise ParityError(f"optimizer {optimizer!r} is not supported (choose from {', '.join(OPTIMIZERS)})")
    if (loss is None) != (ms_loss is None):
        raise ParityError("give both loss and ms_loss, or neither (then the loss is the sum of the outputs)")
    inputs = _as_list(inputs)
    report = ParityReport(tolerances={"rtol": rtol, "atol": atol, "grad_rtol": grad_rtol,
                                      "k_torch": k_torch, "k_torch_grad": k_torch_grad, "eps": metrics.EPS32,
                                      "reference": bool(reference)})
    report.settings = {"mode": "train (dropout, drop-path and DropBlock disabled)", "steps": steps,
                       "optimizer": optimizer.lower(),
                       "lr": lr, "loss": type(loss).__name__ if loss is not None else "sum of outputs",
                       "inputs": [{"shape": list(x.shape), "dtype": str(x.dtype)} for x in inputs]}
    torch_model.train()
    ms_model.set_train(True)
    report.determinism = _make_deterministic(torch_model, ms_model)
    try:
        if weights is not None:
            _check_weights(weights, torch_model.state_dict())
            torch_model.load_state_dict(weights)
        initial = _snapshot(torch_model)
        _copy_weights(initial, ms_model, report)
        if keep_start:  # not a dataclass field: never serialised
            report.start = (initial, {n: p.asnumpy().copy() for n, p in ms_model.parameters_and_names()})
    except (WeightsError, RuntimeError) as exc:
        raise ParityError(f"weights: {str(exc).strip().splitlines()[0]}") from None
    name_map = map_from_ms_net(ms_model)

    tick = progress or (lambda _n: None)  # migrate.progress.Progress: total, then one tick per stage
    tick(1 + steps)
    try:
        _forward_backward(report, torch_model, ms_model, inputs, target, loss, ms_loss, backward, name_map,
                          reference, initial)
    finally:
        metrics.SCRATCH.release()
        _close_ms_graph()
    tick(None)
    if lines and report.error is None and any(not r["passed"] for r in report.layers):
        # the forward parted: name the first source line and variable where the values part (lines.py)
        from .lines import locate_lines

        t0 = time.perf_counter()
        report.first_divergence["line"] = locate_lines(torch_model, ms_model, inputs, rtol, atol)
        report.timing["lines_s"] = time.perf_counter() - t0
    if steps and report.error is None:
        torch_model.load_state_dict(initial)
        torch_to_mindspore(initial, ms_model, strict=False)
        batches = [_as_list(b) for b in step_inputs] if step_inputs else [inputs]
        targets = list(step_targets) if step_targets else [target]
        try:
            _train_steps(report, torch_model, ms_model, batches, targets, loss, ms_loss, steps, optimizer.lower(),
                         lr, name_map, tick)
        finally:
            _close_ms_graph()
    _conclude(report)
    return report


def _close_ms_graph() -> None:
    """A MindSpore error inside ``ms.value_and_grad`` leaves PyNative's gradient graph open: the process then records
    every op, and the next model's init (timm's ``trunc_normal_``, ``weight.copy_(rand...)``) fails with "A leaf
    tensor that requires grad is being used in an inplace operator" (measured: fastvit built after a failed
    efficientvit run). Closed here, as MindSpore cleans it, only when one is left open."""
    from mindspore.common.api import _pynative_executor

    if _pynative_executor.requires_grad():
        _pynative_executor.clear_res()


def assert_parity(torch_model, ms_model, inputs, **kwargs) -> ParityReport:
    """``compare`` and raise ``AssertionError`` (message: the table) unless parity holds."""
    report = compare(torch_model, ms_model, inputs, **kwargs)
    if not report.passed:
        raise AssertionError("\n" + report.table(color=False))
    return report


def _copy_weights(state, ms_model, report) -> None:
    """torch -> MindSpore; tensors with no home on the other side are noted (the forward then shows their layer)."""
    import torch

    from migrate.weights import map_from_ms_net, torch_to_mindspore

    used = torch_to_mindspore(state, ms_model, strict=False)
    nm = map_from_ms_net(ms_model)
    extra = [k for k in state if k not in used and k not in nm.dropped and not k.endswith("num_batches_tracked")]
    params = dict(ms_model.parameters_and_names())
    missing = [e.ms_name for e in nm.entries if e.torch_name not in state and params[e.ms_name].requires_grad]
    if extra:
        report.determinism.append(f"torch tensor(s) with no MindSpore parameter, not copied: {', '.join(extra[:8])}"
                                  + (f" (+{len(extra) - 8})" if len(extra) > 8 else "")
                                  + " (buffers the port holds as constants are checked through the forward)")
    if missing:
        report.determinism.append(f"MindSpore parameter(s) with no torch tensor, left as initialised: "
                                  f"{', '.join(missing[:8])}")
    report.weights = {"torch_only": extra, "ms_only": missing}
    del torch


# ------------------------------------------------------------------------------ phases
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


def _forward_backward(report, torch_model, ms_model, inputs, target, loss, ms_loss, backward, name_map, reference,
                      initial):
    import mindspore as ms
    import torch

    rtol, atol = report.tolerances["rtol"], report.tolerances["atol"]
    grtol = report.tolerances["grad_rtol"]
    stash = _Stash(STASH_BYTES)
    screened: dict = {}  # parameter gradients outside the screen: torch's and MindSpore's, for the routing term
    no_params = not any(p.requires_grad for p in torch_model.parameters())
    xs_t = [torch.from_numpy(np.array(x)) for x in inputs]
    if backward and no_params:  # a parameter-free model: the gradient flows to the inputs
        xs_t = [x.requires_grad_(True) if x.is_floating_point() else x for x in xs_t]
    # gradients left on the parameters by the caller (a training step, a warm-up) would add to this backward's:
    # set aside, put back once compared
    caller_grads = {p: p.grad for p in torch_model.parameters() if p.grad is not None}
    for p in caller_grads:
        p.grad = None
    # layer gradients (hooks at every layer output and input, both sides) locate a backward divergence; the
    # parameter gradients decide it (see _conclude). So they are recorded in this first pass only when there are
    # no parameters (then they decide); otherwise a second pass records them only if a parameter gradient fails
    # (_locate_backward): a faithful port pays for neither torch's stored gradients nor MindSpore's backward hooks.
    layer_hooks = backward and no_params
    rec = TorchRecorder(torch_model, grads=layer_hooks)
    # with parameters, torch's backward waits until MindSpore has run: it is then routed through every ReLU-like
    # and max-pool layer as MindSpore routed it (_KinkRouter), so torch's one run is the reference for both
    defer = backward and not no_params
    router = _KinkRouter(torch_model) if defer else None
    # the same for kinks decided by functional calls and tensor methods (F.relu, x.clamp(min=0), torch.max(a, b))
    fkinks = FunctionalKinks() if defer else None
    t0 = time.perf_counter()
    try:
        if fkinks is not None:
            with fkinks.torch_mode(rec.current):
                out_t = torch_model(*xs_t)
        else:
            out_t = torch_model(*xs_t)
        rec.end_forward()
        if router is not None:
            router.end_forward()
        mutated = rec.mutated()
        loss_t = _torch_loss(loss, out_t, target)
        if backward and not defer and loss_t.requires_grad:
            loss_t.backward()
        del out_t
    except Exception as exc:  # noqa: BLE001 - the reference itself fails: an input problem
        if router is not None:
            router.remove()
        raise ParityError(f"the torch model raised {type(exc).__name__}: {_line(exc)}") from None
    finally:
        rec.remove()
    report.timing["torch_s"] = time.perf_counter() - t0
    if mutated:  # outputs changed in place after their layer returned: record those again, cloned
        _rerecord(torch_model, xs_t, rec, mutated)
        report.determinism.append(f"{len(mutated)} layer output(s) are changed in place after the layer returns "
                                  f"(e.g. `out += identity`): recorded again, cloned, in a second torch forward "
                                  f"({', '.join(mutated[:4])}{' ...' if len(mutated) > 4 else ''})")
    t_records = rec.records
    report.first_nonfinite["torch"] = next(
        (k for k, (_, _, outs) in t_records.items() if any(metrics.nonfinite(o) for o in outs)), None)
    order = list(t_records)
    t_meta = {k: (path, typ) for k, (path, typ, _) in t_records.items()}
    rows: dict = {}
    straddles: dict = {}  # ReLU-like layer -> the elements torch and MindSpore put on different sides of a kink
    pool_routes: dict = {}  # max-pool layer -> which input won each window in MindSpore (flat, per plane)
    # torch's outputs of the calls the root makes (single tensors), kept for the float64 reference of parameter
    # gradients: it starts at the first screened layer, and takes the calls before it from here (_SkipAhead)
    top_outputs: dict = {}
    keep_top = backward and reference and not no_params
    ms_types: dict = {}
    last: dict = {}  # the previous comparison: (torch tensors, MindSpore arrays, row)

    compare_s = [0.0]

    def on_forward(key, path, typ, arrays):
        t0 = time.perf_counter()
        try:
            _on_forward(key, path, typ, arrays)
        finally:
            compare_s[0] += time.perf_counter() - t0

    def _on_forward(key, path, typ, arrays):
        ms_types[key] = (path, typ)
        ref = t_records.pop(key, None)  # compared now, then freed
        if ref is not None and keep_top and rec.parent.get(key) == ROOT and len(ref[2]) == 1:
            top_outputs[key] = ref[2][0]  # a call the root made: the float64 reference may start after it
        if ref is None:
            if report.first_nonfinite["ms"] is None and any(metrics.nonfinite(a) for a in arrays):
                report.first_nonfinite["ms"] = key
            return
        prev = last.get("pair")
        if (prev is not None and len(prev[0]) == len(ref[2]) == len(arrays)
                and all(_same_storage(a, b) for a, b in zip(prev[0], ref[2]))
                and all(a is b for a, b in zip(prev[1], arrays))):
            row = dict(prev[2])  # a container passing its last child's tensors up: the same comparison
        else:
            row = _combine(ref[2], arrays, rtol, atol)
            if row.pop("nonfinite", False) or row.get("tier") != "float32":  # else the screen saw both finite
                row["nonfinite_torch"] = any(metrics.nonfinite(o) for o in ref[2])
                row["nonfinite_ms"] = any(metrics.nonfinite(a) for a in arrays)
            else:
                row["nonfinite_torch"] = row["nonfinite_ms"] = False
        if report.first_nonfinite["ms"] is None and row["nonfinite_ms"]:
            report.first_nonfinite["ms"] = key
        last["pair"] = (ref[2], arrays, row)
        rows[key] = row
        if t_meta[key][1] in _SIGN_KINKS and len(ref[2]) == len(arrays) == 1:
            found = _straddles(torch_model, t_meta[key], ref[2][0], arrays[0])
            if found is not None:
                straddles[key] = found
                if router is not None and found[0].numel():
                    router.decisions[key] = ("relu", found[0], found[3])
        elif t_meta[key][1] in _POOL_KINKS and len(ref[2]) == len(arrays) == 1 and ms_rec.inputs:
            won = _pool_winners(torch_model, t_meta[key], ms_rec.inputs[0], arrays[0], ref[2][0])
            if won is not None:
                pool_routes[key] = won
                if router is not None:
                    router.decisions[key] = ("pool", won)
        if not row["passed"] and reference and row.get("tier") == "float32":
            stash.add(("fwd", key), row, ref[2], arrays)

    grad_rows: list = []
    seen_grads: set = set()
    on_grad = _grad_comparer(rec, t_meta, ms_types, grad_rows, seen_grads, grtol, atol, no_params,
                             stash if reference and no_params else None)

    ms_rec = MsRecorder(ms_model, on_forward, on_grad if layer_hooks else None,
                        want_inputs=lambda k: k in t_meta and t_meta[k][1] in _POOL_KINKS and backward)
    # torch's thread pool fighting MindSpore's made the metrics 20x slower: one torch thread meanwhile
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    xs_m = [ms.Tensor(np.array(x)) for x in inputs]
    trainable = ms_model.trainable_params()
    ms_grads, loss_m = None, None
    t0 = time.perf_counter()
    untap = None
    if fkinks is not None:
        from .kinks import methods_named
        from .lines import user_files

        untap = fkinks.ms_tap(ms_rec.current, methods_named(user_files(ms_model, "ms")))
    try:
        def fwd(*xs):
            if fkinks is not None:
                fkinks.recording_ms = True
            try:
                out = ms_model(*xs)
            finally:
                if fkinks is not None:
                    fkinks.recording_ms = False
            return _ms_loss(ms_loss, out, target)

        if backward and trainable:
            loss_m, ms_grads = ms.value_and_grad(fwd, None, trainable)(*xs_m)
        elif backward and any(x.dtype in (ms.float32, ms.float16, ms.float64) for x in xs_m):
            loss_m, _ = ms.value_and_grad(fwd, tuple(range(len(xs_m))))(*xs_m)
        else:
            loss_m = fwd(*xs_m)
        loss_m = float(loss_m.asnumpy())
    except Exception as exc:  # noqa: BLE001 - a failing port is a finding, not a crash
        where = ms_rec.stack[-1] if ms_rec.stack else None
        report.error = f"{where or 'outside any cell'}: {type(exc).__name__}: {_line(exc)}"
        if where is not None:
            rows[where] = {"shape": None, "max_abs": None, "max_rel": None, "cosine": None, "within": 0.0,
                           "passed": False, "nonfinite_torch": False, "nonfinite_ms": False, "floor": None,
                           "error": None, "ratio": None, "tier": "error",
                           "note": f"MindSpore raised {type(exc).__name__}"}
            ms_types.setdefault(where, (_path(where), type(_cell_at(ms_model, _path(where))).__name__))
    finally:
        ms_rec.remove()
        if untap is not None:
            untap()
        torch.set_num_threads(torch_threads)
    t_records.clear()
    report.timing["mindspore_s"] = time.perf_counter() - t0
    report.timing["compare_s"] = compare_s[0]  # of mindspore_s: the forward comparisons in the hooks
    report.settings["loss_torch"] = float(loss_t.detach())
    if defer:
        t0 = time.perf_counter()
        try:
            if report.error is None and loss_t.requires_grad:
                if fkinks is not None:
                    fkinks.align()
                loss_t.backward()
        except Exception as exc:  # noqa: BLE001 - the reference itself fails: an input problem
            raise ParityError(f"the torch model raised {type(exc).__name__} in backward: {_line(exc)}") from None
        finally:
            router.remove()
            if fkinks is not None:
                fkinks.begin_torch_run()  # torch's inputs of the recorded calls are let go; MindSpore's bits stay
        report.timing["torch_s"] += time.perf_counter() - t0
        if fkinks is not None and fkinks.flipped["calls"]:
            report.determinism.append(
                f"torch's backward routed as MindSpore routed the kinks of functional calls and tensor methods "
                f"(F.relu, clamp, max, abs...), at {fkinks.flipped['calls']} call(s): {fkinks.flipped['elements']} "
                "element(s) the frameworks put on different sides of the kink (inputs closer than the forward "
                "difference; either decision is a correct float32 evaluation, the reference takes MindSpore's)")
        if router.flipped["layers"]:
            report.determinism.append(
                f"torch's backward routed as MindSpore routed its ReLU / max-pool kinks, at {router.flipped['layers']} "
                f"layer call(s): {router.flipped['relu']} element(s) the frameworks put on different sides of a ReLU "
                f"kink, {router.flipped['pool']} max-pool window(s) whose winner differed (inputs closer than the "
                "forward difference; either decision is a correct float32 evaluation, the reference takes "
                "MindSpore's)")
    del loss_t
    report.settings["loss_ms"] = loss_m
    if backward and report.error is None:
        _unreached(rec, ms_types, seen_grads, grad_rows, grtol, atol, no_params)
        if ms_grads is not None:
            by_id = {id(p): i for i, p in enumerate(trainable)}
            params = dict(ms_model.parameters_and_names())
            t_params = dict(torch_model.named_parameters())
            for e in name_map.entries:
                p = params[e.ms_name]
                if id(p) not in by_id or e.torch_name not in t_params:
                    continue
                tg = t_params[e.torch_name].grad
                tg = np.zeros(tuple(t_params[e.torch_name].shape), np.float32) if tg is None else tg.numpy()
                if e.expand_axis is not None:
                    tg = np.expand_dims(tg, e.expand_axis)
                mg = ms_grads[by_id[id(p)]].asnumpy()
                row = {"name": e.torch_name, "ms_name": e.ms_name, **metrics.compare(tg, mg, grtol, atol)}
                report.grads.append(row)
                if not row["passed"] and reference and row.get("tier") == "float32":
                    stash.add(("param", e.torch_name, e.expand_axis), row, [tg], [mg])
                    screened[e.torch_name] = (tg, mg, e.expand_axis)
        del ms_grads
    for p in torch_model.parameters():
        p.grad = caller_grads.get(p)
    routing: dict = {}
    # ReLU / max-pool layers whose routing in MindSpore is not known (too many elements on other sides, a pool
    # whose winners cannot be read off MindSpore's input, another kink type): torch's backward took its own
    # decisions there
    refused = router.refused if router is not None else set()
    unknown = {k for k, r in rows.items() if t_meta.get(k, (None, ""))[1] in _KINKS and r.get("rms_diff")
               and ((k not in straddles and k not in pool_routes) or k in refused)}
    if screened and report.error is None and unknown:
        # tier 2 where routing is not known: is MindSpore as close to torch as torch is to itself under noise of
        # the observed forward difference at those layers?
        t0 = time.perf_counter()
        routed: dict = {}
        routing = _routing_terms(report, torch_model, inputs, target, loss,
                                 {k: r for k, r in rows.items() if k in unknown}, screened,
                                 {k: v for k, v in straddles.items() if k not in refused}, routed,
                                 {k: v for k, v in pool_routes.items() if k not in refused})
        report.timing["routing_s"] = time.perf_counter() - t0
        _judge_routing(report, stash, screened, routing, routed, grtol, atol)
        del routed
    if stash.items:
        t0 = time.perf_counter()
        kinks = ({k: v[2] for k, v in straddles.items() if k not in refused},
                 {k: v for k, v in pool_routes.items() if k not in refused})
        _reference_pass(report, torch_model, inputs, target, loss, stash, initial, no_params, top_outputs, kinks,
                        fkinks)
        report.timing["reference_s"] = time.perf_counter() - t0
    top_outputs.clear()
    pool_routes.clear()
    straddles.clear()
    for row in report.grads:  # float64 verdicts: the routing term joins the floor
        term = routing.get(row["name"])
        if term and row.get("tier") == "float64" and not row["passed"]:
            floor = row["floor"] + term
            row.update(routing=term, floor=floor, ratio=row["error"] / floor, passed=row["error"] <= floor)
    if (backward and not no_params and report.error is None and any(not g["passed"] for g in report.grads)):
        t0 = time.perf_counter()
        _locate_backward(report, torch_model, ms_model, inputs, target, loss, ms_loss, t_meta, ms_types,
                         grad_rows)
        report.timing["locate_s"] = time.perf_counter() - t0
    if stash.refused:
        report.determinism.append(f"{stash.refused} tensor(s) failing the float32 screen were not re-judged "
                                  f"against float64 (memory budget {STASH_BYTES >> 20} MiB): the screen's verdict "
                                  "stands for them")

    # forward table in torch execution order; one-sided layers listed as unmatched
    for key in order:
        path, typ = t_meta[key]
        if key in rows:
            report.layers.append({"index": len(report.layers), "name": key, "path": path, "type": typ,
                                  "ms_type": ms_types[key][1], **rows[key]})
        elif (report.error is None and path not in report.unmatched["torch"]
              and not any(p == path for p, _ in ms_types.values())):
            report.unmatched["torch"].append(path)
    for key, (path, typ) in ms_types.items():
        if key not in t_meta and path not in report.unmatched["ms"] and report.error is None:
            report.unmatched["ms"].append(path)
    if backward and report.error is None:
        report.layer_grads = grad_rows


def _grad_comparer(rec, t_meta, ms_types, grad_rows, seen_grads, grtol, atol, decisive, stash):
    """MsRecorder's on_grad: compare each MindSpore layer gradient with torch's the moment it arrives, then free
    torch's. ``stash`` (or None) keeps screen failures for the float64 reference."""

    def on_grad(kind, key, path, arrays):
        store = rec.out_grads if kind == "out" else rec.in_grads
        ref = store.get(key, {})
        for i, arr in arrays.items():
            if kind == "out" and (key, i) in rec.shared:
                continue  # the same tensor as a child's output: compared there
            if i in ref:
                tg = ref.pop(i)
                row = metrics.compare(tg, arr, grtol, atol, GRAD_OUTLIERS)
            elif kind == "out" and key in t_meta:
                tg = np.zeros_like(arr)
                row = metrics.compare(tg, arr, grtol, atol, GRAD_OUTLIERS)
                row["note"] = "no gradient reached this output in torch"
            else:
                continue
            seen_grads.add((kind, key, i))
            full = {"name": key, "type": ms_types.get(key, (path, "?"))[1], "kind": kind, "index": i, **row,
                    "decisive": decisive}
            grad_rows.append(full)
            if stash is not None and not row["passed"] and row.get("tier") == "float32" and "note" not in row:
                stash.add((kind, key, i), full, [tg], [arr])

    return on_grad


def _unreached(rec, ms_types, seen_grads, grad_rows, grtol, atol, decisive) -> None:
    """A gradient torch saw at a layer output that never reached MindSpore is a divergence too."""
    for key, grads in rec.out_grads.items():
        for i, g in grads.items():
            if key in ms_types and ("out", key, i) not in seen_grads and (key, i) not in rec.shared:
                row = metrics.compare(g, np.zeros(tuple(g.shape), np.float32), grtol, atol)
                row["note"] = "no gradient reached this output in MindSpore"
                grad_rows.append({"name": key, "type": ms_types[key][1], "kind": "out", "index": i, **row,
                                  "decisive": decisive})
    rec.out_grads.clear()
    rec.in_grads.clear()


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


def _locate_backward(report, torch_model, ms_model, inputs, target, loss, ms_loss, t_meta, ms_types,
                     grad_rows) -> None:
    """Second pass, run only when a parameter gradient failed: forward+backward again on both sides with gradient
    hooks at every layer (no forward comparison), to name the layer where the backward parts. Buffers (BatchNorm
    running statistics) and the caller's gradients are restored on the torch side afterwards."""
    import mindspore as ms
    import torch

    grtol, atol = report.tolerances["grad_rtol"], report.tolerances["atol"]
    buffers = {n: b.detach().clone() for n, b in torch_model.named_buffers()}
    caller_grads = {p: p.grad for p in torch_model.parameters()}
    for p in caller_grads:
        p.grad = None
    rec = TorchRecorder(torch_model, grads=True, outputs=False)
    try:
        out = torch_model(*[torch.from_numpy(np.array(x)) for x in inputs])
        rec.end_forward()
        lt = _torch_loss(loss, out, target)
        del out
        lt.backward()
    finally:
        rec.remove()
        with torch.no_grad():
            for n, b in torch_model.named_buffers():
                b.copy_(buffers[n])
        for p, g in caller_grads.items():
            p.grad = g
    seen: set = set()
    on_grad = _grad_comparer(rec, t_meta, ms_types, grad_rows, seen, grtol, atol, False, None)
    ms_rec = MsRecorder(ms_model, lambda *a: None, on_grad)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        def fwd(*xs):
            return _ms_loss(ms_loss, ms_model(*xs), target)

        loss_m, grads = ms.value_and_grad(fwd, None, ms_model.trainable_params())(
            *[ms.Tensor(np.array(x)) for x in inputs])
        loss_m.asnumpy()
        del grads
    except Exception as exc:  # noqa: BLE001 - it ran once already; a second failure only loses the location
        report.determinism.append(f"second backward pass (layer gradients) failed: {type(exc).__name__}: "
                                  f"{_line(exc)}")
    finally:
        ms_rec.remove()
        torch.set_num_threads(threads)
    _unreached(rec, ms_types, seen, grad_rows, grtol, atol, False)


def _rerecord(torch_model, xs_t, rec, keys) -> None:
    """A second torch forward (no grad, buffers restored) that clones the outputs of ``keys`` as they appear."""
    import torch

    # the buffers (BatchNorm running statistics) are swapped for copies meanwhile, not written back: the first
    # run's graph, whose backward is still to come, saved them and checks their version counters
    held = {}
    for module in torch_model.modules():
        for name, b in module._buffers.items():
            if b is not None:
                held[(module, name)] = b
                module._buffers[name] = b.detach().clone()
    again = TorchRecorder(torch_model, grads=False, want={"fwd": set(keys)}, clone=True)
    try:
        with torch.no_grad():
            torch_model(*[x.detach() for x in xs_t])
    finally:
        again.remove()
        for (module, name), b in held.items():
            module._buffers[name] = b
    for k in keys:
        if k in again.records:
            rec.records[k] = again.records[k]


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


def _train_steps(report, torch_model, ms_model, batches, targets, loss, ms_loss, steps, optimizer, lr, name_map,
                 tick=lambda _n: None):
    """Each step starts both sides from the same state (torch's parameters, buffers and optimizer state copied into
    MindSpore first), so a step is judged on what it does, not on float noise compounded by earlier steps."""
    import mindspore as ms
    import torch
    from mindspore.experimental import optim as ms_optim

    from migrate.weights import torch_to_mindspore

    rtol, atol = report.tolerances["rtol"], report.tolerances["atol"]
    if optimizer == "sgd":
        t_opt = torch.optim.SGD(torch_model.parameters(), lr=lr)
        m_opt = ms_optim.SGD(ms_model.trainable_params(), lr=lr)
    else:
        t_opt = torch.optim.Adam(torch_model.parameters(), lr=lr)
        m_opt = TorchAdam(ms_model.trainable_params(), lr=lr)
        report.determinism.append(
            "Adam on MindSpore uses torch's update (eps added after bias correction); "
            "mindspore.experimental.optim.Adam adds eps before it and differs where |grad| is below ~1e-6")
        report.determinism.append(
            "Adam normalises each element's update, so an element whose gradient sign the frameworks do not agree "
            "on moves in opposite directions: after an Adam step, parameters are compared on the elements whose "
            f"gradients agreed in sign (and within {ADAM_AGREEMENT:g} of torch's) in that step; the others are "
            "counted in each parameter's note")
    grtol = report.tolerances["grad_rtol"]
    report.determinism.append(
        "steps: each step starts both sides from torch's state (parameters, buffers, optimizer moments), so float "
        "noise does not compound; after the step a parameter may differ by what the gradient tolerance allows, "
        "times the learning rate (lr x grad_rtol x max|torch gradient|); a parameter outside that is judged as "
        "gradients are: MindSpore's update must be torch's optimizer applied to MindSpore's gradient (float32 "
        "screen), and that gradient must be within its noise floor (float32 screen, then the float64 reference)")
    judged_steps = {"params": 0, "reference": 0}
    holder = {}

    def fwd(*xs):
        return _ms_loss(ms_loss, ms_model(*xs), holder["target"])

    grad_fn = ms.value_and_grad(fwd, None, ms_model.trainable_params())
    for step in range(1, steps + 1):
        batch, target = batches[(step - 1) % len(batches)], targets[(step - 1) % len(targets)]
        if step > 1:  # the same starting state on both sides
            _assign_to_ms(torch_model.state_dict(), ms_model, name_map)
            if optimizer == "adam":
                m_opt.load_torch_state(t_opt, torch_model, ms_model, name_map)
        start = _snapshot(torch_model)  # the step's starting state, for the float64 reference of its gradients
        opt_state = copy.deepcopy(t_opt.state_dict())
        t_opt.zero_grad()
        lt = _torch_loss(loss, torch_model(*[torch.from_numpy(np.array(x)) for x in batch]), target)
        lt.backward()
        t_grads = {n: (None if p.grad is None else p.grad.numpy().copy()) for n, p in torch_model.named_parameters()}
        slack = {n: lr * grtol * float(np.abs(g).max()) for n, g in t_grads.items() if g is not None and g.size}
        t_opt.step()
        holder["target"] = target
        try:
            lm, grads = grad_fn(*[ms.Tensor(np.array(x)) for x in batch])
            m_opt(grads)
            lm = float(lm.asnumpy())
        except Exception as exc:  # noqa: BLE001
            report.error = f"training step {step}: {type(exc).__name__}: {_line(exc)}"
            break
        undetermined = {}
        if optimizer == "adam":
            _track_undetermined(undetermined, t_grads, grads, ms_model, name_map)
        m_grads = _ms_grads_by_name(grads, ms_model, name_map)
        del grads
        rows = _compare_params(torch_model, ms_model, name_map, rtol, atol, undetermined, slack)
        if any(not r["passed"] for r in rows):
            _judge_step(report, rows, torch_model, ms_model, name_map, t_opt, opt_state, start, t_grads, m_grads,
                        batch, target, loss, judged_steps)
        failed = [r for r in rows if not r["passed"]]
        loss_ok = metrics.compare_scalar(float(lt.detach()), lm, rtol, atol)
        report.steps.append({"step": step, "loss_torch": float(lt.detach()), "loss_ms": lm,
                             "passed": loss_ok and not failed, "loss_passed": loss_ok,
                             "params_failed": len(failed), "first_param": failed[0]["name"] if failed else None,
                             "worst_ratio": max((r["ratio"] for r in rows if r.get("ratio") is not None),
                                                default=0.0)})
        tick(None)
        report.final_params = rows
    if judged_steps["params"]:
        report.determinism.append(
            f"steps: {judged_steps['params']} parameter(s) outside the screen after a step were judged on their "
            f"gradients' noise floors ({judged_steps['reference']} gradient(s) on the float64 reference)")


def _ms_grads_by_name(grads, ms_model, name_map) -> dict:
    """MindSpore's gradients of a step keyed by torch parameter name (torch's layout)."""
    position = {id(p): i for i, p in enumerate(ms_model.trainable_params())}
    params = dict(ms_model.parameters_and_names())
    out = {}
    for e in name_map.entries:
        i = position.get(id(params.get(e.ms_name)))
        if i is not None:
            out[e.torch_name] = (grads[i].asnumpy(), e.expand_axis)
    return out


def _judge_step(report, rows, torch_model, ms_model, name_map, t_opt, opt_state, start, t_grads, m_grads, batch,
                target, loss, counts) -> None:
    """Parameters outside the screen after a step, judged as gradients are (issue: a conv bias before BatchNorm
    has a gradient of pure float noise, and lr x that noise failed a fixed tolerance on a faithful port).

    A parameter after the step is MindSpore's optimizer applied to MindSpore's gradient. It passes when (1) that
    update is torch's optimizer applied to MindSpore's gradient, from the same state (float32 screen: the
    optimizer is right), and (2) MindSpore's gradient is within the noise floor of torch's (the gradient verdict:
    the float32 screen, then the float64 reference of this step's gradients with its sum-of-terms floor)."""
    import types

    import torch

    rtol, atol, grtol = report.tolerances["rtol"], report.tolerances["atol"], report.tolerances["grad_rtol"]
    names = [n for n, _ in torch_model.named_parameters()]
    bad = {r["name"] for r in rows if not r["passed"] and r["name"] in m_grads and t_grads.get(r["name"]) is not None}
    if not bad:
        return
    # (1) torch's optimizer, from the step's starting state, applied to MindSpore's gradients
    shadow = [start[n].detach().clone().requires_grad_(True) for n in names]
    for n, p in zip(names, shadow):
        if n in m_grads:
            p.grad = torch.from_numpy(m_grads[n][0].reshape(tuple(p.shape)).copy())
    try:
        opt = type(t_opt)(shadow, **t_opt.defaults)
        opt.load_state_dict(copy.deepcopy(opt_state))
        opt.step()
    except Exception as exc:  # noqa: BLE001 - no expected update: the screen's verdict stands
        report.determinism.append(f"steps: torch's update of MindSpore's gradients failed ({type(exc).__name__}: "
                                  f"{_line(exc)}): the screen's verdict stands")
        return
    expected = {n: p.detach().numpy() for n, p in zip(names, shadow)}
    params = dict(ms_model.parameters_and_names())
    by_name = {e.torch_name: e for e in name_map.entries}
    # (2) the gradients: the screen, then the float64 reference for those outside it
    grad_rows, stash = {}, _Stash(STASH_BYTES)
    for n in sorted(bad):
        mg, axis = m_grads[n]
        tg = t_grads[n]
        if axis is not None:
            tg = np.expand_dims(tg, axis)
        grow = {"name": n, **metrics.compare(tg, mg.reshape(tg.shape), grtol, atol)}
        grad_rows[n] = grow
        if not grow["passed"] and grow.get("tier") == "float32":
            stash.add(("param", n, axis), grow, [tg], [mg.reshape(tg.shape)])
    if stash.items:
        proxy = types.SimpleNamespace(tolerances=report.tolerances, determinism=[], reference={})
        n_ref = len(stash.items)
        after = _snapshot(torch_model)  # the float64 reference may run early layers on torch's own (_SkipAhead)
        torch_model.load_state_dict(start)
        try:
            _reference_pass(proxy, torch_model, batch, target, loss, stash, start, False)
        finally:
            torch_model.load_state_dict(after)
        counts["reference"] += n_ref
    for row in rows:
        n = row["name"]
        if n not in bad:
            continue
        e = by_name[n]
        m = params[e.ms_name].asnumpy().reshape(expected[n].shape)
        update = metrics.compare(expected[n], m, rtol, atol)
        grow = grad_rows[n]
        counts["params"] += 1
        row["step_update"] = {k: update.get(k) for k in ("floor", "error", "ratio", "passed")}
        row["step_grad"] = {k: grow.get(k) for k in ("floor", "error", "ratio", "passed", "tier")}
        if update["passed"] and grow["passed"]:
            row.update(passed=True, tier=grow.get("tier", "float32"), screen={k: row.get(k) for k in
                                                                               ("floor", "error", "ratio")},
                       floor=grow.get("floor"), error=grow.get("error"),
                       ratio=max(update["ratio"] or 0.0, grow["ratio"] or 0.0),
                       note="differs by lr x a gradient difference within the gradient's noise floor; the update "
                            "is torch's optimizer applied to MindSpore's gradient")
        elif not update["passed"]:
            row["note"] = ("MindSpore's update is not torch's optimizer applied to MindSpore's gradient (the "
                           f"optimizer differs: {update['ratio']:.3g}x)")
        else:
            row["note"] = f"the step's gradient is outside its noise floor ({grow['ratio']:.3g}x, {grow.get('tier')})"


def _assign_to_ms(state, ms_model, name_map) -> None:
    """Copy torch tensors into the MindSpore parameters in place (``ops.assign``): after an experimental optimizer
    has stepped, ``Parameter.set_data`` detaches the parameter from it (measured: later steps left it unchanged)."""
    import mindspore as ms
    import mindspore.ops as ops

    from migrate.weights import _to_ms_layout

    params = dict(ms_model.parameters_and_names())
    for e in name_map.entries:
        if e.torch_name in state:
            p = params[e.ms_name]
            arr = _to_ms_layout(state[e.torch_name].detach().numpy().copy(), e).reshape(tuple(p.shape))
            ops.assign(p, ms.Tensor(arr.astype(np.float32) if arr.dtype == np.float64 else arr))


class TorchAdam:
    """torch.optim.Adam's update (defaults betas=(0.9, 0.999), eps=1e-8) applied to MindSpore
    parameters, step for step in torch's order of operations (float32 numpy)."""

    def __init__(self, params, lr, betas=(0.9, 0.999), eps=1e-8):
        self.params, self.lr, self.betas, self.eps, self.t = list(params), lr, betas, eps, 0
        self.m = [np.zeros(tuple(p.shape), np.float32) for p in self.params]
        self.v = [np.zeros(tuple(p.shape), np.float32) for p in self.params]

    def load_torch_state(self, t_opt, torch_model, ms_model, name_map) -> None:
        """Take torch's moments and step count (each step then starts from the same optimizer state)."""
        by_torch = {e.ms_name: e.torch_name for e in name_map.entries}
        t_params = dict(torch_model.named_parameters())
        names = {id(p): n for n, p in ms_model.parameters_and_names()}
        for i, p in enumerate(self.params):
            tp = t_params.get(by_torch.get(names.get(id(p)), ""), None)
            state = t_opt.state.get(tp) if tp is not None else None
            if not state:
                continue
            self.m[i] = state["exp_avg"].detach().numpy().reshape(self.m[i].shape).copy()
            self.v[i] = state["exp_avg_sq"].detach().numpy().reshape(self.v[i].shape).copy()
            self.t = int(float(state["step"]))

    def __call__(self, grads):
        import mindspore as ms

        b1, b2 = self.betas
        self.t += 1
        step_size = self.lr / (1 - b1 ** self.t)
        bc2_sqrt = (1 - b2 ** self.t) ** 0.5
        for p, m, v, g in zip(self.params, self.m, self.v, grads):
            g = g.asnumpy()
            m += (g - m) * np.float32(1 - b1)  # lerp_, as torch
            v *= np.float32(b2)
            v += np.float32(1 - b2) * g * g
            denom = np.sqrt(v) / np.float32(bc2_sqrt) + np.float32(self.eps)
            p.set_data(ms.Tensor(p.asnumpy() - np.float32(step_size) * m / denom))


def _track_undetermined(undetermined: dict, t_grads: dict, ms_grads, ms_model, name_map) -> None:
    """Mark (cumulatively) the elements whose gradients the frameworks disagree on (see ADAM_AGREEMENT)."""
    position = {id(p): i for i, p in enumerate(ms_model.trainable_params())}
    params = dict(ms_model.parameters_and_names())
    for e in name_map.entries:
        tg = t_grads.get(e.torch_name)
        i = position.get(id(params.get(e.ms_name)))
        if tg is None or i is None:
            continue
        mg = ms_grads[i].asnumpy().reshape(tg.shape)
        bad = (np.sign(tg) != np.sign(mg)) | (np.abs(tg - mg) > ADAM_AGREEMENT * np.abs(tg))
        undetermined[e.torch_name] = bad | undetermined.get(e.torch_name, False)


def _compare_params(torch_model, ms_model, name_map, rtol, atol, undetermined=None, slack=None) -> list:
    """Parameters and buffers after a step; ``undetermined`` masks elements out of the comparison (Adam),
    ``slack`` adds to a parameter's absolute tolerance (the gradient tolerance carried through the updates)."""
    sd = torch_model.state_dict()
    params = dict(ms_model.parameters_and_names())
    rows = []
    for e in name_map.entries:
        if e.torch_name not in sd:
            continue
        t = sd[e.torch_name].detach().numpy()
        m = params[e.ms_name].asnumpy().reshape(t.shape)
        mask = (undetermined or {}).get(e.torch_name)
        note = None
        if mask is not None and mask.any():
            note = (f"{int(mask.sum())} of {mask.size} elements not compared: their gradients disagreed in sign "
                    "between the frameworks (float noise that Adam's normalised update amplifies)")
            t, m = t[~mask], m[~mask]
        if e.expand_axis is not None and mask is None:
            t, m = np.expand_dims(t, e.expand_axis), np.expand_dims(m, e.expand_axis)
        row = {"name": e.torch_name, "ms_name": e.ms_name,
               **metrics.compare(t, m, rtol, atol + (slack or {}).get(e.torch_name, 0.0))}
        if note:
            row["note"] = note
        rows.append(row)
    return rows


def _conclude(report) -> None:
    fd = report.first_divergence
    fd["forward"] = next((r["name"] for r in report.layers if not r["passed"]), None)
    # backward: the layer that turned a matching output gradient into a mismatching input gradient
    order, out_ok, in_bad = [], {}, set()
    for r in report.layer_grads:
        if r["name"] not in order:
            order.append(r["name"])
        if r["kind"] == "out":
            out_ok[r["name"]] = out_ok.get(r["name"], True) and r["passed"]
        elif not r["passed"]:
            in_bad.add(r["name"])
    cands = [k for k in order if k in in_bad and out_ok.get(k, True)]
    chosen = cands[0] if cands else next((r["name"] for r in report.layer_grads if not r["passed"]), None)
    if not any(not g["passed"] for g in report.grads + report.layer_grads if g.get("decisive", True)):
        chosen = None  # layer gradients outside the screen that no parameter gradient confirms: noise (kinks)
    while chosen is not None:
        deeper = [c for c in cands if _path(c).startswith(_path(chosen) + ".") or
                  (_path(chosen) == ROOT and c != chosen)]
        if not deeper:
            break
        chosen = deeper[0]
    fd["backward"] = chosen
    fd["backward_param"] = next((g["name"] for g in report.grads if not g["passed"]), None)
    bad_step = next((s for s in report.steps if not s["passed"]), None)
    if bad_step:
        fd["step"] = bad_step["step"]
        fd["step_detail"] = ("loss differs" if not bad_step["loss_passed"] else
                             f"{bad_step['params_failed']} parameter(s) differ after the update, first "
                             f"{bad_step['first_param']}")
    report.passed = (report.error is None and all(r["passed"] for r in report.layers)
                     and all(g["passed"] for g in report.grads)
                     and all(g["passed"] for g in report.layer_grads if g.get("decisive", True))
                     and all(s["passed"] for s in report.steps))


# ------------------------------------------------------------------------------ helpers
# Layers that are random in train mode and the identity in eval mode, by class name (the class or a base):
# dropout of every kind (torch's _DropoutNd, AlphaDropout, timm's PatchDropout, MindSpore's Dropout*), drop-path /
# stochastic depth (torchvision's StochasticDepth, timm's DropPath) and DropBlock (timm's DropBlock2d). Converted
# code keeps torch's class names, so one rule finds them on both sides. Their random draws cannot agree between two
# frameworks' generators; what parity compares is everything else in train mode (BatchNorm's batch statistics).
RANDOM_IN_TRAIN = re.compile(r"Drop(out|Path|Block)|StochasticDepth")


def _random_in_train(obj) -> bool:
    return any(RANDOM_IN_TRAIN.search(k.__name__) for k in type(obj).__mro__)


def _names(names) -> str:
    return ", ".join(names) or "-"


def _make_deterministic(torch_model, ms_model) -> list:
    import torch

    notes = []
    t_drop = [n for n, m in torch_model.named_modules()
              if isinstance(m, torch.nn.modules.dropout._DropoutNd) or _random_in_train(m)]
    for n in t_drop:
        torch_model.get_submodule(n).eval()
    m_drop = [n for n, c in ms_model.cells_and_names() if _random_in_train(c)]
    for n in m_drop:
        _cell_at(ms_model, n).set_train(False)
    if t_drop or m_drop:
        notes.append(f"dropout, drop-path / stochastic depth and DropBlock layers (random in train mode) disabled on "
                     f"both sides while BatchNorm trains (torch: {_names(t_drop)}; MindSpore: {_names(m_drop)}); "
                     "functional dropout calls inside forward/construct are not disabled")
    inplace = [n or ROOT for n, m in torch_model.named_modules() if getattr(m, "inplace", None) is True]
    for n in inplace:
        torch_model.get_submodule(n if n != ROOT else "").inplace = False
    if inplace:
        notes.append(f"torch inplace=True turned off (same values, lets hooks see each output): {', '.join(inplace)}")
    return notes


def _check_weights(weights: dict, ref: dict) -> None:
    """One clear line for weights that do not fit the torch model (torch's own message is many lines)."""
    for k, v in weights.items():
        if k in ref and tuple(v.shape) != tuple(ref[k].shape):
            raise ParityError(f"weights: {k}: shape {tuple(v.shape)} does not fit the torch model's {tuple(ref[k].shape)}")
    missing = [k for k in ref if k not in weights]
    extra = [k for k in weights if k not in ref]
    if missing or extra:
        raise ParityError("weights do not match the torch model: "
                          + (f"missing {', '.join(missing[:5])} " if missing else "")
                          + (f"unexpected {', '.join(extra[:5])}" if extra else ""))


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


def _combine(t_outs, m_arrays, rtol, atol) -> dict:
    """Metrics over a layer's outputs: the worst of each measure."""
    if len(t_outs) != len(m_arrays) or not t_outs:
        return {"shape": [list(o.shape) for o in t_outs][:1][0] if t_outs else None, "max_abs": None,
                "max_rel": None, "cosine": None, "within": 0.0, "passed": False, "floor": None, "error": None,
                "ratio": None, "tier": "outputs",
                "note": f"torch gives {len(t_outs)} output tensor(s), MindSpore {len(m_arrays)}"}
    rows = [metrics.compare(t, m, rtol, atol) for t, m in zip(t_outs, m_arrays)]
    if len(rows) == 1:
        return rows[0]
    worst = dict(rows[0])
    if any(r.get("nonfinite") for r in rows):
        worst["nonfinite"] = True
    for r in rows[1:]:
        for k, pick in (("max_abs", max), ("max_rel", max), ("scaled_err", max), ("cosine", min), ("within", min),
                        ("ratio", max)):
            if worst.get(k) is None or r.get(k) is None:
                worst[k] = None
            else:
                worst[k] = pick(worst[k], r[k])
        worst["passed"] = worst["passed"] and r["passed"]
        worst["floor"] = min(worst["floor"], r["floor"]) if None not in (worst.get("floor"), r.get("floor")) else None
        worst["error"] = max(worst["error"], r["error"]) if None not in (worst.get("error"), r.get("error")) else None
        if r.get("note"):
            worst["note"] = r["note"]
    return worst


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
