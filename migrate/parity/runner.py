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

The phases live beside this module: ``state`` (the run's state, ``Run``), ``recording`` (phases 2-3 and the judging
of screen failures), ``routing`` (kinks), ``reference`` (the float64 tier), ``steps`` (phase 4), ``verdict`` (tables,
first divergence, pass/fail).
"""
from __future__ import annotations

import re
import time

from . import metrics
from .hooks import ROOT
from .recording import record
from .report import ParityReport
from .state import ParityError, Run, _as_list, _cell_at, _close_ms_graph, _snapshot
from .steps import OPTIMIZERS, _train_steps
from .verdict import _conclude


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
    state_dict, MindSpore's parameter arrays) for a repro (repro.py), and so do the inputs of the first divergent
    line (``report.line_capture``, lines.capture_line).
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
        record(Run(report, torch_model, ms_model, inputs, target, loss, ms_loss, backward, reference, name_map,
                   initial))
    finally:
        metrics.SCRATCH.release()
        _close_ms_graph()
    tick(None)
    if lines and report.error is None and any(not r["passed"] for r in report.layers):
        # the forward parted: name the first source line and variable where the values part (lines.py)
        from .lines import locate_lines

        t0 = time.perf_counter()
        report.first_divergence["line"] = locate_lines(torch_model, ms_model, inputs, rtol, atol)
        if keep_start and report.first_divergence["line"]:  # what a standalone repro of that line needs
            from .lines import capture_line

            report.line_capture = capture_line(torch_model, inputs, report.first_divergence["line"])
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
