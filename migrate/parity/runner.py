"""Run a torch model and its MindSpore port on identical inputs and weights, layer by layer.

Phases (both frameworks eager, train mode, dropout disabled):

1. weights: torch -> MindSpore through ``migrate.weights.torch_to_mindspore`` (the name map is
   reused to pair parameter gradients);
2. forward + backward on torch with every module hooked (``hooks.TorchRecorder``);
3. forward + backward on MindSpore with every cell hooked; each layer is compared the moment it has
   run (``hooks.MsRecorder``), so a failing op is blamed on the right layer;
4. optionally N optimizer steps from the same initial weights with torch semantics on both sides
   (MindSpore: ``mindspore.experimental.optim.SGD``; for Adam :class:`TorchAdam`, torch's exact
   update, because ``experimental.optim.Adam`` adds eps before the bias correction), comparing the
   loss and every parameter and buffer (BatchNorm running statistics included) after each step.

``compare`` returns a :class:`~migrate.parity.report.ParityReport`; ``assert_parity`` raises
``AssertionError`` with the terminal table when parity does not hold.
"""
from __future__ import annotations

import numpy as np

from . import metrics
from .hooks import ROOT, MsRecorder, TorchRecorder, flatten
from .report import ParityReport

OPTIMIZERS = ("sgd", "adam")
# Adam normalises each element's update (the first step moves every element by lr * sign(grad)), so an element whose
# gradient the two frameworks do not agree on in sign - a gradient at float-noise level, e.g. a conv bias before
# BatchNorm or a weight behind a ReLU that is almost never active - moves in opposite directions. Such elements are
# "undetermined": an element is determined while, at every step so far, both gradients have the same sign and differ
# by less than ADAM_AGREEMENT of torch's (a gradient near Adam's eps with a few % error already moves the element by a
# few % of lr). Parameters are compared on their determined elements. Buffers (BatchNorm running statistics) are
# compared whole, so after a few Adam steps the undetermined elements' drift can still show there: compare training
# steps with SGD (--optimizer sgd) to check a port's step mechanics exactly.
ADAM_AGREEMENT = 0.01
# layer gradients: share of elements that may sit on the other side of a ReLU / max-pool kink
# (measured: a faithful U-Net at 2x32x256x256 had a few such elements in the last ReLU's input grad)
GRAD_OUTLIERS = 1e-5


class ParityError(ValueError):
    """Bad input to a parity run (the torch side fails, weights do not fit): one line for the user."""


# ------------------------------------------------------------------------------ public API
def compare(torch_model, ms_model, inputs, *, target=None, loss=None, ms_loss=None, steps: int = 0,
            optimizer: str = "sgd", lr: float = 1e-3, rtol: float = 1e-4, atol: float = 1e-5,
            grad_rtol: float = 1e-2, weights: dict | None = None, backward: bool = True, step_inputs=None,
            step_targets=None) -> ParityReport:
    """Compare ``torch_model`` with ``ms_model`` on ``inputs`` (an array or a list of arrays).

    ``loss`` / ``ms_loss`` are called as ``loss(output, target)`` (``loss(output)`` without a
    target); without them the loss is the sum of all outputs. ``weights`` (a torch state_dict) is
    loaded into ``torch_model`` first; torch's weights are then copied into ``ms_model``.
    ``steps`` optimizer steps follow, on ``step_inputs[i]`` (default: ``inputs`` every step).
    """
    import mindspore as ms
    import torch

    from migrate.weights import WeightsError, map_from_ms_net, torch_to_mindspore

    if optimizer.lower() not in OPTIMIZERS:
        raise ParityError(f"optimizer {optimizer!r} is not supported (choose from {', '.join(OPTIMIZERS)})")
    if (loss is None) != (ms_loss is None):
        raise ParityError("give both loss and ms_loss, or neither (then the loss is the sum of the outputs)")
    inputs = _as_list(inputs)
    report = ParityReport(tolerances={"rtol": rtol, "atol": atol, "grad_rtol": grad_rtol})
    report.settings = {"mode": "train (dropout disabled)", "steps": steps, "optimizer": optimizer.lower(),
                       "lr": lr, "loss": type(loss).__name__ if loss is not None else "sum of outputs",
                       "inputs": [{"shape": list(x.shape), "dtype": str(x.dtype)} for x in inputs]}
    torch_model.train()
    ms_model.set_train(True)
    report.determinism = _make_deterministic(torch_model, ms_model)
    try:
        if weights is not None:
            _check_weights(weights, torch_model.state_dict())
            torch_model.load_state_dict(weights)
        initial = {k: v.detach().clone() for k, v in torch_model.state_dict().items()}
        torch_to_mindspore(initial, ms_model)
    except (WeightsError, RuntimeError) as exc:
        raise ParityError(f"weights: {str(exc).strip().splitlines()[0]}") from None
    name_map = map_from_ms_net(ms_model)

    _forward_backward(report, torch_model, ms_model, inputs, target, loss, ms_loss, backward, name_map)
    if steps and report.error is None:
        torch_model.load_state_dict(initial)
        torch_to_mindspore(initial, ms_model)
        batches = [_as_list(b) for b in step_inputs] if step_inputs else [inputs]
        targets = list(step_targets) if step_targets else [target]
        _train_steps(report, torch_model, ms_model, batches, targets, loss, ms_loss, steps, optimizer.lower(),
                     lr, name_map)
    _conclude(report)
    return report


