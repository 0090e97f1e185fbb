"""Named Python rules for what the mapping tables cannot say as data.

A rule receives the bound :class:`migrate.rewrite.calls.Call` after ``fill`` and before ``transform``; it edits
``call.bound`` (name -> expression), sets ``call.replacement`` to produce the whole result, or raises
``Unsupported`` with the reason. Keep each rule small and say which torch semantics it preserves.
"""
from __future__ import annotations

from ..core.cst_util import NOT_LITERAL, Unsupported, code


def conv_padding(call) -> None:
    """torch ``padding`` (int, (ph, pw), 'same', 'valid') -> MindSpore ``pad_mode`` + ``padding``.

    torch pads (ph, pw) on both sides; MindSpore's Conv2d takes (top, bottom, left, right). 'same' in both
    frameworks puts an odd extra pad on the bottom/right (checked by a parity test).
    """
    if "padding" not in call.bound:
        call.set("pad_mode", "'pad'")
        return
    value = call.literal("padding")
    if value in ("same", "valid"):
        call.bound.pop("padding")
        call.set("pad_mode", repr(value))
        return
    call.set("pad_mode", "'pad'")
    if isinstance(value, (tuple, list)):
        dims = call.entry.torch.rstrip("d")[-1]  # Conv1d / Conv2d / ConvTranspose2d -> '1' / '2'
        if dims == "2" and len(value) == 2:
            call.set("padding", repr((value[0], value[0], value[1], value[1])))
        elif dims == "1" and len(value) == 1:
            call.set("padding", repr(value[0]))
        elif dims == "3" and len(value) == 3:  # (pd, ph, pw) -> MindSpore's (head, tail, top, bottom, left, right)
            call.set("padding", repr((value[0], value[0], value[1], value[1], value[2], value[2])))
        elif dims != "2" or len(value) != 4:
            raise Unsupported(f"padding={value!r} has no MindSpore form")
    elif value is NOT_LITERAL and call.is_int("padding"):
        pass  # shown to be an int (padding=k // 2, a parameter every call passes an int): the same in both
    elif value is NOT_LITERAL and _pure_tuple(call.bound["padding"], call.entry.torch.rstrip("d")[-1]):
        # (kh // 2, kw // 2) written out: each element twice, as MindSpore's (top, bottom, left, right)
        call.set("padding", "(" + ", ".join(code(e.value) for e in call.bound["padding"].elements
                                             for _ in range(2)) + ")")
    elif value is NOT_LITERAL:
        # known when it runs (an int, a pair, 'same'): generated helpers give MindSpore's pad mode and padding
        dims = call.entry.torch.rstrip("d")[-1]
        source = call.src("padding")
        call.set("pad_mode", f"_msmigrate_pad_mode({source})")
        call.set("padding", f"_msmigrate_pad({source}, {dims})")


def _pure_tuple(node, dims: str) -> bool:
    """A tuple display of one element per spatial axis of a 2-d or 3-d conv, each element free of calls (written
    twice, it is computed twice)."""
    import libcst as cst

    if dims not in ("2", "3") or not isinstance(node, cst.Tuple) or len(node.elements) != int(dims):
        return False
    return all(isinstance(e, cst.Element) and not _has_call(e.value) for e in node.elements)


def _has_call(node) -> bool:
    import libcst as cst

    found = []

    class _V(cst.CSTVisitor):
        def visit_Call(self, n):
            found.append(n)

        def visit_Lambda(self, n):
            found.append(n)

        def visit_NamedExpr(self, n):
            found.append(n)

    node.visit(_V())
    return bool(found)


def _int_of_true_division(node):
    """``h / 8`` (or a tuple holding one) as ``int(h / 8)``; None when no element is a true division."""
    import libcst as cst

    if isinstance(node, (cst.Tuple, cst.List)):
        elements = [_int_of_true_division(e.value) for e in node.elements]
        if not any(elements):
            return None
        return node.with_changes(elements=[e.with_changes(value=new) if new is not None else e
                                           for e, new in zip(node.elements, elements)])
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
        return cst.Call(func=cst.Name("int"), args=[cst.Arg(node.with_changes(lpar=[], rpar=[]))])
    return None


