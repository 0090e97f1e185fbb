"""Rules for the device-handling and legacy-constructor family (mappings/device.toml)."""
from __future__ import annotations

import libcst as cst

from ..core.cst_util import Unsupported, code, expr

_DATA = (cst.List, cst.Tuple, cst.ListComp, cst.GeneratorExp)
# torch legacy tensor type -> MindSpore dtype
LEGACY_DTYPES = {
    "FloatTensor": "ms.float32", "DoubleTensor": "ms.float64", "HalfTensor": "ms.float16", "BFloat16Tensor": "ms.bfloat16",
    "LongTensor": "ms.int64", "IntTensor": "ms.int32", "ShortTensor": "ms.int16", "CharTensor": "ms.int8",
    "ByteTensor": "ms.uint8", "BoolTensor": "ms.bool_", "Tensor": "ms.float32",
}


def legacy_tensor(call) -> None:
    """``torch.FloatTensor([1, 2])`` (data) or ``torch.FloatTensor(2, 3)`` (a size: torch leaves the values
    uninitialised, zeros are one such content). A single argument that is neither a literal sequence nor an int
    literal may be either: refused rather than guessed. ``torch.cuda.*Tensor`` is the same on MindSpore, which
    places tensors on the configured device itself."""
    dtype = LEGACY_DTYPES[call.entry.torch.rsplit(".", 1)[-1]]
    args = [a.value for a in call.varargs]
    if not args:
        call.replacement = expr(f"ops.zeros((0,), {dtype})")
        return
    if len(args) == 1 and isinstance(args[0], _DATA):
        call.replacement = expr(f"ms.Tensor({code(args[0])}, dtype={dtype})")
        return
    if all(isinstance(a, cst.Integer) for a in args):
        call.replacement = expr(f"ops.zeros(({', '.join(code(a) for a in args)},), {dtype})")
        return
    if len(call.varargs) > 1:  # torch.Tensor(n, c, *k): several arguments are always a size
        if any(isinstance(a, _DATA) for a in args):
            raise Unsupported("a sequence among several arguments: torch takes several arguments only as a size")
        sizes = ", ".join(f"{a.star}{code(a.value)}" for a in call.varargs)
        call.replacement = expr(f"ops.zeros(({sizes},), {dtype})")
        return
    if not call.varargs[0].star:  # one name or call: an int is a size, a list or an array data (told apart when run)
        call.replacement = expr(f"_msmigrate_legacy_tensor({code(args[0])}, {dtype})")
        return
    raise Unsupported(f"cannot tell whether {', '.join(code(a) for a in args)} is data or a size: write "
                      f"torch.tensor(data, dtype=...) or torch.empty(size, dtype=...)")


RULES = {f.__name__: f for f in (legacy_tensor,)}


def tensor_type(call) -> None:
    """``x.type(torch.float16)`` casts; ``x.type()`` (a type name string) and ``x.type('torch.FloatTensor')`` name torch
    tensor types that MindSpore does not have."""
    if "dtype" not in call.bound:
        raise Unsupported("x.type() returns torch's tensor type name; use x.dtype")
    if isinstance(call.bound["dtype"], (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)):
        raise Unsupported("torch tensor type names have no MindSpore meaning: pass a dtype")
    call.replacement = expr(f"{code(call.receiver)}.astype({code(call.bound['dtype'])})")


RULES["tensor_type"] = tensor_type