def assert_parity(torch_model, ms_model, inputs, **kwargs) -> ParityReport:
    """``compare`` and raise ``AssertionError`` (message: the table) unless parity holds."""
    report = compare(torch_model, ms_model, inputs, **kwargs)
    if not report.passed:
        raise AssertionError("\n" + report.table(color=False))
    return report


# ------------------------------------------------------------------------------ phases
def _forward_backward(report, torch_model, ms_model, inputs, target, loss, ms_loss, backward, name_map):
    import mindspore as ms
    import torch

    rtol, atol = report.tolerances["rtol"], report.tolerances["atol"]
    grtol = report.tolerances["grad_rtol"]
    rec = TorchRecorder(torch_model, grads=backward)
    try:
        out_t = torch_model(*[torch.from_numpy(np.array(x)) for x in inputs])
        loss_t = _torch_loss(loss, out_t, target)
        if backward:
            loss_t.backward()
    except Exception as exc:  # noqa: BLE001 - the reference itself fails: an input problem
        raise ParityError(f"the torch model raised {type(exc).__name__}: {_line(exc)}") from None
    finally:
        rec.remove()
    t_records = rec.records
    report.first_nonfinite["torch"] = next(
        (k for k, (_, _, outs) in t_records.items() if any(metrics.nonfinite(o) for o in outs)), None)
    rows: dict = {}
    ms_types: dict = {}

    def on_forward(key, path, typ, arrays):
        ms_types[key] = (path, typ)
        if report.first_nonfinite["ms"] is None and any(metrics.nonfinite(a) for a in arrays):
            report.first_nonfinite["ms"] = key
        ref = t_records.get(key)
        if ref is None:
            return
        rows[key] = _combine(ref[2], arrays, rtol, atol)
        rows[key]["nonfinite_torch"] = any(metrics.nonfinite(o) for o in ref[2])
        rows[key]["nonfinite_ms"] = any(metrics.nonfinite(a) for a in arrays)

    grad_rows: list = []
    seen_grads: set = set()

    def on_grad(kind, key, path, arrays):
        store = rec.out_grads if kind == "out" else rec.in_grads
        ref = store.get(key, {})
        for i, arr in arrays.items():
            if i in ref:
                row = metrics.compare(ref[i], arr, grtol, atol, GRAD_OUTLIERS)
            elif kind == "out" and key in t_records:
                row = metrics.compare(np.zeros_like(arr), arr, grtol, atol, GRAD_OUTLIERS)
                row["note"] = "no gradient reached this output in torch"
            else:
                continue
            seen_grads.add((kind, key, i))
            grad_rows.append({"name": key, "type": ms_types.get(key, (path, "?"))[1], "kind": kind, "index": i,
                              **row})

    ms_rec = MsRecorder(ms_model, on_forward, on_grad if backward else None)
    # torch's thread pool fighting MindSpore's made the metrics 20x slower: one torch thread meanwhile
    torch_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    xs_m = [ms.Tensor(np.array(x)) for x in inputs]
    trainable = ms_model.trainable_params()
    ms_grads, loss_m = None, None
    try:
        def fwd(*xs):
            return _ms_loss(ms_loss, ms_model(*xs), target)

        if backward and trainable:
            loss_m, ms_grads = ms.value_and_grad(fwd, None, trainable)(*xs_m)
        else:
            loss_m = fwd(*xs_m)
        loss_m = float(loss_m.asnumpy())
    except Exception as exc:  # noqa: BLE001 - a failing port is a finding, not a crash
        where = ms_rec.stack[-1] if ms_rec.stack else None
        report.error = f"{where or 'outside any cell'}: {type(exc).__name__}: {_line(exc)}"
        if where is not None:
            rows[where] = {"shape": None, "max_abs": None, "max_rel": None, "cosine": None, "within": 0.0,
                           "passed": False, "nonfinite_torch": False, "nonfinite_ms": False,
                           "note": f"MindSpore raised {type(exc).__name__}"}
            ms_types.setdefault(where, (_path(where), type(_cell_at(ms_model, _path(where))).__name__))
    finally:
        ms_rec.remove()
        torch.set_num_threads(torch_threads)

    # forward table in torch execution order; one-sided layers listed as unmatched
    for key, (path, typ, outs) in t_records.items():
        if key in rows:
            row = rows[key]
            report.layers.append({"index": len(report.layers), "name": key, "path": path, "type": typ,
                                  "ms_type": ms_types[key][1], **row})
        elif (report.error is None and path not in report.unmatched["torch"]
              and not any(p == path for p, _ in ms_types.values())):
            report.unmatched["torch"].append(path)
    for key, (path, typ) in ms_types.items():
        if key not in t_records and path not in report.unmatched["ms"] and report.error is None:
            report.unmatched["ms"].append(path)
    report.settings["loss_torch"] = float(loss_t.detach())
    report.settings["loss_ms"] = loss_m

    if backward and report.error is None:
        # a gradient torch saw at a layer output that never reached MindSpore is a divergence too
        for key, grads in rec.out_grads.items():
            for i, g in grads.items():
                if key in ms_types and ("out", key, i) not in seen_grads:
                    row = metrics.compare(g, np.zeros(tuple(g.shape), np.float32), grtol, atol)
                    row["note"] = "no gradient reached this output in MindSpore"
                    grad_rows.append({"name": key, "type": ms_types[key][1], "kind": "out", "index": i, **row})
        report.layer_grads = grad_rows
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
                row = metrics.compare(tg, ms_grads[by_id[id(p)]].asnumpy(), grtol, atol)
                report.grads.append({"name": e.torch_name, "ms_name": e.ms_name, **row})


