"""jit parity: does a MindSpore network compute the same thing under ``ms.jit`` as in PyNative?

``jit_parity(net, inputs)`` runs, on identical inputs and identical weights,

1. the forward pass in PyNative and as an ``ms.jit`` function, comparing every output;
2. one training step's gradients (``ms.value_and_grad`` over ``net.trainable_params()`` of
   ``loss_fn(output)``, or of the sum of all outputs) in PyNative and with the whole
   value-and-grad function under ``ms.jit``, comparing the loss and every parameter gradient.

A gradient is *vanished* when it is zero (within ``atol``) under jit but not in PyNative, and
*differs* when it fails ``allclose(jit, eager, rtol, atol)``. Every parameter (moving BN
statistics included) is restored after each run and at the end, and the cell's train/eval
mode is restored, so the check does not change the network. The forward pass runs in the
cell's current mode, the training step in train mode. Networks with random layers active
(dropout in train mode) cannot match and are out of scope.

This executes the user's network.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Sequence

import numpy as np

OK, VANISHED, DIFFERS = "ok", "vanished", "differs"


@dataclass
class TensorCheck:
    """One compared tensor: an output (``output[0]``), the loss, or a parameter gradient."""

    name: str
    status: str
    max_abs_diff: float
    eager_norm: float
    jit_norm: float


@dataclass
class JitParityReport:
    """What ``jit_parity`` found; ``ok`` is the verdict."""

    rtol: float
    atol: float
    outputs: list[TensorCheck] = field(default_factory=list)
    loss: TensorCheck | None = None
    gradients: list[TensorCheck] = field(default_factory=list)
    error: str | None = None

    @property
    def ok(self) -> bool:
        checks = [*self.outputs, *([self.loss] if self.loss else []), *self.gradients]
        return self.error is None and bool(checks) and all(c.status == OK for c in checks)

    @property
    def vanished(self) -> list[str]:
        """Parameters whose gradient is zero under jit but not in PyNative."""
        return [g.name for g in self.gradients if g.status == VANISHED]

    @property
    def differing(self) -> list[str]:
        """Parameters whose gradient differs (vanished ones not included)."""
        return [g.name for g in self.gradients if g.status == DIFFERS]

    def to_dict(self) -> dict:
        data = asdict(self)
        data.update(ok=self.ok, vanished=self.vanished, differing=self.differing)
        return data

    def format_text(self) -> str:
        """A short terminal table: verdict, then every check that is not ok."""
        verdict = "PASS" if self.ok else "FAIL"
        lines = [f"jit parity: {verdict} ({len(self.outputs)} output(s), "
                 f"{len(self.gradients)} gradient(s), rtol={self.rtol:g}, atol={self.atol:g})"]
        if self.error:
            lines.append(f"  error: {self.error}")
        bad = [c for c in [*self.outputs, *([self.loss] if self.loss else []), *self.gradients]
               if c.status != OK]
        if bad:
            width = max(len(c.name) for c in bad)
            lines.append(f"  {'tensor':<{width}}  {'status':<8}  {'max|diff|':>10}  "
                         f"{'|eager|':>10}  {'|jit|':>10}")
            for c in bad:
                lines.append(f"  {c.name:<{width}}  {c.status:<8}  {c.max_abs_diff:>10.3e}  "
                             f"{c.eager_norm:>10.3e}  {c.jit_norm:>10.3e}")
        return "\n".join(lines)


def compare(name: str, eager: np.ndarray, jit: np.ndarray, rtol: float, atol: float) -> TensorCheck:
    """Classify one pair of tensors as ok / vanished / differs."""
    eager = np.asarray(eager, dtype=np.float64)
    jit = np.asarray(jit, dtype=np.float64)
    e_norm, j_norm = float(np.linalg.norm(eager)), float(np.linalg.norm(jit))
    if eager.shape != jit.shape:
        return TensorCheck(name, DIFFERS, float("inf"), e_norm, j_norm)
    diff = float(np.max(np.abs(eager - jit))) if eager.size else 0.0
    if np.all(np.abs(jit) <= atol) and not np.all(np.abs(eager) <= atol):
        status = VANISHED
    elif np.allclose(jit, eager, rtol=rtol, atol=atol, equal_nan=True):
        status = OK
    else:
        status = DIFFERS
    return TensorCheck(name, status, diff, e_norm, j_norm)


def jit_parity(ms_net, inputs: Sequence[Any], loss_fn: Callable | None = None,
               rtol: float = 1e-4, atol: float = 1e-5) -> JitParityReport:
    """Compare ``ms_net`` in PyNative and under ``ms.jit``: outputs and one step's gradients.

    ``inputs``: the positional inputs (MindSpore tensors or numpy arrays).
    ``loss_fn(output) -> scalar``: must itself be compilable by ``ms.jit`` (a plain ``def``,
    no lambda; close over labels). Default: the sum of every output.
    """
    import mindspore as ms

    args = tuple(x if isinstance(x, ms.Tensor) else ms.Tensor(np.asarray(x)) for x in inputs)
    report = JitParityReport(rtol=rtol, atol=atol)
    params = list(ms_net.get_parameters())
    snapshot = [p.asnumpy().copy() for p in params]
    was_training = ms_net.training

    def restore() -> None:
        for p, value in zip(params, snapshot):
            p.set_data(ms.Tensor(value))

    def forward(*xs):
        return ms_net(*xs)

    def objective(*xs):
        out = ms_net(*xs)
        return loss_fn(out) if loss_fn is not None else _sum_outputs(out)

    stage = "PyNative forward"
    try:
        restore()
        eager_out = _flatten(ms_net(*args))
        stage = "jit forward"
        restore()
        jit_out = _flatten(ms.jit(forward)(*args))
        report.outputs = [compare(f"output[{i}]", e, j, rtol, atol)
                          for i, (e, j) in enumerate(zip(eager_out, jit_out))]
        if len(eager_out) != len(jit_out):
            report.error = f"jit forward returned {len(jit_out)} outputs, PyNative {len(eager_out)}"

        ms_net.set_train(True)
        weights = ms_net.trainable_params()
        names = [w.name for w in weights]
        stage = "PyNative training step"
        restore()
        loss_e, grads_e = ms.value_and_grad(objective, None, weights)(*args)
        stage = "jit training step"
        restore()
        loss_j, grads_j = ms.jit(ms.value_and_grad(objective, None, weights))(*args)
        report.loss = compare("loss", loss_e.asnumpy(), loss_j.asnumpy(), rtol, atol)
        report.gradients = [compare(n, e.asnumpy(), j.asnumpy(), rtol, atol)
                            for n, e, j in zip(names, grads_e, grads_j)]
    except Exception as exc:  # a compile or run failure is a finding, not a crash
        first = (str(exc).strip().splitlines() or [""])[0]
        report.error = f"{stage} failed: {type(exc).__name__}: {first}"
    finally:
        restore()
        ms_net.set_train(was_training)
    return report


def _sum_outputs(out):
    if isinstance(out, (tuple, list)):
        total = 0
        for item in out:
            total = total + item.sum()
        return total
    return out.sum()


def _flatten(out) -> list[np.ndarray]:
    if isinstance(out, (tuple, list)):
        return [a for item in out for a in _flatten(item)]
    return [out.asnumpy()]
