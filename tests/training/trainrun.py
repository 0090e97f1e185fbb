"""Run a torch training script and its conversion from the same initial weights on the same data.

Script layout: setup (imports, model, criterion, optimizer) above ``# @run``, the training below; it appends
``loss.item()`` to ``losses`` every step. The module weights of the torch setup are copied into the MindSpore
Cells of the same name (without touching train/eval mode: setting it is the converted code's business); then
both run, and per-step losses and final weights are compared.
"""
from __future__ import annotations

import textwrap

import numpy as np

from migrate import convert_source

RUN = "# @run"


def torch_names(code: str) -> list[int]:
    """Lines where converted code names ``torch`` (imports, calls, attributes); a helper's docstring or comment that
    says what torch does is prose, not a dependency."""
    import io
    import tokenize

    return [t.start[0] for t in tokenize.generate_tokens(io.StringIO(code).readline)
            if t.type == tokenize.NAME and t.string == "torch"]


def convert(src: str):
    result = convert_source(textwrap.dedent(src))
    assert not result.errors, result.errors
    return result


def run_both(src: str, inputs: dict, rtol=1e-4, atol=1e-6, allow_unsupported=False, weight_atol=1e-5):
    import mindspore as ms
    import torch

    from migrate.weights import mindspore_to_torch, torch_to_mindspore

    src = textwrap.dedent(src)
    result = convert(src)
    if not allow_unsupported:
        assert not result.unsupported, [(u.line, u.api, u.reason) for u in result.unsupported] + [result.code]
    assert not torch_names(result.code), result.code
    t_setup, t_run = src.split(RUN, 1)
    m_setup, m_run = result.code.split(RUN, 1)
    torch.manual_seed(0)
    tns = {"__name__": "t", **{k: np.array(v) for k, v in inputs.items()}}
    mns = {"__name__": "m", **{k: np.array(v) for k, v in inputs.items()}}
    exec(compile(t_setup, "<torch setup>", "exec"), tns)
    exec(compile(m_setup, "<ms setup>", "exec"), mns)
    pairs = [(k, v, mns[k]) for k, v in tns.items()
             if isinstance(v, torch.nn.Module) and isinstance(mns.get(k), ms.nn.Cell) and list(v.parameters())]
    for _, tm, mm in pairs:
        torch_to_mindspore(tm.state_dict(), mm)
    exec(compile(t_run, "<torch run>", "exec"), tns)
    try:
        exec(compile(m_run, "<ms run>", "exec"), mns)
    except Exception as exc:
        raise AssertionError(f"converted code failed: {type(exc).__name__}: {exc}\n{result.code}") from None
    tl, ml = np.array(tns["losses"]), np.array(mns["losses"], dtype=np.float64)
    assert len(tl) == len(ml) and len(tl) > 0, (tl, ml)
    np.testing.assert_allclose(ml, tl, rtol=rtol, atol=atol, err_msg="per-step losses\n" + result.code)
    for name, tm, mm in pairs:
        ref = {k: v.detach().numpy() for k, v in tm.state_dict().items() if not k.endswith("num_batches_tracked")}
        got = mindspore_to_torch(mm, tm)
        for k, v in ref.items():
            np.testing.assert_allclose(np.asarray(got[k]), v, rtol=rtol, atol=weight_atol, err_msg=f"{name}.{k}")
    return result, tns, mns
