"""Rules for torch.* functions and Tensor methods (mappings/torch_math.toml, mappings/tensor_math.toml)."""
from __future__ import annotations

import re

import libcst as cst

from ..core.cst_util import NOT_LITERAL, Unsupported, atom_code, code, expr

_SIMPLE = (cst.Name, cst.Attribute)


# Measured on MindSpore 2.10 CPU (tests/api/test_dtype_evidence.py): for sigmoid, tanh, exp, log, the trig and
# erf families, logit, logsumexp, softsign... MindSpore RAISES TypeError on an integer or bool input where torch
# computes in float32: loud, so those entries carry no guard (an integer input the code never sees costs nothing,
# one it does see fails at once). sqrt and lgamma give torch's result. Only sinc is SILENTLY different (a bool
# input gave nan at False, torch 1.0): its entries keep the run-time cast, unless the dtype evidence says the input
# is floating or integer (migrate/core/resolve.py Resolver.dtype).
_NO_GUARD = ("floating", "integer")


def float_input(call) -> None:
    """torch computes a bool input of sinc in float32 (1.0 at False); MindSpore gave nan there (measured).

    Unless the dtype evidence rules a bool input out, a side-effect-free input (a name or attribute) is cast at run
    time when it is not floating point; any other expression is passed as written (evaluating it twice could change
    the program), which is right for the float inputs these ops nearly always get.
    """
    name = "input" if "input" in call.bound else None
    if name is None or call.dtype_of(name) in _NO_GUARD:
        return
    node = call.bound[name]
    if call.dtype_of(name) == "bool":  # known bool (``x > 0``): cast, whatever the expression
        call.set(name, f"{atom_code(node)}.float()")
    elif isinstance(node, _SIMPLE):
        src = code(node)
        call.set(name, f"({src} if {src}.is_floating_point() else {src}.float())")


def float_receiver(call) -> None:
    """Tensor-method form of float_input (``x.sinc()`` of a bool tensor): a name or attribute receiver is cast at
    run time when it is not floating point, unless the dtype evidence rules a bool receiver out."""
    recv = call.receiver
    if call.dtype_of("self") in _NO_GUARD:
        return
    if call.dtype_of("self") == "bool":  # known bool (``(x > 0).sinc()``): cast, whatever the expression
        new = expr(f"{atom_code(recv)}.float()")
        call.node = call.node.with_changes(func=call.node.func.with_changes(value=new))
    elif isinstance(recv, _SIMPLE):
        src = code(recv)
        new = expr(f"({src} if {src}.is_floating_point() else {src}.float())")
        call.node = call.node.with_changes(func=call.node.func.with_changes(value=new))


def int_float(call) -> None:
    """torch computes exp / log / the trig and erf families of an integer or bool input in float32; MindSpore
    raises TypeError (measured). Where the dtype evidence says the input is integer or bool (``torch.tensor([4,
    10])``, ``x > 0``) it is cast with ``.float()``; an input of unknown dtype stays as written (no run-time guard:
    an integer one fails loudly)."""
    name = "input" if "input" in call.bound else None
    if name is not None and call.dtype_of(name) in ("integer", "bool"):
        call.set(name, f"{atom_code(call.bound[name])}.float()")


def int_float_receiver(call) -> None:
    """Tensor-method form of int_float (``torch.tensor([4, 10]).log2()``)."""
    if call.dtype_of("self") in ("integer", "bool"):
        new = expr(f"{atom_code(call.receiver)}.float()")
        call.node = call.node.with_changes(func=call.node.func.with_changes(value=new))


def narrow_start(call) -> None:
    """torch's narrow takes a 0-d tensor start and a negative start (counted from the end); MindSpore's an int in
    [0, size). A non-negative int literal stays; another start becomes ``int(start) % x.shape[dim]`` when the
    tensor is a name or attribute (else ``int(start)``: a negative one fails loudly)."""
    start = call.literal("start")
    if isinstance(start, int) and not isinstance(start, bool) and start >= 0:
        return
    src = code(call.bound["start"])
    tensor = call.receiver if call.receiver is not None else call.bound.get("input")
    if tensor is not None and isinstance(tensor, _SIMPLE) and "dim" in call.bound:
        call.set("start", f"int({src}) % {code(tensor)}.shape[{code(call.bound['dim'])}]")
    else:
        call.set("start", f"int({src})")