def pool_sizes(call) -> None:
    """``nn.MaxPool2d(kernel_size=(h / 8, w / 8))``: a true division gives a float, which torch keeps when the layer
    is built and refuses only when it is called ("must be tuple of ints"), while MindSpore refuses it when the layer
    is built, so a model holding such a layer and never calling it (SegDecNet++'s unused global pools) could not
    be built. The quotient becomes ``int(h / 8)``: the same layer on every run where torch's works (where torch
    raises when calling it, MindSpore pools with the truncated size)."""
    for name in ("kernel_size", "stride"):
        if name in call.bound:
            new = _int_of_true_division(call.bound[name])
            if new is not None:
                call.bound[name] = new


def pool_padding(call) -> None:
    """Pooling: torch pads explicitly (default 0) with stride defaulting to kernel_size (filled by the table)."""
    pool_sizes(call)
    value = call.literal("padding") if "padding" in call.bound else 0
    ceil = call.literal("ceil_mode") if "ceil_mode" in call.bound else False
    if value == 0 and ceil is False:  # MindSpore takes ceil_mode only with pad_mode='pad' (raises otherwise)
        call.bound.pop("padding", None)
        call.set("pad_mode", "'valid'")
    else:
        call.set("pad_mode", "'pad'")


def batchnorm(call) -> None:
    """torch momentum m (running = (1-m)·running + m·batch) is MindSpore momentum 1-m; None means a cumulative
    average, which MindSpore does not have. ``track_running_stats=False`` always uses batch statistics."""
    if "momentum" in call.bound and call.literal("momentum") is None:
        raise Unsupported("momentum=None (cumulative moving average) has no MindSpore equivalent")
    if "track_running_stats" in call.bound:
        value = call.literal("track_running_stats")
        if value is False:
            call.set("use_batch_statistics", "True")
        elif value is not True:
            raise Unsupported("track_running_stats must be a literal True/False to be converted")
        call.bound.pop("track_running_stats")


def layernorm(call) -> None:
    """``normalized_shape`` may be an int in torch; MindSpore wants a tuple. MindSpore's LayerNorm normalises
    from ``begin_norm_axis``, which must be -1 or a non-negative input axis: only shapes of rank 1 (the last
    axis, by far the common case) are converted. Affine parameters cannot be switched off."""
    value = call.literal("normalized_shape")
    if isinstance(value, int):
        call.set("normalized_shape", f"({value},)")
    elif isinstance(value, (tuple, list)) and len(value) == 1:
        call.set("normalized_shape", repr(tuple(value)))
    elif value is NOT_LITERAL:
        src = code(call.bound["normalized_shape"])
        call.set("normalized_shape", f"({src},) if isinstance({src}, int) else tuple({src})")
    else:
        raise Unsupported(f"normalized_shape={value!r}: MindSpore's begin_norm_axis would depend on the input "
                          "rank, unknown when the layer is built")
    for flag in ("elementwise_affine", "bias"):
        if flag in call.bound and call.literal(flag) is not True:
            raise Unsupported(f"{flag}={code(call.bound[flag])}: MindSpore's LayerNorm always has gamma and beta")
        call.bound.pop(flag, None)


def module_to(call) -> None:
    """``model.to(device)`` / ``.cuda()``: MindSpore places a Cell's parameters on the device target itself, so a
    device argument goes and the call is the module. Casting a module's parameters (``.to(torch.float64)``) is not
    converted."""
    to_device_or_dtype(call)
    if code(call.replacement) != code(call.receiver):
        raise Unsupported("casting a module's parameters to another dtype is not converted")


