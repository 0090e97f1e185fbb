"""Recording: torch's hooked forward, MindSpore's hooked forward + backward compared as it runs, torch's backward
routed as MindSpore routed its kinks, the parameter gradients; then the judging of what failed the float32 screen
(routing run, float64 reference) and, when a parameter gradient still fails, the second pass that locates the
backward divergence (layer gradients)."""
from __future__ import annotations

import time

import numpy as np

from . import metrics
from .hooks import ROOT, MsRecorder, TorchRecorder
from .kinks import FunctionalKinks
from .reference import _reference_pass
from .routing import (_KINKS, _POOL_KINKS, _SIGN_KINKS, _judge_routing, _KinkRouter, _pool_winners, _routing_terms,
                      _straddles)
from .state import (GRAD_OUTLIERS, STASH_BYTES, ParityError, Run, _cell_at, _line, _ms_loss, _path, _same_storage,
                    _Stash, _torch_loss)
from .verdict import _combine, layer_tables


def record(run: Run) -> None:
    """Forward and backward on both sides, compared as MindSpore runs; then what failed the float32 screen is judged
    (routing term, float64 reference), a failing backward located, and the forward table built (verdict.py)."""
    report, torch_model = run.report, run.torch_model
    run.stash = _Stash(STASH_BYTES)
    run.no_params = not any(p.requires_grad for p in torch_model.parameters())
    # gradients left on the parameters by the caller (a training step, a warm-up) would add to this backward's:
    # set aside, put back once compared
    caller_grads = {p: p.grad for p in torch_model.parameters() if p.grad is not None}
    for p in caller_grads:
        p.grad = None
    _torch_forward(run)
    ms_grads, trainable = _ms_forward_backward(run)
    if run.defer:
        _torch_backward(run)
    run.loss_t = None
    if run.backward and report.error is None:
        _unreached(run.rec, run.ms_types, run.seen_grads, run.grad_rows, run.grtol, run.atol, run.no_params)
        if ms_grads is not None:
            _param_grads(run, ms_grads, trainable)
        del ms_grads
    for p in torch_model.parameters():
        p.grad = caller_grads.get(p)
    _judge_screened(run)
    if (run.backward and not run.no_params and report.error is None and any(not g["passed"] for g in report.grads)):
        t0 = time.perf_counter()
        _locate_backward(report, torch_model, run.ms_model, run.inputs, run.target, run.loss, run.ms_loss, run.t_meta,
                         run.ms_types, run.grad_rows)
        report.timing["locate_s"] = time.perf_counter() - t0
    if run.stash.refused:
        report.determinism.append(f"{run.stash.refused} tensor(s) failing the float32 screen were not re-judged "
                                  f"against float64 (memory budget {STASH_BYTES >> 20} MiB): the screen's verdict "
                                  "stands for them")
    layer_tables(run)


def _torch_forward(run: Run) -> None:
    """torch's forward with every module hooked (and, when its backward is deferred, its kinks made routable)."""
    import torch

    report, torch_model = run.report, run.torch_model
    xs_t = [torch.from_numpy(np.array(x)) for x in run.inputs]
    if run.backward and run.no_params:  # a parameter-free model: the gradient flows to the inputs
        xs_t = [x.requires_grad_(True) if x.is_floating_point() else x for x in xs_t]
    run.xs_t = xs_t
    # layer gradients (hooks at every layer output and input, both sides) locate a backward divergence; the
    # parameter gradients decide it (see _conclude). So they are recorded in this first pass only when there are
    # no parameters (then they decide); otherwise a second pass records them only if a parameter gradient fails
    # (_locate_backward): a faithful port pays for neither torch's stored gradients nor MindSpore's backward hooks.
    run.layer_hooks = run.backward and run.no_params
    rec = run.rec = TorchRecorder(torch_model, grads=run.layer_hooks)
    # with parameters, torch's backward waits until MindSpore has run: it is then routed through every ReLU-like
    # and max-pool layer as MindSpore routed it (_KinkRouter), so torch's one run is the reference for both
    run.defer = run.backward and not run.no_params
    router = run.router = _KinkRouter(torch_model) if run.defer else None
    # the same for kinks decided by functional calls and tensor methods (F.relu, x.clamp(min=0), torch.max(a, b))
    fkinks = run.fkinks = FunctionalKinks() if run.defer else None
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
        loss_t = _torch_loss(run.loss, out_t, run.target)
        if run.backward and not run.defer and loss_t.requires_grad:
            loss_t.backward()
        del out_t
    except Exception as exc:  # noqa: BLE001 - the reference itself fails: an input problem
        if router is not None:
            router.remove()
        raise ParityError(f"the torch model raised {type(exc).__name__}: {_line(exc)}") from None
    finally:
        rec.remove()
    run.loss_t = loss_t
    report.timing["torch_s"] = time.perf_counter() - t0
    if mutated:  # outputs changed in place after their layer returned: record those again, cloned
        _rerecord(torch_model, xs_t, rec, mutated)
        report.determinism.append(f"{len(mutated)} layer output(s) are changed in place after the layer returns "
                                  f"(e.g. `out += identity`): recorded again, cloned, in a second torch forward "
                                  f"({', '.join(mutated[:4])}{' ...' if len(mutated) > 4 else ''})")
    run.t_records = rec.records
    run.order = list(run.t_records)
    run.t_meta = {k: (path, typ) for k, (path, typ, _) in run.t_records.items()}


