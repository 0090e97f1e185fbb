"""Run one fuzz example in both frameworks and classify what happened.

The example's torch snippet is converted by the real rewriter (``migrate.convert_source``, cached per snippet
text); both versions run in fresh namespaces on the same inputs; dtype, shape and values of every result are
compared, and a raise on one side only is a finding too. Outcomes:

- ``match``: both ran and agree; ``both_raise``: torch and MindSpore both refuse the call;
- ``refused``: the conversion marked the call unsupported (a refusal with a reason, never wrong numbers);
- ``value`` / ``dtype`` / ``shape``: both ran and disagree (silently wrong numbers: always a bug);
- ``ms_raises``: torch ran, the converted code raised (loud, but the conversion claims the API);
- ``torch_raises``: torch raised, the converted code computed something;
- ``torch_refuses``: torch raised and the MindSpore side was not run (``run_example(..., ms_after_torch_error=
  False)``, what in-process test runs use: MindSpore 2.10 does not validate every input torch refuses and some
  of its kernels then read out of bounds and take the process down: ``F.nll_loss`` on an int64 ``[1]`` input
  with an out-of-range target segfaulted, depending on what ran before in the process; the isolated benchmark
  runs both sides and records such crashes).

Tolerances: float32/float64 compare at rtol 2e-5, atol 1e-5 (transcendental kernels of the two libraries differ by
a few ulps); float16 at rtol/atol 2e-3 (two half-precision ulps: MindSpore computes some float16 kernels in float32
and rounds once, torch rounds per step). Integers and bools compare exactly, nan positions and infinities must
agree.
"""
from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

import numpy as np

from migrate import convert_source

from .strategies import Example

RUN_MARK = "# @run"
SILENT = ("value", "dtype", "shape")


@dataclass
class Outcome:
    kind: str
    detail: str = ""

    @property
    def silent(self) -> bool:
        return self.kind in SILENT


@functools.lru_cache(maxsize=20000)
def _convert(code: str):
    try:
        result = convert_source(code, filename="<fuzz>")
    except Exception as exc:  # noqa: BLE001 - an internal error of the converter is a finding of its own
        return "", "", f"the converter raised {type(exc).__name__}: {str(exc).splitlines()[0][:200]}", None
    refused = "; ".join(f"{u.api}: {u.reason}" for u in result.unsupported)
    errors = "; ".join(str(e) for e in result.errors)
    setup, run = (result.code.split(RUN_MARK, 1) + [""])[:2] if RUN_MARK in result.code else ("", result.code)
    compiled = None
    if not refused and not errors:
        compiled = (compile(setup, "<ms setup>", "exec"), compile(run, "<ms run>", "exec"))
    return result.code, refused, errors, compiled


@functools.lru_cache(maxsize=20000)
def _compile_torch(code: str):
    setup, run = code.split(RUN_MARK, 1) if RUN_MARK in code else ("", code)
    return compile(setup, "<torch setup>", "exec"), compile(run, "<torch run>", "exec")


def converted(example: Example) -> str:
    return _convert(example.code)[0]


def _to_numpy(value):
    import mindspore as ms
    import torch

    if isinstance(value, torch.Tensor):
        return value.detach().resolve_conj().numpy() if not value.is_conj() else value.resolve_conj().numpy()
    if isinstance(value, ms.Tensor):
        return value.asnumpy()
    if isinstance(value, torch.Size):
        return tuple(value)
    if isinstance(value, torch.dtype):
        return str(value).replace("torch.", "")
    if isinstance(value, ms.dtype.Type) if hasattr(ms.dtype, "Type") else False:
        return str(value).lower().replace("mindspore.", "")
    if isinstance(value, (list, tuple)):
        return tuple(_to_numpy(v) for v in value)
    return value


def _tol(dtype) -> tuple[float, float]:
    if dtype == np.float16:
        return 2e-3, 2e-3
    return 2e-5, 1e-5


def _compare(t, m, path="out") -> Outcome | None:
    if isinstance(t, tuple):
        if not isinstance(m, tuple):
            return Outcome("shape", f"{path}: torch gave a sequence, MindSpore {type(m).__name__}")
        if len(t) != len(m):
            return Outcome("shape", f"{path}: {len(t)} items (torch) vs {len(m)} (MindSpore)")
        for i, (a, b) in enumerate(zip(t, m)):
            bad = _compare(a, b, f"{path}[{i}]")
            if bad:
                return bad
        return None
    if isinstance(t, np.ndarray):
        if isinstance(m, (bool, int, float)) and t.shape == ():
            m = np.asarray(m)
        if not isinstance(m, np.ndarray):
            return Outcome("dtype", f"{path}: torch gave a {t.dtype} tensor, MindSpore {type(m).__name__} {m!r}")
        if t.dtype != m.dtype:
            return Outcome("dtype", f"{path}: {t.dtype} (torch) vs {m.dtype} (MindSpore)")
        if t.shape != m.shape:
            return Outcome("shape", f"{path}: {t.shape} (torch) vs {m.shape} (MindSpore)")
        if t.dtype.kind in "fc":
            rtol, atol = _tol(t.dtype)
            with np.errstate(all="ignore"):
                ok = np.isclose(m, t, rtol=rtol, atol=atol, equal_nan=True)
            if not ok.all():
                i = tuple(np.argwhere(~ok)[0])
                return Outcome("value", f"{path}{list(i)}: {t[i]!r} (torch) vs {m[i]!r} (MindSpore), "
                                        f"{int((~ok).sum())} of {ok.size} differ")
        elif not np.array_equal(t, m):
            i = tuple(np.argwhere(t != m)[0])
            return Outcome("value", f"{path}{list(i)}: {t[i]!r} (torch) vs {m[i]!r} (MindSpore)")
        return None
    if isinstance(m, np.ndarray) and m.shape == () and isinstance(t, (bool, int, float)):
        m = m.item()
    if isinstance(t, bool) != isinstance(m, bool) or (isinstance(t, float) and not isinstance(m, float)):
        return Outcome("dtype", f"{path}: {type(t).__name__} {t!r} (torch) vs {type(m).__name__} {m!r} (MindSpore)")
    if isinstance(t, float):
        if not np.isclose(m, t, rtol=2e-5, atol=1e-5, equal_nan=True):
            return Outcome("value", f"{path}: {t!r} (torch) vs {m!r} (MindSpore)")
        return None
    if t != m:
        return Outcome("value", f"{path}: {t!r} (torch) vs {m!r} (MindSpore)")
    return None