def l1_loss(call) -> None:
    """torch's l1_loss(reduction='sum') of integer inputs sums in int64, MindSpore's kept int32 (measured, silent).
    Only then is the helper _msm_l1_loss needed: with a literal reduction other than 'sum', or a floating input by
    the dtype evidence (the difference is then floating too), the call is MindSpore's own ops.l1_loss."""
    reduction = call.literal("reduction")
    if reduction in ("mean", "none") or "floating" in (call.dtype_of("input"), call.dtype_of("target")):
        call.replacement = expr(f"ops.l1_loss({code(call.bound['input'])}, {code(call.bound['target'])}"
                                + ("" if reduction == "mean" else f", reduction={code(call.bound['reduction'])}")
                                + ")")


def int_index(call) -> None:
    """torch's select takes a one-element integer tensor as the index, MindSpore's Tensor.select only an int
    (measured): an index that is not an int literal (or already int(...)) is passed through int()."""
    node = call.bound.get("index")
    if node is None or isinstance(node, cst.Integer) or (
            isinstance(node, cst.UnaryOperation) and isinstance(node.expression, cst.Integer)):
        return
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and node.func.value == "int":
        return
    call.set("index", f"int({code(node)})")


def scatter_src(call) -> None:
    """torch's scatter reads only the index's shape of src (a larger src is fine); MindSpore's TensorScatterElements
    wants equal shapes ("framework's unexpected error", measured): a name or attribute src is cut to the index's
    shape when it is a tensor (a number src is the value form and stays)."""
    if "src" not in call.bound or "index" not in call.bound or "reduce" in call.bound:
        return
    src = call.bound["src"]
    if not isinstance(src, _SIMPLE) or call.literal("src") is not NOT_LITERAL:
        return
    s, i = code(src), code(call.bound["index"])
    call.set("src", f"({s}[tuple(slice(0, _n) for _n in {i}.shape)] if ops.is_tensor({s}) else {s})")


def stride_none(call) -> None:
    """An explicit ``stride=None`` means kernel_size in torch's pooling functions; MindSpore refuses None (measured)."""
    if "stride" in call.bound and call.literal("stride") is None and "kernel_size" in call.bound:
        call.bound["stride"] = call.bound["kernel_size"]


def float_p(call) -> None:
    """MindSpore's dropout functions take a float p only (``ops.dropout(x, p=1)`` raises TypeError, measured): an
    int literal is written as a float, any other non-float expression is wrapped in float()."""
    if "p" not in call.bound:
        return
    p = call.literal("p")
    if isinstance(p, bool) or p is None:
        return
    if isinstance(p, int):
        call.set("p", repr(float(p)))
    elif p is NOT_LITERAL:
        call.set("p", f"float({code(call.bound['p'])})")


def sequence_varargs(call) -> None:
    """torch's ``*tensors`` functions (meshgrid) also take one list or tuple of tensors, MindSpore's only separate
    arguments (measured: ``ops.meshgrid([x, y])`` raises TypeError). A literal list or tuple is unpacked; any other
    single argument is passed as written."""
    if len(call.varargs) != 1 or call.varargs[0].star:
        return
    seq = call.varargs[0].value
    if not isinstance(seq, (cst.List, cst.Tuple)) or not seq.elements:
        return
    call.varargs = [cst.Arg(value=el.value, star="*" if isinstance(el, cst.StarredElement) else "")
                    for el in seq.elements]


def dims_varargs(call) -> None:
    """``x.flip(0)`` / ``x.flip(0, 1)`` / ``x.flip(dims)``: torch takes the dims as varargs, one int or one sequence;
    MindSpore's flip only a tuple or list (measured: ``x.flip(0)`` raises TypeError in ReverseV2). Several are
    packed, one int literal becomes a one-tuple, a name is told apart when the code runs; other expressions are
    refused (they would be evaluated twice)."""
    if len(call.varargs) > 1:
        if any(a.star for a in call.varargs):
            raise Unsupported("*dims mixed with other dims is not converted")
        packed = "(" + ", ".join(code(a.value) for a in call.varargs) + ")"
        call.varargs = [cst.Arg(expr(packed))]
        return
    if len(call.varargs) != 1:
        return
    arg = call.varargs[0]
    v = arg.value
    if arg.star:
        call.varargs = [cst.Arg(expr(f"tuple({code(v)})"))]
        return
    inner = v.expression if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus) else v
    if isinstance(inner, cst.Integer):
        call.varargs = [cst.Arg(expr(f"({code(v)},)"))]
    elif isinstance(v, (cst.Tuple, cst.List)):
        call.varargs = [arg.with_changes(comma=cst.MaybeSentinel.DEFAULT)]
    elif isinstance(v, _SIMPLE):
        d = code(v)
        call.varargs = [cst.Arg(expr(f"(({d},) if isinstance({d}, int) else {d})"))]
    else:
        raise Unsupported(f"dims `{code(v)}`: an int or a sequence, told apart only for a name or a literal")


