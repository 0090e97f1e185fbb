"""Run a torch snippet and its conversion side by side and compare the named results.

A :class:`Case` is a torch snippet, the names of the result variables to compare, and the API it proves. The
harness converts the snippet with the real rewriter, executes both versions in fresh namespaces on the same
inputs (numpy arrays given as torch / MindSpore tensors), copies the weights of every module the setup part
created (``migrate.weights``), and compares dtype, shape and values. It also checks that the conversion report
really converted the declared API, so a case cannot prove an entry it did not exercise.

Snippet layout: code above a ``# @run`` line is setup (imports, module construction); the harness copies
weights between the two parts. Module train/eval modes are aligned (torch modules start in training mode,
MindSpore Cells in inference mode; converting ``model.train()`` calls is the training pass's business).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np

from migrate import convert_source

RUN_MARK = "# @run"


@dataclass
class Case:
    api: str | tuple[str, ...]  # the mapping entry (or entries) this case proves
    code: str
    names: tuple[str, ...] = ("out",)
    inputs: dict = field(default_factory=dict)  # name -> numpy array
    rtol: float = 1e-5
    atol: float = 1e-6
    compare: str = "values"  # "values" | "shape" (random results: shape and dtype only)
    id: str = ""
    why_tolerance: str = ""  # required when rtol/atol are looser than the defaults

    @property
    def apis(self) -> tuple[str, ...]:
        return (self.api,) if isinstance(self.api, str) else tuple(self.api)

    def __str__(self) -> str:
        return self.id or self.apis[0]


def rng_array(*shape, dtype="float32", seed=0, low=None, high=None):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        return rng.integers(low if low is not None else 0, high if high is not None else 5, size=shape).astype(dtype)
    if np.dtype(dtype).kind == "b":
        return rng.random(shape) > 0.5
    return rng.standard_normal(shape).astype(dtype)


def _split(source: str) -> tuple[str, str]:
    if RUN_MARK in source:
        setup, run = source.split(RUN_MARK, 1)
        return setup, run
    return "", source


def _to_numpy(value):
    import mindspore as ms
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().resolve_conj().resolve_neg().numpy()  # ifft of a real input is a lazy conjugate
    if isinstance(value, ms.Tensor):
        return value.asnumpy()
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_to_numpy(v) for v in value) if not hasattr(value, "_fields") else tuple(
            _to_numpy(v) for v in value)
    return value


def _compare(name, t, m, case: Case, path=""):
    label = f"{name}{path}"
    if isinstance(t, tuple) or isinstance(t, list):
        assert isinstance(m, (tuple, list)), f"{label}: torch gave a sequence, MindSpore {type(m).__name__}"
        assert len(t) == len(m), f"{label}: lengths {len(t)} vs {len(m)}"
        for i, (a, b) in enumerate(zip(t, m)):
            _compare(name, a, b, case, f"{path}[{i}]")
        return
    if isinstance(t, np.ndarray):
        assert isinstance(m, np.ndarray), f"{label}: torch gave an array, MindSpore {type(m).__name__}: {m!r}"
        assert t.dtype == m.dtype, f"{label}: dtype {t.dtype} (torch) vs {m.dtype} (MindSpore)"
        assert t.shape == m.shape, f"{label}: shape {t.shape} (torch) vs {m.shape} (MindSpore)"
        if case.compare == "values":
            np.testing.assert_allclose(m, t, rtol=case.rtol, atol=case.atol, err_msg=label)
        return
    if isinstance(t, (bool, int, float)) and isinstance(m, np.ndarray) and m.shape == ():
        m = m.item()
    assert type(t) is type(m) or (isinstance(t, (int, float)) and isinstance(m, (int, float))), (
        f"{label}: {type(t).__name__} (torch) vs {type(m).__name__} (MindSpore)")
    if isinstance(t, float):
        np.testing.assert_allclose(m, t, rtol=case.rtol, atol=case.atol, err_msg=label)
    else:
        assert t == m, f"{label}: {t!r} (torch) vs {m!r} (MindSpore)"


def convert_case(case: Case):
    source = textwrap.dedent(case.code)
    result = convert_source(source, filename=f"<case {case}>")
    assert not result.errors, result.errors
    return source, result


def _copy_weights(torch_ns, ms_ns):
    """Give every MindSpore Cell the weights (and train/eval mode) of the torch module of the same name."""
    import mindspore as ms
    import torch

    from migrate.weights import torch_to_mindspore

    for key, value in torch_ns.items():
        if isinstance(value, torch.nn.Module) and isinstance(ms_ns.get(key), ms.nn.Cell):
            cell = ms_ns[key]
            if cell.get_parameters and list(cell.get_parameters()):  # e.g. a loss's pos_weight is no parameter
                torch_to_mindspore(value.state_dict(), cell)
            cell.set_train(value.training)


def _inject(inputs, framework):
    import mindspore as ms
    import torch

    if framework == "torch":
        return {k: torch.from_numpy(np.array(v)) for k, v in inputs.items()}
    return {k: ms.Tensor(np.array(v)) for k, v in inputs.items()}


def run_case(case: Case) -> str:
    """Convert, run both sides, compare; returns the converted code (for extra assertions)."""
    import torch

    source, result = convert_case(case)
    assert not result.unsupported, "unexpected unsupported: " + "; ".join(
        f"line {u.line} {u.api}: {u.reason}" for u in result.unsupported)
    for api in case.apis:
        assert result.apis.get(api), f"the conversion did not use the mapping for {api}:\n{result.code}"
    if (case.rtol, case.atol) != (1e-5, 1e-6) and case.compare == "values":
        assert case.why_tolerance, "a looser tolerance needs a stated reason"
    t_setup, t_run = _split(source)
    m_setup, m_run = _split(result.code)
    torch.manual_seed(0)
    torch_ns = {"__name__": "torch_case", **_inject(case.inputs, "torch")}
    exec(compile(t_setup, "<torch setup>", "exec"), torch_ns)
    ms_ns = {"__name__": "ms_case", **_inject(case.inputs, "mindspore")}
    exec(compile(m_setup, "<ms setup>", "exec"), ms_ns)
    _copy_weights(torch_ns, ms_ns)
    exec(compile(t_run, "<torch run>", "exec"), torch_ns)
    try:
        exec(compile(m_run, "<ms run>", "exec"), ms_ns)
    except Exception as exc:
        raise AssertionError(f"converted code failed: {type(exc).__name__}: {exc}\n--- converted ---\n"
                             f"{result.code}") from None
    for name in case.names:
        _compare(name, _to_numpy(torch_ns[name]), _to_numpy(ms_ns[name]), case)
    return result.code


def run_case_loud(case: Case, error=Exception) -> str:
    """A case where torch accepts an input and MindSpore raises on it (loud, never a silent difference): the
    conversion uses the case's API, torch runs, the converted code raises ``error``; returns the converted code."""
    import torch

    source, result = convert_case(case)
    assert not result.unsupported, [u.reason for u in result.unsupported]
    for api in case.apis:
        assert result.apis.get(api), f"the conversion did not use the mapping for {api}:\n{result.code}"
    t_setup, t_run = _split(source)
    m_setup, m_run = _split(result.code)
    torch_ns = {"__name__": "torch_case", **_inject(case.inputs, "torch")}
    exec(compile(t_setup + t_run, "<torch>", "exec"), torch_ns)  # torch accepts the input
    ms_ns = {"__name__": "ms_case", **_inject(case.inputs, "mindspore")}
    exec(compile(m_setup, "<ms setup>", "exec"), ms_ns)
    try:
        exec(compile(m_run, "<ms run>", "exec"), ms_ns)
        for name in case.names:
            _to_numpy(ms_ns[name])  # an asynchronous kernel error surfaces when the result is read
    except error:
        return result.code
    raise AssertionError(f"MindSpore did not raise on {case}: the converted code is silently different "
                         f"where torch accepts the input\n{result.code}")


def assert_unsupported(code: str, api: str, reason_part: str = "") -> str:
    """The snippet converts with ``api`` marked unsupported (reason containing ``reason_part``), still parses."""
    import ast

    result = convert_source(textwrap.dedent(code))
    hits = [u for u in result.unsupported if u.api == api]
    assert hits, f"{api} not marked unsupported:\n{result.code}"
    assert reason_part in hits[0].reason, hits[0].reason
    assert f"# msmigrate: unsupported {api}:" in result.code
    ast.parse(result.code)
    return result.code
