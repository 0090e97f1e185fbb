"""Emitters for ONNX nodes that become one functional line in ``construct``.

Shapes, axes and sizes are static here (the graph was folded), so every emitter writes
literal values.  Tables first, then the emitters that need a few lines of logic.
"""
from __future__ import annotations

import numpy as np

from .emitter import ONNX_TO_MS_DTYPE, Context, NotConvertible, literal
from .graph import Node

# op -> format of a one-input call; "{x}" is the input expression.
UNARY = {
    "Relu": "ops.relu({x})",
    "Sigmoid": "ops.sigmoid({x})",
    "Tanh": "ops.tanh({x})",
    "Erf": "ops.erf({x})",
    "Sqrt": "ops.sqrt({x})",
    "Exp": "ops.exp({x})",
    "Log": "ops.log({x})",
    "Abs": "ops.abs({x})",
    "Neg": "-{x}",
    "Reciprocal": "1.0 / {x}",
    "Floor": "ops.floor({x})",
    "Ceil": "ops.ceil({x})",
    "Not": "ops.logical_not({x})",
    "Softplus": "ops.softplus({x})",
    "HardSwish": "ops.hardswish({x})",
}

# op -> format of a two-input expression.
BINARY = {
    "Add": "{a} + {b}",
    "Sub": "{a} - {b}",
    "Mul": "{a} * {b}",
    "Div": "{a} / {b}",
    "Pow": "ops.pow({a}, {b})",
    "MatMul": "ops.matmul({a}, {b})",
    "Equal": "ops.equal({a}, {b})",
    "Less": "ops.less({a}, {b})",
    "Greater": "ops.greater({a}, {b})",
    "And": "ops.logical_and({a}, {b})",
    "Or": "ops.logical_or({a}, {b})",
}


def unary(ctx: Context, node: Node) -> None:
    ctx.assign(node, UNARY[node.op].format(x=ctx.x(node.inputs[0])))


def binary(ctx: Context, node: Node) -> None:
    a, b = node.inputs
    if a not in ctx.vars and b not in ctx.vars:
        raise NotConvertible("both operands are constants")
    ctx.assign(node, BINARY[node.op].format(a=ctx.x(a), b=ctx.x(b)))


def identity(ctx: Context, node: Node) -> None:
    ctx.alias(node, node.inputs[0])


def _axes(ctx: Context, node: Node, rank: int, attr_default=None) -> tuple | None:
    """Axes from the opset-13/18 second input or the older attribute, normalised to >= 0."""
    if len(node.inputs) > 1 and node.inputs[1]:
        axes = ctx.need_const(node, 1, "axes").reshape(-1).tolist()
    else:
        axes = node.attr("axes", attr_default)
    return None if axes is None else tuple(int(a) % rank for a in axes)


def leaky_relu(ctx: Context, node: Node) -> None:
    ctx.assign(node, f"ops.leaky_relu({ctx.x(node.inputs[0])}, {float(node.attr('alpha', 0.01))!r})")


def gelu(ctx: Context, node: Node) -> None:
    ctx.assign(node, f"ops.gelu({ctx.x(node.inputs[0])}, approximate={node.attr('approximate', 'none')!r})")


def softmax(ctx: Context, node: Node, fn: str = "softmax") -> None:
    rank = len(ctx.need_shape(node.inputs[0]))
    axis = node.attr("axis", -1 if ctx.graph.opset >= 13 else 1)
    if ctx.graph.opset < 13 and axis % rank != rank - 1:
        raise NotConvertible("pre-13 Softmax flattens from its axis")
    ctx.assign(node, f"ops.{fn}({ctx.x(node.inputs[0])}, axis={axis})")


def log_softmax(ctx: Context, node: Node) -> None:
    softmax(ctx, node, "log_softmax")


def clip(ctx: Context, node: Node) -> None:
    lo = ctx.const(node.inputs[1]) if len(node.inputs) > 1 and node.inputs[1] else node.attr("min")
    hi = ctx.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else node.attr("max")
    for name in node.inputs[1:]:
        if name and ctx.const(name) is None:
            raise NotConvertible("Clip bounds computed at run time")
    args = "".join(f", {k}={literal(np.asarray(v).reshape(()))}" for k, v in (("min", lo), ("max", hi))
                   if v is not None)
    ctx.assign(node, f"ops.clamp({ctx.x(node.inputs[0])}{args})")


