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


def functional_layer_norm(call) -> None:
    """``F.layer_norm``: ``ops.layer_norm`` has no CPU kernel in 2.10 (LayerNormExt); the classic ``ops.LayerNorm``
    primitive normalises over the last ``len(normalized_shape)`` axes, and needs a weight and bias: ones/zeros
    stand in when torch passes None (the identity affine)."""
    shape = call.literal("normalized_shape")
    if isinstance(shape, int):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)) or not shape:
        raise Unsupported("normalized_shape must be a literal int or tuple (its length fixes the normalised axes)")
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


RULES = {f.__name__: f for f in (functional_conv_padding, functional_layer_norm, one_hot)}
