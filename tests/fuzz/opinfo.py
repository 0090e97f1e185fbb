"""Examples from PyTorch's own OpInfo database (``torch.testing._internal.common_methods_invocations.op_db``,
which imports once the small ``expecttest`` package is installed): the sample inputs torch's test suite runs each
op on (broadcasting, 0-d and empty tensors, keyword arguments, tuple dims), written as torch snippets in three
forms: the plain call, ``out=`` (into an empty float32 tensor, when the op supports it; the result and out are
compared) and the in-place method (``x.op_(...)``, when the op has one). Used beside the signature-driven
generator (tests/fuzz/strategies.py) by ``benchmarks/fuzz_mappings.py --opinfo``.
"""
from __future__ import annotations

import functools

import numpy as np
from hypothesis import strategies as st

import re

from .strategies import HEADER, Example, _random_api

_PLAIN = (bool, int, float, str, type(None))


@functools.lru_cache(maxsize=None)
def _ops() -> dict:
    try:
        from torch.testing._internal.common_methods_invocations import op_db
    except ImportError:  # expecttest missing
        return {}
    return {f"torch.{op.name}": op for op in op_db if not op.variant_test_name}


def _source(value, inputs: dict):
    """Source text for one argument (a tensor becomes a named input); None when it cannot be written."""
    import torch

    if isinstance(value, torch.Tensor):
        if value.is_complex() or value.dtype == torch.bfloat16 or value.layout != torch.strided:
            return None
        name = "xyzwvuabcdefgh"[len(inputs)] if len(inputs) < 14 else f"t{len(inputs)}"
        inputs[name] = value.detach().cpu().numpy().copy()
        return name
    if isinstance(value, torch.dtype):
        return str(value)
    if isinstance(value, (tuple, list, torch.Size)):
        parts = [_source(v, inputs) for v in value]
        if any(p is None for p in parts):
            return None
        text = ", ".join(parts)
        return f"[{text}]" if isinstance(value, list) else f"({text}{',' if len(parts) == 1 else ''})"
    if isinstance(value, _PLAIN) and not (isinstance(value, float) and not np.isfinite(value)):
        return repr(value)
    return None


@functools.lru_cache(maxsize=None)
def examples(api: str, limit: int = 40) -> tuple:
    """The OpInfo samples of ``api`` (float32) as Examples, in the plain, out= and in-place forms."""
    import torch

    op = _ops().get(api)
    if op is None:
        return ()
    torch.manual_seed(0)
    out = []
    try:
        samples = list(op.sample_inputs("cpu", torch.float32))[:limit]
    except Exception:
        return ()
    for s in samples:
        inputs: dict = {}
        first = _source(s.input, inputs)
        args = [_source(a, inputs) for a in s.args]
        kwargs = {k: _source(v, inputs) for k, v in s.kwargs.items()}
        if first is None or any(a is None for a in args) or any(v is None for v in kwargs.values()):
            continue
        text = ", ".join([first, *args, *(f"{k}={v}" for k, v in kwargs.items())])
        rest = ", ".join([*args, *(f"{k}={v}" for k, v in kwargs.items())])
        runs = [f"out = {api}({text})\n"]
        if op.supports_out:
            runs.append(f"o = torch.empty(0)\nr = {api}({text}, out=o)\nout = (r, o)\n")
        if op.inplace_variant is not None and isinstance(s.input, torch.Tensor):
            runs.append(f"{first}.{op.name}_({rest})\nout = {first}\n")
        # random results (dropout, attention with dropout_p > 0): shape and dtype only
        p = re.search(r"dropout_p=([-\d.e]+)", text)
        random = _random_api(api) or (p is not None and float(p.group(1)) != 0.0)
        for run in runs:
            out.append(Example(api, f"{HEADER}# @run\n{run}", dict(inputs), (), run=run,
                               compare="shape" if random else "values"))
    return tuple(out)


def opinfo_calls(api: str):
    """A hypothesis strategy drawing the OpInfo examples of ``api`` (None when op_db has none)."""
    found = examples(api)
    return st.sampled_from(found) if found else None