def _forward_comparer(run: Run, ms_rec_box: list):
    """MsRecorder's on_forward: compare each MindSpore layer output with torch's the moment it exists, then free
    torch's; note where the two put elements on different sides of a kink (the router takes MindSpore's side)."""
    report, torch_model, router, rec = run.report, run.torch_model, run.router, run.rec
    rtol, atol = run.rtol, run.atol
    t_records, t_meta, rows, ms_types = run.t_records, run.t_meta, run.rows, run.ms_types
    keep_top = run.backward and run.reference and not run.no_params
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
            run.top_outputs[key] = ref[2][0]  # a call the root made: the float64 reference may start after it
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
        ms_rec = ms_rec_box[0]
        if t_meta[key][1] in _SIGN_KINKS and len(ref[2]) == len(arrays) == 1:
            found = _straddles(torch_model, t_meta[key], ref[2][0], arrays[0])
            if found is not None:
                run.straddles[key] = found
                if router is not None and found[0].numel():
                    router.decisions[key] = ("relu", found[0], found[3])
        elif t_meta[key][1] in _POOL_KINKS and len(ref[2]) == len(arrays) == 1 and ms_rec.inputs:
            won = _pool_winners(torch_model, t_meta[key], ms_rec.inputs[0], arrays[0], ref[2][0])
            if won is not None:
                run.pool_routes[key] = won
                if router is not None:
                    router.decisions[key] = ("pool", won)
        if not row["passed"] and run.reference and row.get("tier") == "float32":
            run.stash.add(("fwd", key), row, ref[2], arrays)

    return on_forward, compare_s


def _ms_forward_backward(run: Run):
    """MindSpore's forward + backward with every cell hooked, each layer compared as it runs. Returns MindSpore's
    parameter gradients (or None) and its trainable parameters."""
    import mindspore as ms
    import torch

    report, ms_model, fkinks = run.report, run.ms_model, run.fkinks
    box: list = [None]
    on_forward, compare_s = _forward_comparer(run, box)
    on_grad = _grad_comparer(run.rec, run.t_meta, run.ms_types, run.grad_rows, run.seen_grads, run.grtol, run.atol,
                             run.no_params, run.stash if run.reference and run.no_params else None)
    t_meta = run.t_meta
    ms_rec = box[0] = MsRecorder(
        ms_model, on_forward, on_grad if run.layer_hooks else None,
        want_inputs=lambda k: k in t_meta and t_meta[k][1] in _POOL_KINKS and run.backward)
    # torch's thread pool fighting MindSpore's made the metrics 20x slower: one torch thread meanwhile
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    xs_m = [ms.Tensor(np.array(x)) for x in run.inputs]
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
            return _ms_loss(run.ms_loss, out, run.target)

        if run.backward and trainable:
            loss_m, ms_grads = ms.value_and_grad(fwd, None, trainable)(*xs_m)
        elif run.backward and any(x.dtype in (ms.float32, ms.float16, ms.float64) for x in xs_m):
            loss_m, _ = ms.value_and_grad(fwd, tuple(range(len(xs_m))))(*xs_m)
        else:
            loss_m = fwd(*xs_m)
        loss_m = float(loss_m.asnumpy())
    except Exception as exc:  # noqa: BLE001 - a failing port is a finding, not a crash
        where = ms_rec.stack[-1] if ms_rec.stack else None
        report.error = f"{where or 'outside any cell'}: {type(exc).__name__}: {_line(exc)}"
        if where is not None:
            run.rows[where] = {"shape": None, "max_abs": None, "max_rel": None, "cosine": None, "within": 0.0,
                               "passed": False, "nonfinite_torch": False, "nonfinite_ms": False, "floor": None,
                               "error": None, "ratio": None, "tier": "error",
                               "note": f"MindSpore raised {type(exc).__name__}"}
            run.ms_types.setdefault(where, (_path(where), type(_cell_at(ms_model, _path(where))).__name__))
    finally:
        ms_rec.remove()
        if untap is not None:
            untap()
        torch.set_num_threads(torch_threads)
    report.first_nonfinite["torch"] = _first_nonfinite_torch(run)
    run.t_records.clear()
    report.timing["mindspore_s"] = time.perf_counter() - t0
    report.timing["compare_s"] = compare_s[0]  # of mindspore_s: the forward comparisons in the hooks
    report.settings["loss_torch"] = float(run.loss_t.detach())
    report.settings["loss_ms"] = loss_m
    return ms_grads, trainable