def dim_or_other(call) -> None:
    """``torch.max(x, 1)`` reduces over a dim; ``torch.max(x, y)`` is elementwise. Decide from the literal; a name
    (``torch.max(x, v)``) is told apart when the code runs (an int is a dim)."""
    if "dim" not in call.bound:
        return
    value = call.literal("dim")
    if value is NOT_LITERAL and "dim" in call.positional and "keepdim" not in call.origin:
        import libcst as cst

        from ..core.cst_util import expr

        ops_ = _REDUCE_OR_ELEMENTWISE.get(call.entry.torch)
        v, x = call.bound["dim"], call.bound["input"]
        if ops_ is None:
            raise Unsupported("cannot tell whether the second argument is a dim or a tensor; write dim= or other=")
        if not all(isinstance(n, (cst.Name, cst.Attribute)) for n in (v, x)):
            # an expression (`torch.max(b1[..., :2], b2[..., :2])`): a helper reads it once and tells it apart
            helper = "_msmigrate_" + call.entry.torch.rsplit(".", 1)[-1]
            call.replacement = expr(f"{helper}({code(x)}, {code(v)})")
            return
        # torch.max(x, v): told apart when the code runs (v is read twice, so only names and attributes)
        call.replacement = expr(f"({ops_[0]}({code(x)}, {code(v)}, keepdims=False) if isinstance({code(v)}, int) "
                                f"else {ops_[1]}({code(x)}, {code(v)}))")
        return
    if not isinstance(value, int) and value is not NOT_LITERAL:
        raise Unsupported("dim must be an int")


_REDUCE_OR_ELEMENTWISE = {"torch.max": ("ops.max", "ops.maximum"), "torch.min": ("ops.min", "ops.minimum")}


def to_device_or_dtype(call) -> None:
    """``.to(device)`` / ``.cuda()`` / ``.to(dtype)``: devices are set once with ms.set_context in MindSpore.

    Drops arguments that are clearly devices (strings, ``torch.device(...)``, names containing 'device'), keeps a
    dtype (``torch.float32`` style, already converted to ``ms.float32``) as ``.astype``.
    """
    receiver = code(call.receiver)
    args = [a.value for a in call.varargs] + list(call.bound.values())
    dtypes = []
    for value in args:
        src = code(value)
        if (src.startswith("ms.") and src[3:] in _DTYPES) or _names_a_dtype(value):
            dtypes.append(src)
        elif (isinstance(value, (cst_strings())) or "device" in src.lower() or src.startswith("torch.device")
              or call.is_device(value)):
            continue
        elif src in ("True", "False"):  # non_blocking / copy
            continue
        else:
            raise Unsupported(f"cannot tell whether {src} is a device or a dtype")
    if len(dtypes) > 1:
        raise Unsupported("several dtypes given")
    from ..core.cst_util import expr

    call.replacement = expr(f"{receiver}.astype({dtypes[0]})" if dtypes else receiver)


def _names_a_dtype(node) -> bool:
    """``dtype``, ``x_dtype``, ``x.dtype``, ``self.out_dtype``: a name or attribute whose last part ends in 'dtype'
    holds a dtype (a device is never named so)."""
    import libcst as cst

    last = node.value if isinstance(node, cst.Name) else node.attr.value if isinstance(node, cst.Attribute) else ""
    return last.endswith("dtype")


def cst_strings():
    import libcst as cst

    return (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString)


_DTYPES = {"float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
           "uint64", "bool_",
           "complex64", "complex128"}

def size_varargs(call) -> None:
    """``zeros(2, 3)`` / ``repeat(2, 1)`` take sizes as varargs; MindSpore takes one int or tuple."""
    import libcst as cst

    from ..core.cst_util import expr

    if any(a.star for a in call.varargs):  # ``zeros(*shape)`` / ``x.new(*batch_shape)``: one tuple of them all
        parts = [f"*{code(a.value)}" if a.star else code(a.value) for a in call.varargs]
        packed = f"tuple({code(call.varargs[0].value)})" if len(parts) == 1 else "(" + ", ".join(parts) + ",)"
        call.varargs = [cst.Arg(expr(packed))]
    elif len(call.varargs) > 1:
        packed = "(" + ", ".join(code(a.value) for a in call.varargs) + ")"
        call.varargs = [cst.Arg(expr(packed))]
    elif len(call.varargs) == 1:
        call.varargs = [call.varargs[0].with_changes(comma=cst.MaybeSentinel.DEFAULT)]