def _inject(example: Example):
    import mindspore as ms
    import torch

    t_in, m_in = {}, {}
    for k, v in example.inputs.items():
        if k in example.strided:  # same values, transposed storage: torch sees a non-contiguous view
            t_in[k] = torch.from_numpy(np.ascontiguousarray(v.T)).permute(*reversed(range(v.ndim)))
        else:
            t_in[k] = torch.from_numpy(np.array(v))
        m_in[k] = ms.Tensor(np.array(v))
    return t_in, m_in


def _sync():
    import mindspore as ms

    try:
        ms.runtime.synchronize()
    except Exception:  # an error of the op that just ran surfaces here: it belongs to this example
        raise


def run_example(example: Example, module_hook=None, ms_after_torch_error: bool = True) -> Outcome:
    """Convert ``example``, run both sides, compare. ``module_hook(torch_ns, ms_ns)`` runs between setup and run
    (module cases copy weights there). Torch runs first; with ``ms_after_torch_error=False`` an example torch
    refuses ends there (``torch_refuses``)."""
    import torch

    ms_code, refused, errors, compiled = _convert(example.code)
    if errors:
        return Outcome("convert_error", errors)
    if refused:
        return Outcome("refused", refused)
    t_setup, t_run = _compile_torch(example.code)
    m_setup, m_run = compiled
    t_in, m_in = _inject(example)
    torch.manual_seed(0)
    torch_ns = {"__name__": "torch_fuzz", **t_in}
    ms_ns = {"__name__": "ms_fuzz", **m_in}
    t_exc = m_exc = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exec(t_setup, torch_ns)
            if module_hook is None:
                exec(t_run, torch_ns)
                t_out = [_to_numpy(torch_ns[n]) for n in example.names]
        except Exception as exc:  # noqa: BLE001 - any torch error is "torch refuses this call"
            t_exc = exc
        if module_hook is not None and t_exc is None:
            try:
                exec(m_setup, ms_ns)
                module_hook(torch_ns, ms_ns)
            except Exception as exc:  # noqa: BLE001
                m_exc = exc
            try:
                exec(t_run, torch_ns)
                t_out = [_to_numpy(torch_ns[n]) for n in example.names]
            except Exception as exc:  # noqa: BLE001
                t_exc = exc
            if t_exc is not None and not ms_after_torch_error:
                return Outcome("torch_refuses", f"torch: {_short(t_exc)}")
            try:
                if m_exc is not None:
                    raise m_exc
                exec(m_run, ms_ns)
                m_out = [_to_numpy(ms_ns[n]) for n in example.names]
                _sync()
            except Exception as exc:  # noqa: BLE001
                m_exc = exc
        elif t_exc is not None and not ms_after_torch_error:
            return Outcome("torch_refuses", f"torch: {_short(t_exc)}")
        else:
            try:
                exec(m_setup, ms_ns)
                exec(m_run, ms_ns)
                m_out = [_to_numpy(ms_ns[n]) for n in example.names]
                _sync()
            except Exception as exc:  # noqa: BLE001
                m_exc = exc
    if t_exc is not None:
        if m_exc is not None:
            return Outcome("both_raise", f"torch: {_short(t_exc)} | MindSpore: {_short(m_exc)}")
        return Outcome("torch_raises", f"torch: {_short(t_exc)}")
    if m_exc is not None:
        return Outcome("ms_raises", f"MindSpore: {_short(m_exc)}")
    for name, t, m in zip(example.names, t_out, m_out):
        if example.compare == "shape":
            t, m = _shapes(t), _shapes(m)
        bad = _compare(t, m, name)
        if bad:
            return bad
    return Outcome("match")


def _shapes(v):
    if isinstance(v, tuple):
        return tuple(_shapes(x) for x in v)
    if isinstance(v, np.ndarray):
        return np.zeros(v.shape, v.dtype)
    return v


def _short(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = next((line for line in text if line.strip() and not line.startswith("-")), "")
    return f"{type(exc).__name__}: {first[:200]}"
