"""Small helper functions that converted code defines for itself (converted code never imports msmigrate).

A mapping template or a pass writes a call of ``_msm_<name>(...)``; :func:`insert` adds the definition of every
helper the converted module calls, once, after its imports. Each helper states the torch behaviour it keeps.
"""
from __future__ import annotations

import re

import libcst as cst

HELPERS = {
    "_msm_promote": '''
def _msm_promote(tensors):
    """cat/stack of mixed dtypes promote as in PyTorch (bool < integers < floats, the wider wins); MindSpore needs one."""
    order = (ms.bool_, ms.uint8, ms.int8, ms.int16, ms.int32, ms.int64, ms.float16, ms.bfloat16, ms.float32, ms.float64)
    ranks = []
    for t in tensors:
        rank = 0
        for i in range(len(order)):
            if t.dtype == order[i]:
                rank = i
        ranks.append(rank)
    top = max(ranks)
    if top == min(ranks):
        return list(tensors)
    to = order[top]
    if top == 7 and 6 in ranks:  # float16 with bfloat16
        to = ms.float32
    if top == 2 and 1 in ranks:  # int8 with uint8
        to = ms.int16
    return [t.astype(to) for t in tensors]
''',
    "_msm_pow": '''
def _msm_pow(base, exponent):
    """pow as in PyTorch: an integer 0 ** negative is 0 (MindSpore's Pow kernel gives the dtype's minimum)."""
    if not (ops.is_tensor(base) or ops.is_tensor(exponent)):
        return base ** exponent
    out = ops.pow(base, exponent)
    if ops.is_tensor(out) and out.dtype in (ms.int8, ms.int16, ms.int32, ms.int64, ms.uint8):
        b = base if ops.is_tensor(base) else ms.Tensor(base, out.dtype)
        e = exponent if ops.is_tensor(exponent) else ms.Tensor(exponent, out.dtype)
        out = ops.where(ops.logical_and(b == 0, e < 0), ops.zeros_like(out), out)
    return out
''',
    "_msm_inplace": '''
def _msm_inplace(x, value):
    """x op= v as in PyTorch: the result keeps x's dtype; a result of a wider kind (bool < integer < floating <
    complex) raises as PyTorch does."""
    kinds = [3 if ops.is_complex(t) else 2 if ops.is_floating_point(t) else int(t.dtype != ms.bool_)
             for t in (x, value)]
    if kinds[1] > kinds[0]:
        raise RuntimeError("result type can't be cast to the desired output type of the in-place operator (PyTorch)")
    return value.astype(x.dtype)
''',
    "_msm_cosine_similarity": '''
def _msm_cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """cosine_similarity as in PyTorch: each input is divided by max(its norm, eps) (MindSpore divides the product
    by max(the product of the norms, eps)); the inputs broadcast first."""
    both = x1 * x2
    dt = both.dtype  # torch's promoted dtype (int32 with float16 is float16)
    x1, x2 = ops.broadcast_to(x1.astype(dt), both.shape), ops.broadcast_to(x2.astype(dt), both.shape)
    n1 = ops.clamp(ops.sqrt(ops.sum(x1 * x1, dim, keepdim=True)), min=eps).astype(dt)
    n2 = ops.clamp(ops.sqrt(ops.sum(x2 * x2, dim, keepdim=True)), min=eps).astype(dt)
    return ops.sum((x1 / n1) * (x2 / n2), dim).astype(dt)
''',
    "_msm_ihfft": '''
def _msm_ihfft(input, n=None, dim=-1, norm=None):
    """ihfft as in PyTorch: conj(rfft) with the scaling swapped (MindSpore's ihfft returns the conjugate for some
    inputs, measured)."""
    swap = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return ops.conj(ops.rfft(input, n, dim, swap))
''',
    "_msm_l1_loss": '''
def _msm_l1_loss(input, target, reduction="mean"):
    """l1_loss as in PyTorch: reduction='sum' of integer inputs sums in int64 (MindSpore keeps int32)."""
    if reduction == "sum":
        d = ops.abs(input - target)
        if d.dtype in (ms.int8, ms.int16, ms.int32, ms.uint8):
            return ops.sum(d.astype(ms.int64))
    return ops.l1_loss(input, target, reduction=reduction)
''',
    "_msm_out": '''
def _msm_out(out, value):
    """out= as in PyTorch: the result is written into the tensor out (each tensor of a tuple out), which takes the
    result's shape (torch resizes it) and keeps its own dtype (torch casts into it); out itself is returned."""
    if isinstance(out, (tuple, list)):
        return tuple(_msm_out(o, v) for o, v in zip(out, value))
    return out.assign_value(value.astype(out.dtype))
''',
    "_msm_take_along_dim": '''
def _msm_take_along_dim(input, indices, dim):
    """take_along_dim as in PyTorch: input and indices broadcast against each other in every dim but ``dim``
    (MindSpore's gather_elements needs them equal)."""
    dim = dim % input.ndim
    shape_x, shape_i = list(input.shape), list(indices.shape)
    for d in range(input.ndim):
        if d != dim:
            shape_x[d] = shape_i[d] = max(shape_x[d], shape_i[d])
    return ops.gather_elements(ops.broadcast_to(input, tuple(shape_x)), dim, ops.broadcast_to(indices, tuple(shape_i)))
''',
    "_msm_signbit": '''
def _msm_signbit(x):
    """signbit as in PyTorch: the sign bit, also of -0.0 and -nan (MindSpore's kernel answers False for -0.0)."""
    bits = {ms.float16: ms.int16, ms.bfloat16: ms.int16, ms.float32: ms.int32, ms.float64: ms.int64}.get(x.dtype)
    return x.view(bits) < 0 if bits is not None else x < 0
''',
    "_msm_broadcast": '''
def _msm_broadcast(*tensors):
    """The tensors broadcast to one shape, as torch's kernels broadcast them (MindSpore's cross and polar read
    past a smaller operand: other numbers, measured)."""
    rank = max(t.ndim for t in tensors)
    shape = [1] * rank
    for t in tensors:
        for i, d in enumerate(t.shape):
            j = rank - t.ndim + i
            if shape[j] == 1:
                shape[j] = d
    return [ops.broadcast_to(t, tuple(shape)) for t in tensors]
''',
}
_CALL = re.compile(r"\b(_msm_\w+)\(")