def reduce(ctx: Context, node: Node) -> None:
    rank = len(ctx.need_shape(node.inputs[0]))
    axes = _axes(ctx, node, rank)
    if axes is None and node.attr("noop_with_empty_axes", 0):
        return ctx.alias(node, node.inputs[0])
    axes = tuple(range(rank)) if axes is None else axes
    keep = bool(node.attr("keepdims", 1))
    x = ctx.x(node.inputs[0])
    forms = {"ReduceMean": f"ops.mean({x}, axis={axes}, keep_dims={keep})",
             "ReduceSum": f"ops.sum({x}, dim={axes}, keepdim={keep})",
             "ReduceMax": f"ops.amax({x}, axis={axes}, keepdims={keep})",
             "ReduceMin": f"ops.amin({x}, axis={axes}, keepdims={keep})"}
    ctx.assign(node, forms[node.op])


def global_average_pool(ctx: Context, node: Node) -> None:
    rank = len(ctx.need_shape(node.inputs[0]))
    ctx.assign(node, f"ops.mean({ctx.x(node.inputs[0])}, axis={tuple(range(2, rank))}, keep_dims=True)")


def reshape(ctx: Context, node: Node) -> None:
    target = ctx.need_const(node, 1, "the target shape").reshape(-1).tolist()
    if not node.attr("allowzero", 0):
        in_shape = ctx.need_shape(node.inputs[0])
        target = [in_shape[i] if d == 0 else d for i, d in enumerate(target)]
    ctx.assign(node, f"ops.reshape({ctx.x(node.inputs[0])}, {tuple(int(d) for d in target)})")


def flatten(ctx: Context, node: Node) -> None:
    shape = ctx.need_shape(node.inputs[0])
    axis = node.attr("axis", 1) % max(len(shape), 1)
    lead = int(np.prod(shape[:axis])) if axis else 1
    ctx.assign(node, f"ops.reshape({ctx.x(node.inputs[0])}, ({lead}, -1))")


def transpose(ctx: Context, node: Node) -> None:
    rank = len(ctx.need_shape(node.inputs[0]))
    perm = tuple(node.attr("perm", list(range(rank))[::-1]))
    ctx.assign(node, f"ops.transpose({ctx.x(node.inputs[0])}, {perm})")


def squeeze(ctx: Context, node: Node) -> None:
    rank = len(ctx.need_shape(node.inputs[0]))
    axes = _axes(ctx, node, rank)
    ctx.assign(node, f"ops.squeeze({ctx.x(node.inputs[0])}{'' if axes is None else f', {axes}'})")


def unsqueeze(ctx: Context, node: Node) -> None:
    out_rank = len(ctx.need_shape(node.inputs[0])) + len(
        node.attr("axes") or ctx.need_const(node, 1, "axes").reshape(-1))
    axes = sorted(_axes(ctx, node, out_rank))
    expr = ctx.x(node.inputs[0])
    for axis in axes:
        expr = f"ops.expand_dims({expr}, {axis})"
    ctx.assign(node, expr)


def concat(ctx: Context, node: Node) -> None:
    parts = ", ".join(ctx.x(n) for n in node.inputs)
    ctx.assign(node, f"ops.cat(({parts},), axis={node.attr('axis')})")


