"""Rules for torch.nn.functional calls whose MindSpore form the tables cannot say (see rules.py for the contract)."""
from __future__ import annotations

from ..core.cst_util import NOT_LITERAL, Unsupported, atom_code, code, expr

def functional_conv_padding(call) -> None:
    """``F.conv1d/conv2d(padding=...)``: torch pads symmetrically, like ``ops.conv*d(pad_mode='pad')`` with the
    same int / (ph, pw) value; 'same' and 'valid' become ``pad_mode``. No padding is MindSpore's default 'valid'."""
    if "padding" not in call.bound:
        return
    value = call.literal("padding")
    if value in ("same", "valid"):
        call.bound.pop("padding")
        call.set("pad_mode", repr(value))
    elif value == 0:
        call.bound.pop("padding")
    else:
        call.set("pad_mode", "'pad'")


LAYER_NORM_ARGS = (("input", ""), ("normalized_shape", ""), ("weight", "None"), ("bias", "None"), ("eps", "1e-05"))


def functional_layer_norm(call) -> None:
    """``F.layer_norm``: ``ops.layer_norm`` has no CPU kernel in 2.10 (LayerNormExt); the classic ``ops.LayerNorm``
    primitive normalises over the last ``len(normalized_shape)`` axes, and needs a weight and bias: ones/zeros
    stand in when torch passes None (the identity affine)."""
    shape = call.literal("normalized_shape")
    if isinstance(shape, int):
        shape = (shape,)
    if shape is NOT_LITERAL:  # known at run time only: the helper computes the axes from its length
        call.replacement = expr(f"_msmigrate_layer_norm({', '.join(call.src(n) or d for n, d in LAYER_NORM_ARGS)})")
        return
    if not isinstance(shape, (tuple, list)) or not shape:
        raise Unsupported("normalized_shape must be a non-empty int or tuple")
    inp = atom_code(call.bound["input"])
    axis = f"{inp}.ndim - {len(shape)}"  # MindSpore's begin axes must be non-negative (or -1)
    shape_src = repr(tuple(shape))
    def given(name):
        return name in call.bound and call.literal(name) is not None

    weight = call.src("weight") if given("weight") else f"ops.ones({shape_src}, ms.float32)"
    bias = call.src("bias") if given("bias") else f"ops.zeros({shape_src}, ms.float32)"
    eps = call.src("eps") or "1e-05"
    call.replacement = expr(f"ops.LayerNorm({axis}, {axis}, {eps})({inp}, {weight}, {bias})[0]")


def one_hot(call) -> None:
    """``F.one_hot(t, num_classes=-1)`` infers the depth from the data; MindSpore needs it: only an explicit,
    non-negative ``num_classes`` is converted."""
    if "num_classes" not in call.bound or call.literal("num_classes") == -1:
        raise Unsupported("num_classes=-1 (inferred from the data) has no MindSpore form: pass the class count")
    if isinstance(call.literal("num_classes"), int) and call.literal("num_classes") < 0:
        raise Unsupported("num_classes must be non-negative")


CONV_T_ARGS = ("in_channels", "out_channels", "kernel_size", "stride", "padding", "output_padding", "groups", "bias",
               "dilation")


def conv_transpose_output_padding(call) -> None:
    """``nn.ConvTranspose2d``: MindSpore's Conv2dTranspose zero-fills the rows and columns that output_padding adds
    (measured) where torch computes them; a non-zero output_padding builds the generated Cell that computes them
    (``_MsmigrateConvTranspose2d``, the Conv2DBackpropInput primitive). Otherwise Conv2dTranspose as before."""
    from .rules import conv_padding

    value = call.literal("output_padding", absent=0)
    if value in (0, (0, 0), [0, 0]):
        call.bound.pop("output_padding", None)
        conv_padding(call)
        return
    mode = call.literal("padding_mode", absent="zeros")
    if mode != "zeros":
        raise Unsupported(f"padding_mode={code(call.bound['padding_mode'])}: only zero padding")
    if call.literal("padding") in ("same", "valid"):
        raise Unsupported("a string padding is not a ConvTranspose2d argument")
    args = ", ".join(f"{n}={call.src(n)}" for n in CONV_T_ARGS if n in call.bound)
    call.replacement = expr(f"_MsmigrateConvTranspose2d({args})")


def max_pool_indices(call) -> None:
    """``nn.MaxPool2d(return_indices=True)``: MindSpore's nn.MaxPool2d returns no indices; the generated
    ``_MsmigrateMaxPool2d`` Cell returns (values, indices) from ops.max_pool2d. Otherwise nn.MaxPool2d."""
    from .rules import pool_padding, pool_sizes

    pool_sizes(call)
    value = call.literal("return_indices", absent=False)
    if value is False:
        pool_padding(call)
        return
    if value is not True:
        raise Unsupported(f"return_indices={code(call.bound['return_indices'])}: must be a literal True or False")
    names = ("kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode")
    args = ", ".join(f"{n}={call.src(n)}" for n in names if n in call.bound)
    call.replacement = expr(f"_MsmigrateMaxPool2d({args})")


RULES = {f.__name__: f for f in (functional_conv_padding, functional_layer_norm, one_hot,
                                  conv_transpose_output_padding, max_pool_indices)}
