"""Rules for mappings/init.toml (torch.nn.init -> mindspore.common.initializer)."""
from __future__ import annotations

import libcst as cst

from ..core.cst_util import Unsupported, atom_code, code, expr

_INIT = "ms.common.initializer"
# nonlinearities whose gain MindSpore's _calculate_gain computes exactly as torch's calculate_gain
_GAINS = {"linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
          "sigmoid", "tanh", "relu", "leaky_relu"}


def _plain(node) -> bool:
    """A name, attribute chain or subscript with plain indices: safe to write three times."""
    if isinstance(node, cst.Name):
        return True
    if isinstance(node, cst.Attribute):
        return _plain(node.value)
    if isinstance(node, cst.Subscript):
        return _plain(node.value) and all(
            isinstance(e.slice, cst.Index) and isinstance(e.slice.value, (cst.Name, cst.Integer, cst.SimpleString))
            for e in node.slice)
    return False


def nn_init(call) -> None:
    """``nn.init.X_(t, ...)`` -> ``t.set_data(initializer(Class(...), t.shape, t.dtype))`` for a Parameter,
    ``t.copy_(initializer(...).init_data())`` for a plain Tensor (``p.data`` is ``p``); returns the tensor like torch. Argument names follow torch's defaults where MindSpore's differ (Normal's
    sigma=0.01, Uniform's scale=0.07, TruncatedNormal's sigma=0.01 against torch's std=1 / U(0, 1))."""
    name = call.entry.torch.rsplit(".", 1)[-1]
    if not name.endswith("_"):
        name += "_"  # torch's deprecated alias (init.kaiming_normal): the same function
    t = call.bound.get("tensor")
    if t is None:
        raise Unsupported("needs the tensor")
    if not _plain(t):
        raise Unsupported("the tensor must be a name or attribute (it is written several times: set_data, shape, "
                          "dtype)")
    src = lambda n, default: atom_code(call.bound[n]) if n in call.bound else default  # noqa: E731
    shift = None
    if name == "zeros_":
        init = "Zero()"
    elif name == "ones_":
        init = "One()"
    elif name == "constant_":
        init = f"Constant({src('val', None)})"
    elif name == "eye_":
        init = "Identity()"
    elif name == "dirac_":
        init = f"Dirac(groups={src('groups', '1')})"
    elif name == "normal_":
        init = f"Normal(sigma={src('std', '1.0')}, mean={src('mean', '0.0')})"
    elif name == "trunc_normal_":
        init = (f"TruncatedNormal(sigma={src('std', '1.0')}, mean={src('mean', '0.0')}, a={src('a', '-2.0')}, "
                f"b={src('b', '2.0')})")
    elif name == "uniform_":
        a, b = src("a", "0.0"), src("b", "1.0")
        la, lb = call.literal("a", absent=0.0), call.literal("b", absent=1.0)
        if isinstance(la, (int, float)) and isinstance(lb, (int, float)):
            init, shift = f"Uniform({round((lb - la) / 2, 12)!r})", (None if la == -lb else repr(round((la + lb) / 2, 12)))
        else:
            init, shift = f"Uniform(({b} - {a}) / 2)", f"({a} + {b}) / 2"
    elif name in ("xavier_uniform_", "xavier_normal_"):
        init = f"{'XavierUniform' if 'uniform' in name else 'XavierNormal'}(gain={src('gain', '1.0')})"
    elif name in ("kaiming_uniform_", "kaiming_normal_"):
        nl = call.literal("nonlinearity", absent="leaky_relu")
        mode = call.literal("mode", absent="fan_in")
        if nl not in _GAINS:
            raise Unsupported("nonlinearity must be a literal MindSpore knows the gain of (" + ", ".join(sorted(
                _GAINS)) + ")")
        if mode not in ("fan_in", "fan_out"):
            raise Unsupported("mode must be a literal 'fan_in' or 'fan_out'")
        cls = "HeUniform" if "uniform" in name else "HeNormal"
        init = f"{cls}(negative_slope={src('a', '0')}, mode={mode!r}, nonlinearity={nl!r})"
    elif name == "orthogonal_":
        init = f"Orthogonal(gain={src('gain', '1.0')})"
    else:
        raise Unsupported("no MindSpore initializer")
    if isinstance(t, cst.Attribute) and t.attr.value == "data" and _plain(t.value):
        t = t.value  # ``init.normal_(m.weight.data, ...)``: the Parameter itself (torch's .data is its storage)
    tc = code(t)
    value = f"{_INIT}.initializer({_INIT}.{init}, {tc}.shape, {tc}.dtype)"
    if shift is not None:
        value = f"{value}.init_data() + {shift}"
    data = value if shift is not None else f"{value}.init_data()"
    # a plain Tensor (torch.empty(3, 4) initialised before it is wrapped) has no set_data: copy_ writes into its
    # memory and returns it, as torch's init does. Not assign_value: on a Parameter's ``.data`` (a Tensor sharing
    # the Parameter's memory) it rebinds that Tensor only and the Parameter keeps its values (measured, 2.10)
    call.replacement = expr(f"({tc}.set_data({value}) if isinstance({tc}, ms.Parameter) else {tc}.copy_({data}))")


RULES = {f.__name__: f for f in (nn_init,)}