def softmax_dim(call) -> None:
    """nn.Softmax / nn.LogSoftmax / nn.Softmin: an int literal dim is MindSpore's axis (the entry's form); None, absent or a
    variable (it may hold None: torch's implicit, rank-dependent dim) goes to a Cell that picks torch's dim when
    it is called."""
    log = "True" if call.entry.torch.endswith("LogSoftmax") else "False"
    negate = ", negate=True" if call.entry.torch.endswith("Softmin") else ""
    if "dim" not in call.bound:
        return
    dim = call.literal("dim")
    if isinstance(dim, int) and not isinstance(dim, bool):
        return
    call.replacement = expr(f"_MsmigrateSoftmax({code(call.bound['dim'])}, log={log}{negate})")


def round_decimals(call) -> None:
    """MindSpore 2.10's CPU Round only supports decimals=0 (measured); other decimals are written with torch's own
    formula: round(x * 10**d) / 10**d for d > 0, round(x / 10**-d) * 10**-d for d < 0 (a literal d picks the branch
    when converting, any other expression at run time)."""
    x = call.bound["input"] if "input" in call.bound else call.receiver
    src = code(x) if isinstance(x, _SIMPLE) else f"({code(x)})"
    d = call.literal("decimals", absent=0)
    if d == 0:
        call.replacement = expr(f"ops.round({src})")
    elif d is NOT_LITERAL:
        ds = code(call.bound["decimals"])
        call.replacement = expr(f"(ops.round({src} * 10.0 ** {ds}) / 10.0 ** {ds} if {ds} >= 0 "
                                f"else ops.round({src} / 10.0 ** -{ds}) * 10.0 ** -{ds})")
    elif isinstance(d, int) and d > 0:
        call.replacement = expr(f"ops.round({src} * {10.0 ** d!r}) / {10.0 ** d!r}")
    elif isinstance(d, int):
        call.replacement = expr(f"ops.round({src} / {10.0 ** -d!r}) * {10.0 ** -d!r}")
    else:
        raise Unsupported(f"decimals={d!r} is not an integer")


def nansum_dtype(call) -> None:
    """torch.nansum sums integer and bool inputs to int64; ops.nansum keeps int32 (measured): without a dtype, a
    side-effect-free input gets dtype=ms.int64 at run time when it is not floating point, unless the dtype evidence
    says it is (a floating sum keeps its dtype in both)."""
    if "dtype" in call.bound or call.dtype_of("input" if "input" in call.bound else "self") == "floating":
        return
    x = call.bound["input"] if "input" in call.bound else call.receiver
    if isinstance(x, _SIMPLE):
        src = code(x)
        call.set("dtype", f"(None if {src}.is_floating_point() else ms.int64)")