def _train_steps(report, torch_model, ms_model, batches, targets, loss, ms_loss, steps, optimizer, lr, name_map):
    import mindspore as ms
    import torch
    from mindspore.experimental import optim as ms_optim

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
            "on moves in opposite directions: after Adam steps, parameters are compared on the elements whose "
            f"gradients agreed in sign (and within {ADAM_AGREEMENT:g} of torch's) at every step; the others are "
            "counted in each parameter's note (buffers such as BatchNorm running stats: all elements)")
    holder, undetermined, slack = {}, {}, {}
    grtol = report.tolerances["grad_rtol"]
    report.determinism.append(
        "after each step a parameter may also differ by what the gradient tolerance allows, times the learning "
        "rate: the allowance grows by lr x grad_rtol x max|torch gradient| per step")

    def fwd(*xs):
        return _ms_loss(ms_loss, ms_model(*xs), holder["target"])

    grad_fn = ms.value_and_grad(fwd, None, ms_model.trainable_params())
    for step in range(1, steps + 1):
        batch, target = batches[(step - 1) % len(batches)], targets[(step - 1) % len(targets)]
        t_opt.zero_grad()
        lt = _torch_loss(loss, torch_model(*[torch.from_numpy(np.array(x)) for x in batch]), target)
        lt.backward()
        t_grads = {n: (None if p.grad is None else p.grad.numpy().copy()) for n, p in torch_model.named_parameters()}
        for n, g in t_grads.items():
            if g is not None and g.size:
                slack[n] = slack.get(n, 0.0) + lr * grtol * float(np.abs(g).max())
        t_opt.step()
        holder["target"] = target
        try:
            lm, grads = grad_fn(*[ms.Tensor(np.array(x)) for x in batch])
            m_opt(grads)
            lm = float(lm.asnumpy())
        except Exception as exc:  # noqa: BLE001
            report.error = f"training step {step}: {type(exc).__name__}: {_line(exc)}"
            break
        if optimizer == "adam":
            _track_undetermined(undetermined, t_grads, grads, ms_model, name_map)
        rows = _compare_params(torch_model, ms_model, name_map, rtol, atol,
                               undetermined if optimizer == "adam" else {}, slack)
        failed = [r for r in rows if not r["passed"]]
        loss_ok = metrics.compare_scalar(float(lt.detach()), lm, rtol, atol)
        report.steps.append({"step": step, "loss_torch": float(lt.detach()), "loss_ms": lm,
                             "passed": loss_ok and not failed, "loss_passed": loss_ok,
                             "params_failed": len(failed), "first_param": failed[0]["name"] if failed else None})
        report.final_params = rows