def split(ctx: Context, node: Node) -> None:
    shape = ctx.need_shape(node.inputs[0])
    axis = node.attr("axis", 0) % len(shape)
    if len(node.inputs) > 1 and node.inputs[1]:
        sizes = ctx.need_const(node, 1, "split sizes").reshape(-1).tolist()
    elif node.attr("split"):
        sizes = list(node.attr("split"))
    else:
        parts = node.attr("num_outputs", len(node.outputs))
        chunk = -(-shape[axis] // parts)
        sizes = [min(chunk, shape[axis] - i * chunk) for i in range(parts)]
    ctx.assign_many(node, f"ops.split({ctx.x(node.inputs[0])}, {[int(s) for s in sizes]}, axis={axis})")


def _slice_text(start: int, end: int, step: int, dim: int) -> str:
    """Python slice text for one axis with ONNX clamping rules."""
    start = start + dim if start < 0 else start
    end = end + dim if end < 0 else end
    if step > 0:
        start, end = min(max(start, 0), dim), min(max(end, 0), dim)
        text = f"{start if start else ''}:{end if end < dim else ''}"
    else:
        start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
        text = f"{start if start < dim - 1 else ''}:{end if end >= 0 else ''}"
    return text + (f":{step}" if step != 1 else "")


def _index(ctx: Context, node: Node, items: dict[int, str]) -> None:
    rank = len(ctx.need_shape(node.inputs[0]))
    parts = [items.get(i, ":") for i in range(rank)]
    while parts and parts[-1] == ":":
        parts.pop()
    ctx.assign(node, f"{ctx.x(node.inputs[0])}[{', '.join(parts) or '...'}]")


def slice_(ctx: Context, node: Node) -> None:
    shape = ctx.need_shape(node.inputs[0])
    if node.attr("starts") is not None:  # opset < 10
        starts, ends = node.attr("starts"), node.attr("ends")
        axes = node.attr("axes", list(range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts = ctx.need_const(node, 1, "Slice starts").reshape(-1).tolist()
        ends = ctx.need_const(node, 2, "Slice ends").reshape(-1).tolist()
        axes = (ctx.need_const(node, 3, "Slice axes").reshape(-1).tolist()
                if len(node.inputs) > 3 and node.inputs[3] else list(range(len(starts))))
        steps = (ctx.need_const(node, 4, "Slice steps").reshape(-1).tolist()
                 if len(node.inputs) > 4 and node.inputs[4] else [1] * len(starts))
    items = {}
    for s, e, a, st in zip(starts, ends, axes, steps):
        a = a % len(shape)
        items[a] = _slice_text(int(s), int(e), int(st), shape[a])
    _index(ctx, node, items)


def gather(ctx: Context, node: Node) -> None:
    data, indices = node.inputs
    rank = len(ctx.need_shape(data))
    axis = node.attr("axis", 0) % rank
    idx = ctx.const(indices)
    if data in ctx.graph.consts and idx is None and axis == 0 and ctx.graph.consts[data].ndim == 2:
        table = ctx.graph.consts[data]
        attr = ctx.layer(node, node.module_path, f"nn.Embedding({table.shape[0]}, {table.shape[1]})",
                         {"embedding_table": table})
        return ctx.call_layer(node, attr, f"{ctx.x(indices)}.astype(ms.int32)")
    if idx is not None and idx.ndim == 0:
        return _index(ctx, node, {axis: str(int(idx) % ctx.need_shape(data)[axis])})
    index = (f"ms.Tensor({idx.reshape(-1).tolist()!r}, ms.int32).reshape({idx.shape})"
             if idx is not None else ctx.x(indices))
    ctx.assign(node, f"ops.gather({ctx.x(data)}, {index}, {axis})")


def cast(ctx: Context, node: Node) -> None:
    dtype = ONNX_TO_MS_DTYPE.get(node.attr("to"))
    if dtype is None:
        raise NotConvertible(f"cast to ONNX dtype {node.attr('to')}")
    ctx.assign(node, f"{ctx.x(node.inputs[0])}.astype(ms.{dtype})")


def expand(ctx: Context, node: Node) -> None:
    out = ctx.need_shape(node.outputs[0])
    ctx.assign(node, f"ops.broadcast_to({ctx.x(node.inputs[0])}, {tuple(out)})")


def where(ctx: Context, node: Node) -> None:
    cond, a, b = node.inputs
    ctx.assign(node, f"ops.where({ctx.x(cond)}, {_tensor(ctx, a)}, {_tensor(ctx, b)})")


def _tensor(ctx: Context, name: str) -> str:
    """A scalar constant as a typed Tensor (ops.where wants tensors on both branches)."""
    value = ctx.const(name)
    if value is not None and value.size == 1:
        dtype = ONNX_TO_MS_DTYPE.get(_onnx_dtype(value), "float32")
        return f"ms.Tensor({literal(value.reshape(()))}, ms.{dtype})"
    return ctx.x(name)


def _onnx_dtype(value: np.ndarray) -> int:
    from onnx import helper

    return helper.np_dtype_to_tensor_dtype(value.dtype)


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate"}


def pad(ctx: Context, node: Node) -> None:
    rank = len(ctx.need_shape(node.inputs[0]))
    pads = (ctx.need_const(node, 1, "pads").reshape(-1).tolist() if len(node.inputs) > 1
            else list(node.attr("pads"))).copy()
    axes = (_axes_at(ctx, node, 3, rank) or list(range(rank)))
    begin, end = dict(zip(axes, pads[: len(axes)])), dict(zip(axes, pads[len(axes):]))
    mode = _PAD_MODES.get(node.attr("mode", "constant"))
    if mode is None:
        raise NotConvertible(f"pad mode {node.attr('mode')}")
    torch_order = []  # last axis first, as (before, after) pairs
    for axis in range(rank - 1, -1, -1):
        torch_order += [int(begin.get(axis, 0)), int(end.get(axis, 0))]
    while len(torch_order) > 2 and torch_order[-2:] == [0, 0]:
        torch_order = torch_order[:-2]
    value = ""
    if mode == "constant":
        cval = ctx.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
        value = f", value={literal(np.asarray(cval).reshape(()) if cval is not None else 0.0)}"
    ctx.assign(node, f"ops.pad({ctx.x(node.inputs[0])}, {tuple(torch_order)}, mode={mode!r}{value})")


def _axes_at(ctx: Context, node: Node, i: int, rank: int) -> list | None:
    if len(node.inputs) > i and node.inputs[i]:
        return [int(a) % rank for a in ctx.need_const(node, i, "axes").reshape(-1)]
    return None


def resize(ctx: Context, node: Node) -> None:
    shape = ctx.need_shape(node.inputs[0])
    out = ctx.shape(node.outputs[0])
    if out is None:
        sizes = ctx.const(node.inputs[3]) if len(node.inputs) > 3 and node.inputs[3] else None
        scales = ctx.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
        if sizes is not None:
            out = tuple(int(s) for s in sizes)
        elif scales is not None:
            out = tuple(int(np.floor(d * s)) for d, s in zip(shape, scales))
        else:
            raise NotConvertible("Resize sizes computed at run time")
    if tuple(out[:2]) != tuple(shape[:2]) or len(shape) != 4:
        raise NotConvertible("Resize of batch/channel axes or non-4-D input")
    mode = node.attr("mode", "nearest")
    coord = node.attr("coordinate_transformation_mode", "half_pixel")
    size = tuple(int(d) for d in out[2:])
    x = ctx.x(node.inputs[0])
    if mode == "nearest" and coord == "asymmetric" and node.attr("nearest_mode", "round_prefer_floor") == "floor":
        return ctx.assign(node, f"ops.interpolate({x}, size={size}, mode='nearest')")
    if mode == "linear" and coord in ("half_pixel", "pytorch_half_pixel", "align_corners"):
        align = coord == "align_corners"
        return ctx.assign(node, f"ops.interpolate({x}, size={size}, mode='bilinear', align_corners={align})")
    raise NotConvertible(f"Resize mode={mode} coordinate_transformation_mode={coord}")


def gemm(ctx: Context, node: Node) -> None:
    """A Gemm that is not a Linear layer (run-time B, alpha/beta): spelled out."""
    a, b = ctx.x(node.inputs[0]), ctx.x(node.inputs[1])
    if node.attr("transA", 0):
        a = f"ops.transpose({a}, (1, 0))"
    if node.attr("transB", 0):
        b = f"ops.transpose({b}, (1, 0))"
    expr = f"ops.matmul({a}, {b})"
    if node.attr("alpha", 1.0) != 1.0:
        expr = f"{float(node.attr('alpha'))!r} * {expr}"
    if len(node.inputs) > 2 and node.inputs[2]:
        c = ctx.x(node.inputs[2])
        beta = node.attr("beta", 1.0)
        expr = f"{expr} + {c}" if beta == 1.0 else f"{expr} + {float(beta)!r} * {c}"
    ctx.assign(node, expr)


FUNCTIONAL = {
    **{op: unary for op in UNARY},
    **{op: binary for op in BINARY},
    "Identity": identity,
    "Dropout": identity,  # inference: the exported model is in eval mode
    "LeakyRelu": leaky_relu,
    "Gelu": gelu,
    "Softmax": softmax,
    "LogSoftmax": log_softmax,
    "Clip": clip,
    "ReduceMean": reduce,
    "ReduceSum": reduce,
    "ReduceMax": reduce,
    "ReduceMin": reduce,
    "GlobalAveragePool": global_average_pool,
    "Reshape": reshape,
    "Flatten": flatten,
    "Transpose": transpose,
    "Squeeze": squeeze,
    "Unsqueeze": unsqueeze,
    "Concat": concat,
    "Split": split,
    "Slice": slice_,
    "Gather": gather,
    "Cast": cast,
    "Expand": expand,
    "Where": where,
    "Pad": pad,
    "Resize": resize,
    "Gemm": gemm,
}