def _first_nonfinite_torch(run: Run):
    """The first torch layer call whose output holds NaN / Inf. A compared one says so in its row (the screen finds
    NaN / Inf on either side on its way; its finiteness checks then run for that row alone); only the calls left
    uncompared (no MindSpore counterpart, or MindSpore stopped before them) are scanned here. (A scan of every
    output, right after torch's forward, was 1.4 s of a 27 s parity run on the benchmark U-Net.)"""
    for key in run.order:
        outs = run.t_records.get(key)
        if outs is not None:
            if any(metrics.nonfinite(o) for o in outs[2]):
                return key
        elif run.rows.get(key, {}).get("nonfinite_torch"):
            return key
    return None


def _torch_backward(run: Run) -> None:
    """torch's deferred backward, routed through its kinks as MindSpore routed them."""
    report, fkinks, router, loss_t = run.report, run.fkinks, run.router, run.loss_t
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


def _param_grads(run: Run, ms_grads, trainable) -> None:
    """Parameter gradients, paired through the weights' name map; screen failures stashed for the reference."""
    import torch

    # one torch thread, as for the forward comparisons: the screen's element-wise passes are memory-bound, and a
    # second thread that waits for a busy core at every op's barrier made them 9x slower (measured on the 64
    # parameter gradients of the benchmark U-Net at base 32, a loaded 2-core machine: 4.0 s, 0.44 s on one thread)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        _param_rows(run, ms_grads, trainable)
    finally:
        torch.set_num_threads(threads)


def _param_rows(run: Run, ms_grads, trainable) -> None:
    report = run.report
    by_id = {id(p): i for i, p in enumerate(trainable)}
    params = dict(run.ms_model.parameters_and_names())
    t_params = dict(run.torch_model.named_parameters())
    for e in run.name_map.entries:
        p = params[e.ms_name]
        if id(p) not in by_id or e.torch_name not in t_params:
            continue
        tg = t_params[e.torch_name].grad
        tg = np.zeros(tuple(t_params[e.torch_name].shape), np.float32) if tg is None else tg.numpy()
        if e.expand_axis is not None:
            tg = np.expand_dims(tg, e.expand_axis)
        mg = ms_grads[by_id[id(p)]].asnumpy()
        row = {"name": e.torch_name, "ms_name": e.ms_name, **metrics.compare(tg, mg, run.grtol, run.atol)}
        report.grads.append(row)
        if not row["passed"] and run.reference and row.get("tier") == "float32":
            run.stash.add(("param", e.torch_name, e.expand_axis), row, [tg], [mg])
            run.screened[e.torch_name] = (tg, mg, e.expand_axis)


def _judge_screened(run: Run) -> None:
    """What failed the float32 screen: a routing term where MindSpore's routing is not known (routing.py), then the
    float64 reference (reference.py); the routing term joins a float64 verdict's floor."""
    report, torch_model, router = run.report, run.torch_model, run.router
    rows, straddles, pool_routes, stash = run.rows, run.straddles, run.pool_routes, run.stash
    routing: dict = {}
    # ReLU / max-pool layers whose routing in MindSpore is not known (too many elements on other sides, a pool
    # whose winners cannot be read off MindSpore's input, another kink type): torch's backward took its own
    # decisions there
    refused = router.refused if router is not None else set()
    unknown = {k for k, r in rows.items() if run.t_meta.get(k, (None, ""))[1] in _KINKS and r.get("rms_diff")
               and ((k not in straddles and k not in pool_routes) or k in refused)}
    if run.screened and report.error is None and unknown:
        # tier 2 where routing is not known: is MindSpore as close to torch as torch is to itself under noise of
        # the observed forward difference at those layers?
        t0 = time.perf_counter()
        routed: dict = {}
        routing = _routing_terms(report, torch_model, run.inputs, run.target, run.loss,
                                 {k: r for k, r in rows.items() if k in unknown}, run.screened,
                                 {k: v for k, v in straddles.items() if k not in refused}, routed,
                                 {k: v for k, v in pool_routes.items() if k not in refused})
        report.timing["routing_s"] = time.perf_counter() - t0
        _judge_routing(report, stash, run.screened, routing, routed, run.grtol, run.atol)
        del routed
    if stash.items:
        t0 = time.perf_counter()
        kinks = ({k: v[2] for k, v in straddles.items() if k not in refused},
                 {k: v for k, v in pool_routes.items() if k not in refused})
        _reference_pass(report, torch_model, run.inputs, run.target, run.loss, stash, run.initial, run.no_params,
                        run.top_outputs, kinks, run.fkinks)
        report.timing["reference_s"] = time.perf_counter() - t0
    run.top_outputs.clear()
    pool_routes.clear()
    straddles.clear()
    run.routing = routing
    for row in report.grads:  # float64 verdicts: the routing term joins the floor
        term = routing.get(row["name"])
        if term and row.get("tier") == "float64" and not row["passed"]:
            floor = row["floor"] + term
            row.update(routing=term, floor=floor, ratio=row["error"] / floor, passed=row["error"] <= floor)


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