def torch_norm(call) -> None:
    """torch.norm(p='fro', dim=None): a vector norm of the flattened input unless dim selects axes; 'fro' over one
    axis is the 2-norm. ops.norm follows linalg.norm (a 2-D input with ord and no dim is a matrix norm), so the
    flattening is written out."""
    node = call.bound["input"] if "input" in call.bound else call.receiver  # torch.norm(x) or x.norm()
    src = code(node) if isinstance(node, _SIMPLE) else f"({code(node)})"
    p = call.literal("p")
    keepdim = code(call.bound["keepdim"])
    if p is NOT_LITERAL and code(call.bound["p"]).replace('"', "'") in ("float('inf')", "math.inf"):
        p = float("inf")
    elif p is NOT_LITERAL and code(call.bound["p"]).replace('"', "'") in ("-float('inf')", "float('-inf')", "-math.inf"):
        p = float("-inf")
    if p is NOT_LITERAL or call.literal("dim") is NOT_LITERAL:
        # known only when the code runs: a helper computes torch's vector norm; only where the receiver is a tensor
        # (torch.norm(x, p), or a receiver known to be one: `attn.norm(x)` is mostly a submodule named norm)
        if "input" not in call.bound and not getattr(call, "receiver_is_tensor", False):
            raise Unsupported("p must be a literal" if p is NOT_LITERAL else
                              "dim must be a literal: over two axes ops.norm computes a matrix norm, torch a vector norm")
        dim = code(call.bound["dim"]) if "dim" in call.bound else "None"
        call.replacement = expr(f"_msmigrate_norm({code(node)}, {code(call.bound['p'])}, {dim}, {keepdim})")
        return
    if "dim" not in call.bound or call.literal("dim") is None:
        if keepdim != "False":
            raise Unsupported("keepdim=True without dim is not mapped")
        ord_ = "" if p in ("fro", 2, 2.0) else f", {_p_src(p)}"
        call.replacement = expr(f"ops.norm({src}.reshape(-1){ord_})")
        return
    dim = call.literal("dim")
    if dim is NOT_LITERAL:  # one axis or two changes what ops.norm computes (vector or matrix norm)
        raise Unsupported("dim must be a literal: over two axes ops.norm computes a matrix norm, torch a vector norm")
    single = isinstance(dim, int) or (isinstance(dim, (tuple, list)) and len(dim) == 1)
    if p == "fro":
        p = 2 if single else "fro"
    elif not single:  # torch's vector norm over those axes (ops.norm would take two axes for a matrix norm)
        if isinstance(p, str):
            raise Unsupported(f"p={p!r} over several dims is not mapped")
        call.replacement = expr(f"_msmigrate_norm({code(node)}, {_p_src(p)}, {code(call.bound['dim'])}, {keepdim})")
        return
    call.replacement = expr(f"ops.norm({src}, {_p_src(p)}, {code(call.bound['dim'])}, {keepdim})")


def _p_src(p) -> str:
    return f"float('{p}')" if isinstance(p, float) and p in (float("inf"), float("-inf")) else repr(p)


def linspace(call) -> None:
    """ops.linspace wants float start/end and has no dtype; torch returns float32 unless dtype says otherwise."""
    for name in ("start", "end", "steps"):
        if name not in call.bound:
            raise Unsupported(f"needs {name}")
    out = f"ops.linspace(float({code(call.bound['start'])}), float({code(call.bound['end'])}), {code(call.bound['steps'])})"
    if "dtype" in call.bound:
        out += f".astype({code(call.bound['dtype'])})"
    call.replacement = expr(out)


def randint(call) -> None:
    """torch.randint(high, size) / (low, high, size); MindSpore needs low and a dtype (torch: int64)."""
    if "size" not in call.bound:  # randint(high, size): the first two positions are high and size
        if not ("high" in call.positional and "low" in call.positional):
            raise Unsupported("needs size")
        call.bound["size"] = call.bound.pop("high")
        call.bound["high"] = call.bound.pop("low")
        call.set("low", "0")
    elif "high" not in call.bound:  # randint(high, size=...): the one positional argument is high
        if "low" not in call.bound:
            raise Unsupported("needs high")
        call.bound["high"] = call.bound.pop("low")
        call.set("low", "0")
    if "low" not in call.bound:
        call.set("low", "0")
    dtype = code(call.bound["dtype"]) if "dtype" in call.bound else "ms.int64"
    draw = f"ops.randint({code(call.bound['low'])}, {code(call.bound['high'])}, {code(call.bound['size'])}"
    if "dtype" in call.bound and not re.fullmatch(r"(ms|mindspore)\.(u?int(8|16|32|64))", dtype):
        # torch draws integers in a float dtype too (randint(0, 10, (3,), dtype=torch.float32)); MindSpore's
        # randint takes integer dtypes only (measured: ValueError): drawn in int64, then cast
        call.replacement = expr(f"{draw}, dtype=ms.int64).astype({dtype})")
        return
    call.replacement = expr(f"{draw}, dtype={dtype})")


