"""Emitters for ONNX nodes that become named sub-Cells (layers with weights, pooling).

Each one injects the MindSpore arguments that make defaults agree with the ONNX / torch
semantics: ``pad_mode='pad'``, ``has_bias``, BatchNorm momentum, LayerNorm epsilon, pooling stride.
"""
from __future__ import annotations

import numpy as np

from .emitter import Context, NotConvertible, f32
from .graph import Node


def _spatial(node: Node, ctx: Context, rank: int = 2) -> tuple:
    """kernel, stride, ONNX pads, dilation for a 2-D conv/pool node."""
    shape = ctx.need_shape(node.inputs[0])
    if len(shape) != rank + 2:
        raise NotConvertible(f"only {rank}-D spatial input is mapped (got rank {len(shape)})")
    if node.attr("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        raise NotConvertible(f"auto_pad={node.attr('auto_pad')}")
    kernel = tuple(node.attr("kernel_shape") or ctx.need_const(node, 1, "weight").shape[2:])
    stride = tuple(node.attr("strides", [1] * rank))
    pads = tuple(node.attr("pads", [0] * 2 * rank))
    dilation = tuple(node.attr("dilations", [1] * rank))
    return kernel, stride, pads, dilation


def _ms_pad(pads: tuple) -> tuple:
    """ONNX (top, left, bottom, right) -> MindSpore (top, bottom, left, right)."""
    return (pads[0], pads[2], pads[1], pads[3])


def conv(ctx: Context, node: Node) -> None:
    weight = ctx.need_const(node, 1, "the Conv weight")
    bias = ctx.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    kernel, stride, pads, dilation = _spatial(node, ctx)
    group = node.attr("group", 1)
    ctor = (f"nn.Conv2d({weight.shape[1] * group}, {weight.shape[0]}, kernel_size={kernel}, "
            f"stride={stride}, pad_mode='pad', padding={_ms_pad(pads)}, dilation={dilation}, "
            f"group={group}, has_bias={bias is not None})")
    attr = ctx.layer(node, _path(ctx, node), ctor, {"weight": weight, "bias": bias})
    ctx.call_layer(node, attr, ctx.x(node.inputs[0]))


def conv_transpose(ctx: Context, node: Node) -> None:
    weight = ctx.need_const(node, 1, "the ConvTranspose weight")
    bias = ctx.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    if node.attr("output_shape"):
        raise NotConvertible("output_shape attribute")
    kernel, stride, pads, dilation = _spatial(node, ctx)
    group = node.attr("group", 1)
    # MindSpore 2.10 zero-fills the output_padding rows instead of computing them (measured), so
    # the extra rows are obtained by trimming less: end padding p - output_padding.
    out_pad = node.attr("output_padding", [0, 0])
    pads = (pads[0], pads[1], pads[2] - out_pad[0], pads[3] - out_pad[1])
    if min(pads) < 0:
        raise NotConvertible("output_padding larger than padding")
    ctor = (f"nn.Conv2dTranspose({weight.shape[0]}, {weight.shape[1] * group}, kernel_size={kernel}, "
            f"stride={stride}, pad_mode='pad', padding={_ms_pad(pads)}, dilation={dilation}, "
            f"group={group}, has_bias={bias is not None})")
    attr = ctx.layer(node, _path(ctx, node), ctor, {"weight": weight, "bias": bias})
    ctx.call_layer(node, attr, ctx.x(node.inputs[0]))


def batch_norm(ctx: Context, node: Node) -> None:
    if node.attr("training_mode", 0):
        raise NotConvertible("exported in training mode (export with the model in eval mode)")
    gamma, beta, mean, var = (ctx.need_const(node, i, "a BatchNorm statistic") for i in range(1, 5))
    rank = len(ctx.need_shape(node.inputs[0]))
    kind = {4: "BatchNorm2d", 2: "BatchNorm1d", 3: "BatchNorm1d"}.get(rank)
    if kind is None:
        raise NotConvertible(f"BatchNorm on rank-{rank} input")
    # ONNX momentum weights the running statistic, as MindSpore's does (torch's is 1 - it).
    momentum = round(float(node.attr("momentum", 0.9)), 6)
    eps = f32(node.attr("epsilon", 1e-5))
    ctor = f"nn.BatchNorm{kind[-2:]}({gamma.shape[0]}, eps={eps!r}, momentum={momentum!r})"
    attr = ctx.layer(node, _path(ctx, node, weight_input=1), ctor,
                     {"gamma": gamma, "beta": beta, "moving_mean": mean, "moving_variance": var})
    ctx.call_layer(node, attr, ctx.x(node.inputs[0]))


def dense(ctx: Context, node: Node) -> None:
    weight, bias = node.attr("weight"), node.attr("bias")
    ctor = f"nn.Dense({weight.shape[1]}, {weight.shape[0]}, has_bias={bias is not None})"
    attr = ctx.layer(node, node.attr("path") or node.module_path, ctor, {"weight": weight, "bias": bias})
    ctx.call_layer(node, attr, ctx.x(node.inputs[0]))


def layer_norm(ctx: Context, node: Node) -> None:
    shape = ctx.need_shape(node.inputs[0])
    axis = node.attr("axis", -1) % len(shape)
    normalized = tuple(shape[axis:])
    gamma = ctx.const(node.inputs[1]) if len(node.inputs) > 1 else None
    beta = ctx.const(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
    if gamma is None:
        raise NotConvertible("the LayerNorm scale is computed at run time")
    beta = np.zeros_like(gamma) if beta is None else beta
    eps = f32(node.attr("epsilon", 1e-5))
    ctor = (f"nn.LayerNorm({normalized}, begin_norm_axis={axis}, begin_params_axis={axis}, "
            f"epsilon={eps!r})")
    attr = ctx.layer(node, _path(ctx, node, weight_input=1), ctor,
                     {"gamma": gamma.reshape(normalized), "beta": beta.reshape(normalized)})
    ctx.call_layer(node, attr, ctx.x(node.inputs[0]))


def group_norm(ctx: Context, node: Node) -> None:
    gamma, beta = node.attr("gamma"), node.attr("beta")
    eps = f32(node.attr("eps"))
    affine = gamma is not None
    ctor = f"nn.GroupNorm({node.attr('groups')}, {node.attr('channels')}, eps={eps!r}, affine={affine})"
    attr = ctx.layer(node, node.attr("path"), ctor, {"gamma": gamma, "beta": beta} if affine else {})
    ctx.call_layer(node, attr, ctx.x(node.inputs[0]))


def _pool(ctx: Context, node: Node, cls: str, extra: str) -> None:
    kernel, stride, pads, dilation = _spatial(node, ctx)
    if pads[:2] != pads[2:]:
        raise NotConvertible(f"asymmetric pooling pads {pads}")
    if any(d != 1 for d in dilation):
        raise NotConvertible("dilated pooling")
    ceil = bool(node.attr("ceil_mode", 0))
    ctor = (f"nn.{cls}(kernel_size={kernel}, stride={stride}, pad_mode='pad', padding={pads[:2]}, "
            f"ceil_mode={ceil}{extra})")
    attr = ctx.layer(node, node.module_path, ctor, {})
    ctx.call_layer(node, attr, ctx.x(node.inputs[0]))


def max_pool(ctx: Context, node: Node) -> None:
    if len(node.outputs) > 1 and node.outputs[1]:
        raise NotConvertible("MaxPool indices output")
    _pool(ctx, node, "MaxPool2d", "")


def average_pool(ctx: Context, node: Node) -> None:
    include = bool(node.attr("count_include_pad", 0))
    _pool(ctx, node, "AvgPool2d", f", count_include_pad={include}")


def _path(ctx: Context, node: Node, weight_input: int = 1) -> str:
    """Module path: the weight initializer's name (``stem.0.weight``) or the node scope."""
    name = node.inputs[weight_input] if len(node.inputs) > weight_input else ""
    if name in ctx.graph.initializer_names and not name.startswith("onnx::") and "." in name:
        return name.rsplit(".", 1)[0]
    return node.module_path


LAYERS = {
    "Conv": conv,
    "ConvTranspose": conv_transpose,
    "BatchNormalization": batch_norm,
    "Dense": dense,
    "LayerNormalization": layer_norm,
    "GroupNorm": group_norm,
    "MaxPool": max_pool,
    "AveragePool": average_pool,
}
