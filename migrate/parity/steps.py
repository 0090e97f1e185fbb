"""Optimizer steps (``--steps``): each step from the same state on both sides, parameters and buffers compared after
it, and a parameter outside the screen judged on its gradient's noise floor like the gradient verdict
(``_judge_step``)."""
from __future__ import annotations

import copy

import numpy as np

from . import metrics
from .reference import _reference_pass
from .state import STASH_BYTES, _line, _ms_loss, _snapshot, _Stash, _torch_loss


OPTIMIZERS = ("sgd", "adam")


# Adam normalises each element's update (the first step moves every element by lr * sign(grad)), so an element whose
# gradient the two frameworks do not agree on in sign - a gradient at float-noise level, e.g. a conv bias before
# BatchNorm or a weight behind a ReLU that is almost never active - moves in opposite directions. Such elements are
# "undetermined" in that step: both gradients must have the same sign and differ by less than ADAM_AGREEMENT of
# torch's. Parameters are compared on their determined elements; buffers (BatchNorm running statistics) whole. Each
# step starts from torch's state on both sides, so an undetermined element's drift does not carry into later steps.
ADAM_AGREEMENT = 0.01


def _train_steps(report, torch_model, ms_model, batches, targets, loss, ms_loss, steps, optimizer, lr, name_map,
                 tick=lambda _n: None):
    """Each step starts both sides from the same state (torch's parameters, buffers and optimizer state copied into
    MindSpore first), so a step is judged on what it does, not on float noise compounded by earlier steps."""
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