def tensor_to(call) -> None:
    """Tensor.to: a ``dtype=`` keyword is a dtype and a ``device=`` keyword a device whatever their expression (a
    variable included); positional arguments are told apart by ``to_device_or_dtype``."""
    from .rules import to_device_or_dtype

    dtype = call.bound.pop("dtype", None)
    call.bound.pop("device", None)
    call.bound.pop("non_blocking", None)  # MindSpore copies to its device itself: no meaning, whatever the expression
    call.bound.pop("memory_format", None)  # channels_last: a layout hint, MindSpore tensors have no memory format
    try:
        to_device_or_dtype(call)
    except Unsupported as exc:  # x.to(v): whether v is a device or a dtype is known when the code runs
        if not str(exc).startswith("cannot tell whether"):
            raise
        args = [code(a.value) for a in call.varargs] + ([f"dtype={code(dtype)}"] if dtype is not None else [])
        call.replacement = expr(f"_msmigrate_to({', '.join([code(call.receiver), *args])})")
        return
    if dtype is not None:
        if code(call.replacement) != code(call.receiver):
            raise Unsupported("several dtypes given")
        call.replacement = expr(f"{code(call.replacement)}.astype({code(dtype)})")


RULES = {f.__name__: f for f in (softmax_dim, dims_varargs, int_index, scatter_src, stride_none, float_p, sequence_varargs, float_input, torch_norm, linspace, randint, tensor_to, round_decimals, nansum_dtype, float_receiver, l1_loss, int_float, int_float_receiver, narrow_start)}


def full_dtype(call) -> None:
    """torch.full infers the dtype from the fill value (float32, int64, bool); ops.full infers int64 for floats."""
    if "dtype" in call.bound:
        return
    value = call.literal("fill_value")
    if isinstance(value, bool):
        call.set("dtype", "ms.bool_")
    elif isinstance(value, int):
        call.set("dtype", "ms.int64")
    elif isinstance(value, float):
        call.set("dtype", "ms.float32")
    else:
        raise Unsupported("the dtype torch infers from a non-literal fill_value is unknown: pass dtype=")


RULES["full_dtype"] = full_dtype


def cartesian_prod_one(call) -> None:
    """torch.cartesian_prod of one tensor returns that tensor (1-D); MindSpore's gives an (n, 1) column
    (measured). One tensor written as the only argument is the value itself; ``*tensors`` is checked when it runs."""
    if len(call.varargs) == 1 and call.varargs[0].star != "*":
        call.replacement = call.varargs[0].value
    elif any(a.star == "*" for a in call.varargs):
        args = ", ".join(("*" if a.star == "*" else "") + code(a.value) for a in call.varargs)
        call.replacement = expr(f"(lambda *_t: _t[0] if len(_t) == 1 else ops.cartesian_prod(*_t))({args})")


RULES["cartesian_prod_one"] = cartesian_prod_one


def tensor_literal_dtype(call) -> None:
    """torch.tensor infers complex64 from Python complex numbers (its default float is float32), MindSpore's
    Tensor complex128 (measured): literal data holding a complex number, with no dtype, gets dtype=ms.complex64.
    With ``**options`` (which may hold a dtype) the call is left as written."""
    if "dtype" in call.bound or call.forwarded:
        return
    data = call.literal("data")

    def has_complex(v) -> bool:
        return isinstance(v, complex) or (isinstance(v, (list, tuple)) and any(has_complex(x) for x in v))

    if data is not NOT_LITERAL and has_complex(data):
        call.set("dtype", "ms.complex64")


tensor_literal_dtype.reads = ("data",)  # a dtype given through ** passes on as written
RULES["tensor_literal_dtype"] = tensor_literal_dtype


def bce_one_element(call) -> None:
    """F.binary_cross_entropy: MindSpore 2.10's CPU kernel doubles a 'mean' or 'sum' over one element (an input of
    shape (), (1,) or (1, 1): 1.68 where torch gives 0.84, measured); the elementwise losses are right, so a literal
    'mean' (the default) or 'sum' reduces them itself. A reduction known only when it runs, or ``**options``, keeps
    MindSpore's reduction."""
    if call.forwarded:
        return
    reduction = call.literal("reduction", absent="mean")
    if reduction not in ("mean", "sum"):
        return
    x, t = code(call.bound["input"]), code(call.bound["target"])
    w = f", weight=ops.broadcast_to({code(call.bound['weight'])}, {x}.shape)" if "weight" in call.bound else ""
    call.replacement = expr(f"ops.binary_cross_entropy({x}, {t}{w}, reduction='none').{reduction}()")


bce_one_element.reads = ()  # it writes the whole call only when no ** mapping is given
RULES["bce_one_element"] = bce_one_element
