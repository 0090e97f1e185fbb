"""Fuzz families beyond the signature-driven calls: Python operators on tensors, mixed-dtype promotion and
modules (construction mode, weight edits). ``FAMILIES`` maps a name to a hypothesis strategy of ``Example``s;
names that are table entries (``torch.nn.BatchNorm1d``) replace the signature-driven generator for that entry.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from .strategies import DTYPES, HEADER, Ctx, Example, broadcast_of, shapes

BINARY = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">", ">=", "@"]
UNARY = ["-{x}", "~{x}", "abs({x})", "+{x}"]
INPLACE = ["+=", "-=", "*=", "/=", "//=", "%=", "&=", "|=", "^=", "**="]
SCALARS = ["2", "-1", "0", "1.5", "-0.0", "True", "3"]


@st.composite
def binary_ops(draw) -> Example:
    op = draw(st.sampled_from(BINARY))
    shape = draw(shapes())
    ctx = Ctx(draw, shape, draw(st.sampled_from(DTYPES)))
    x = ctx.tensor(shape, ctx.dtype)
    form = draw(st.integers(0, 4))
    if op == "@":
        y = ctx.tensor(tuple(reversed(shape)))
        run = f"out = {x} @ {y}\n"
    elif form == 0:
        run = f"out = {x} {op} {draw(st.sampled_from(SCALARS))}\n"
    elif form == 1:
        run = f"out = {draw(st.sampled_from(SCALARS))} {op} {x}\n"
    else:
        y = ctx.tensor(draw(broadcast_of(shape)))
        run = f"out = {x} {op} {y}\n"
    return Example(f"operator:{op}", f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided), run=run)


@st.composite
def unary_ops(draw) -> Example:
    form = draw(st.sampled_from(UNARY))
    shape = draw(shapes())
    ctx = Ctx(draw, shape, draw(st.sampled_from(DTYPES)))
    x = ctx.tensor(shape, ctx.dtype)
    run = f"out = {form.format(x=x)}\n"
    return Example(f"operator:{form.format(x='x')}", f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided), run=run)


@st.composite
def inplace_ops(draw) -> Example:
    op = draw(st.sampled_from(INPLACE))
    shape = draw(shapes())
    ctx = Ctx(draw, shape, draw(st.sampled_from(DTYPES)))
    x = ctx.tensor(shape, ctx.dtype)
    if draw(st.booleans()):
        other = draw(st.sampled_from(SCALARS))
    else:
        other = ctx.tensor(draw(broadcast_of(shape)))
    run = f"{x} {op} {other}\nout = {x}\n"
    return Example(f"operator:{op}", f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided), run=run)


@st.composite
def promotion(draw) -> Example:
    """Mixed-dtype calls: torch promotes across its inputs."""
    call = draw(st.sampled_from(["torch.cat([{x}, {y}])", "torch.stack([{x}, {y}])", "torch.where({c}, {x}, {y})",
                                 "torch.add({x}, {y})", "torch.maximum({x}, {y})", "torch.mul({x}, {y})",
                                 "torch.cat([{x}, {y}], dim=-1)", "{x}.add({y})", "torch.eq({x}, {y})",
                                 "torch.hstack([{x}, {y}])", "torch.vstack([{x}, {y}])"]))
    shape = draw(shapes())
    ctx = Ctx(draw, shape, draw(st.sampled_from(DTYPES)))
    x = ctx.tensor(shape, ctx.dtype)
    y = ctx.tensor(shape, draw(st.sampled_from(DTYPES)))
    c = ctx.tensor(shape, "bool", np.asarray(ctx.rng.random(shape) > 0.5))
    run = f"out = {call.format(x=x, y=y, c=c)}\n"
    return Example("promotion:" + call.split("(")[0], f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided),
                   run=run)


FAMILIES = {
    "operator:binary": binary_ops(),
    "operator:unary": unary_ops(),
    "operator:inplace": inplace_ops(),
    "operator:promotion": promotion(),
}