class TorchAdam:
    """torch.optim.Adam's update (defaults betas=(0.9, 0.999), eps=1e-8) applied to MindSpore
    parameters, step for step in torch's order of operations (float32 numpy)."""

    def __init__(self, params, lr, betas=(0.9, 0.999), eps=1e-8):
        self.params, self.lr, self.betas, self.eps, self.t = list(params), lr, betas, eps, 0
        self.m = [np.zeros(tuple(p.shape), np.float32) for p in self.params]
        self.v = [np.zeros(tuple(p.shape), np.float32) for p in self.params]

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
                     and all(g["passed"] for g in report.grads) and all(g["passed"] for g in report.layer_grads)
                     and all(s["passed"] for s in report.steps))


# ------------------------------------------------------------------------------ helpers
def _make_deterministic(torch_model, ms_model) -> list:
    import torch

    notes = []
    t_drop = [n for n, m in torch_model.named_modules() if isinstance(m, torch.nn.modules.dropout._DropoutNd)]
    for n in t_drop:
        torch_model.get_submodule(n).eval()
    m_drop = [n for n, c in ms_model.cells_and_names() if "Dropout" in type(c).__name__]
    for n in m_drop:
        _cell_at(ms_model, n).set_train(False)
    if t_drop or m_drop:
        notes.append(f"dropout disabled on both sides while BatchNorm trains (torch: {', '.join(t_drop) or '-'}; "
                     f"MindSpore: {', '.join(m_drop) or '-'}); functional dropout calls inside forward/construct "
                     "are not disabled")
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
                "max_rel": None, "cosine": None, "within": 0.0, "passed": False,
                "note": f"torch gives {len(t_outs)} output tensor(s), MindSpore {len(m_arrays)}"}
    rows = [metrics.compare(t, m, rtol, atol) for t, m in zip(t_outs, m_arrays)]
    if len(rows) == 1:
        return rows[0]
    worst = dict(rows[0])
    for r in rows[1:]:
        for k, pick in (("max_abs", max), ("max_rel", max), ("scaled_err", max), ("cosine", min), ("within", min)):
            if worst.get(k) is None or r.get(k) is None:
                worst[k] = None
            else:
                worst[k] = pick(worst[k], r[k])
        worst["passed"] = worst["passed"] and r["passed"]
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