def legacy_new(call) -> None:
    """``x.new(*sizes)``: torch's legacy constructor, an uninitialised tensor of x's dtype. Its other form builds
    from data (``x.new([1, 2])``, ``x.new(t)``): converted only when the arguments can only be sizes (several, or
    starred, or one integer literal); ``x.new()`` (no argument) is an empty tensor."""
    import libcst as cst

    if not call.varargs:
        raise Unsupported("x.new() without sizes is an empty tensor: not converted")
    if len(call.varargs) == 1 and not call.varargs[0].star and not isinstance(call.varargs[0].value, cst.Integer):
        raise Unsupported("x.new(arg) builds from data when arg is a sequence or tensor, or a tensor of that size "
                          "when it is an int: which one is not known here")
    size_varargs(call)


def interpolate(call) -> None:
    """MindSpore's ops.interpolate accepts ``scale_factor`` only with ``recompute_scale_factor=True``, which
    computes the same output as torch when every factor is integral; other factors are refused, never guessed (a
    factor known only at run time goes through ``_msmigrate_scale_factor``, which raises for a non-integral one).
    torch's bicubic is not MindSpore's (TF-style) bicubic."""
    mode = call.literal("mode") if "mode" in call.bound else "nearest"
    if mode == "bicubic":
        raise Unsupported("MindSpore's bicubic resize follows TF and differs from torch")
    if "scale_factor" not in call.bound or call.literal("scale_factor") is None:
        return
    factor = call.literal("scale_factor")
    if factor is NOT_LITERAL:
        if "size" in call.bound:  # one of the two is None when it runs: which one is unknown here
            raise Unsupported("size and scale_factor both given as variables: MindSpore needs to know which one "
                              "is set to take recompute_scale_factor")
        # known when it runs: a generated helper checks that the factor is integral (it raises otherwise)
        call.set("scale_factor", f"_msmigrate_scale_factor({call.src('scale_factor')})")
        call.set("recompute_scale_factor", "True")
        return
    factors = factor if isinstance(factor, (tuple, list)) else (factor,)
    if not all(float(f).is_integer() for f in factors):
        raise Unsupported(f"scale_factor={factor!r} is not integral: MindSpore's recomputed scale differs")
    call.set("scale_factor", repr(tuple(float(f) for f in factor)) if isinstance(factor, (tuple, list))
             else repr(float(factor)))  # MindSpore insists on floats
    call.set("recompute_scale_factor", "True")


def ddof(call) -> None:
    """torch.std/var default to the unbiased estimator (Bessel, ddof=1); MindSpore's ops default to ddof=0."""
    if "dim" in call.bound and isinstance(call.literal("dim"), bool):  # the std(input, unbiased) overload
        call.bound["unbiased"] = call.bound.pop("dim")
    if "dim" in call.bound and isinstance(call.literal("dim"), list):  # ``dim=[1, 2, 3]`` (TransUNet's
        call.set("dim", repr(tuple(call.literal("dim"))))             # StdConv2d): MindSpore takes a tuple
    if "correction" in call.bound:
        value = call.bound.pop("correction")
        call.bound.pop("unbiased", None)
        call.bound["ddof"] = value
        return
    unbiased = call.literal("unbiased") if "unbiased" in call.bound else True
    call.bound.pop("unbiased", None)
    if isinstance(unbiased, bool):
        call.set("ddof", "1" if unbiased else "0")
    else:
        raise Unsupported("unbiased must be a literal True/False")


RULES = {f.__name__: f for f in (conv_padding, pool_padding, batchnorm, layernorm, dim_or_other, module_to,
                                  to_device_or_dtype, size_varargs, legacy_new, interpolate, ddof)}


def _collect_family_rules() -> None:
    """Rules of other API families live in ``migrate/mapping/rules_<family>.py``, each with its own ``RULES``."""
    import importlib
    import pkgutil

    from .. import mapping

    for info in pkgutil.iter_modules(mapping.__path__):
        if info.name.startswith("rules_"):
            module = importlib.import_module(f"{mapping.__name__}.{info.name}")
            clash = set(module.RULES) & set(RULES)
            if clash:
                raise ImportError(f"{info.name}: rule names already defined: {sorted(clash)}")
            RULES.update(module.RULES)


_collect_family_rules()