def _helper_apis() -> set[str]:
    """Table entries whose conversion can call a helper (their transform, forms or rule text names one)."""
    from ..mapping import load_table

    out = set()
    for e in load_table().entries:
        text = " ".join([*e.transform.values(), *(f.template for f in e.forms)])
        if "_msm_" in text:
            out.add(e.torch)
    # in-place methods converted through their out-of-place entry (x.pow_(y) -> x.copy_(_msm_pow(x, y)))
    out |= {e.torch for e in load_table().entries if e.inplace in out}
    return out


_APIS: set[str] | None = None
# what the operators pass writes with a helper (_msm_pow, _msm_inplace)
PASS_USES = ("operator **", *(f"operator {s}= {how}" for s in ("+", "-", "*", "/", "//", "%", "**", "&", "|", "^")
                               for how in ("on a shared tensor", "keeps the dtype")))


def used_apis(rewriter) -> bool:
    """Whether the conversion used an entry that calls a helper (checked before generating any text)."""
    global _APIS
    if _APIS is None:
        _APIS = _helper_apis()
    return (getattr(rewriter, "msm_helpers", False) or any(rewriter.apis.get(api) for api in _APIS)
            or any(rewriter.apis.get(op) for op in PASS_USES))


def may_need(source: str) -> bool:
    """A cheap text test on the torch source: a name of an API whose conversion calls a helper."""
    return any(word in source for word in ("cat", "stack", "concat"))


def _definitions(module: cst.Module, code: str) -> list:
    """The statements defining the helpers ``code`` (the text of ``module``) calls and does not define."""
    used = [name for name in dict.fromkeys(_CALL.findall(code)) if name in HELPERS]
    defined = {s.name.value for s in module.body if isinstance(s, cst.FunctionDef)}
    defs = [stmt for n in used if n not in defined for stmt in cst.parse_module(HELPERS[n].lstrip("\n")).body]
    return [d.with_changes(leading_lines=[cst.EmptyLine()] * (1 if i == 0 else 2)) if isinstance(d, cst.FunctionDef)
            else d for i, d in enumerate(defs)]


def insert(module: cst.Module, after) -> cst.Module:
    """Define the helpers ``module`` calls; ``after(body)`` gives the index to insert them at."""
    defs = _definitions(module, module.code)
    if not defs:
        return module
    body = list(module.body)
    at = after(body)
    if at < len(body) and not body[at].leading_lines:  # the file's own code starts two lines below the helpers
        body[at] = body[at].with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    body[at:at] = defs
    return module.with_changes(body=body)


def insert_code(module: cst.Module, code: str, after) -> str:
    """``insert(module, after).code``, given ``code == module.code``, without generating the whole module again:
    the helpers' text goes in after the text of the statements before ``after(body)``."""
    defs = _definitions(module, code)
    if not defs:
        return code
    body = list(module.body)
    at = after(body)
    head = module.with_changes(body=body[:at], footer=(), has_trailing_newline=True)
    prefix = head.code if (at or module.header) else ""
    if not code.startswith(prefix) or (at == len(body) and module.footer):
        return insert(module, after).code  # not a plain prefix (never seen): the slow way
    text = module.with_changes(header=(), body=defs, footer=(), has_trailing_newline=True).code
    rest = code[len(prefix):]
    if at < len(body) and not body[at].leading_lines:
        rest = module.default_newline * 2 + rest
    return prefix + text + rest
