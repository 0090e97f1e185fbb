"""In-place tensor methods (``x.add_(y)``, ``p.data.zero_()``): entries with ``inplace`` in the mapping table.

MindSpore 2.10 on CPU has no kernel for most in-place methods (``zero_``, ``fill_``, ``masked_fill_``,
``clamp_``, ``sigmoid_``... raise "kernel Inplace... unregistered"), others do not exist (``pow_``, ``neg_``,
``relu_``...), and ``add_``/``sub_``/``mul_``/``div_``/``exp_`` run but leave the tensor unchanged (measured).
``copy_`` works, on tensors and Parameters, eagerly and under ``ms.jit``, so a whole statement ``recv.op_(args)``
becomes ``recv.copy_(<conversion of recv.op(args)>)``: the tensor object is updated, so other names bound to it
(and a Cell's Parameter) see the change, and the receiver keeps its dtype, as torch's in-place ops do. Methods
that change the shape (``unsqueeze_``, ``t_``) are entries with ``rebind = true``: ``recv = recv.op(args)``, which
other names bound to the old tensor do not see.

The receiver must be a name or attribute chain, or a chain of such in-place calls on one (``v.mul_(b).add_(g)``).
A result used as a value (``z = x.add_(1)``, ``return x.mul_(2)``, chains) is converted the same way:
MindSpore's ``x.copy_(v)`` returns a tensor that shares x's memory (measured: writing into it changes x), as
torch's in-place methods return x itself; in a chain, the new value of each link reads the root (``v.copy_(v * b)
.copy_(v + g)``: Python evaluates the inner copy first). Shape-changing entries (``rebind``) are converted only as
whole statements. A subscript or call receiver (MindSpore's ``x[0]`` is a copy, not a view: ``x[0].copy_`` fails)
is marked unsupported rather than guessed.
"""
from __future__ import annotations

import libcst as cst

from ..mapping import Entry, Table
from ..names import dotted
from .calls import Call, Unsupported, code

VALUE_USED = ("its result is used as a value and it changes the shape: only a whole statement `x.{name}(...)` is "
              "converted (to x = new value); MindSpore's in-place kernels are missing on CPU or leave x unchanged")
BAD_RECEIVER = "the receiver `{recv}` is not a name or attribute chain: the new value cannot be written back"
SUBSCRIPT = " (MindSpore's x[i] is a copy, not a view: x[i].copy_ fails)"


def value(updated: cst.Call, entry: Entry, table: Table) -> cst.BaseExpression:
    """The new value of the receiver, from the out-of-place entry (or the entry's own forms)."""
    recv = updated.func.value
    if entry.inplace == "forms":
        return Call(updated, entry, receiver=recv).convert()
    target = table.methods[entry.inplace.rsplit(".", 1)[-1]]
    if "*" in entry.unsupported:
        raise Unsupported(entry.unsupported["*"])
    call = updated.with_changes(func=updated.func.with_changes(attr=cst.Name(target.method_name)))
    if target.is_identity:
        return call
    return Call(call, target, receiver=recv).convert()


def convert(original: cst.Call, updated: cst.Call, entry: Entry, table: Table, is_statement: bool):
    """(new expression, rebind) or raises Unsupported. ``rebind``: the statement must become ``recv = new``."""
    if _fresh(original.func.value):  # `x.sqrt().add_(eps)`: a new tensor no one else sees; its new value is all
        return value(updated, entry, table), False
    if entry.rebind and not is_statement:
        raise Unsupported(VALUE_USED.format(name=entry.method_name))
    root = _root(original.func.value, updated.func.value, table)
    if root is None:
        recv = original.func.value
        raise Unsupported(BAD_RECEIVER.format(recv=_one_line(code(recv))) + (SUBSCRIPT if isinstance(recv, cst.Subscript) else ""))
    recv = updated.func.value
    new = value(updated if root is recv else updated.with_changes(func=updated.func.with_changes(value=root)),
                entry, table)
    if entry.rebind:
        return new, True
    return cst.Call(func=cst.Attribute(value=recv, attr=cst.Name("copy_")), args=[cst.Arg(new)]), False


# Tensor methods and torch functions whose result is always a new tensor: never a view, never the input itself
# (``float``, ``to``, ``contiguous``, ``detach``, ``view``, ``reshape`` and indexing may be, and are not listed).
FRESH_METHODS = frozenset("""
abs acos acosh add addcdiv addcmul addmm amax amin asin asinh atan atan2 atanh bmm ceil clamp clip clone cos cosh
cumprod cumsum deg2rad div erf erfc exp exp2 expm1 floor floor_divide fmod frac hypot lerp log log10 log1p log2
logsumexp matmul maximum mean minimum mm mul mv nan_to_num neg new_empty new_full new_ones new_tensor new_zeros norm
outer pow prod rad2deg reciprocal relu remainder round rsqrt sigmoid sign sin sinh softmax log_softmax sqrt square std
sub sum tan tanh trunc var""".split())
FRESH_FUNCTIONS = frozenset("""
zeros ones empty full rand randn randint randperm arange linspace logspace tensor zeros_like ones_like empty_like
full_like rand_like randn_like randint_like stack cat concat where eye""".split()) | FRESH_METHODS


def _fresh(node: cst.BaseExpression) -> bool:
    """The expression makes a tensor that nothing else references (an arithmetic result, ``x.sqrt()``,
    ``torch.zeros(...)``): an in-place method on it is its out-of-place counterpart."""
    if isinstance(node, cst.BinaryOperation) or (isinstance(node, cst.UnaryOperation)
                                                 and isinstance(node.operator, cst.Minus)):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if any(a.keyword is not None and a.keyword.value in ("out", "inplace") for a in node.args):
            return False  # F.relu(x, inplace=True), torch.add(x, y, out=x): x itself
        attr = node.func.attr.value
        if attr.endswith("_") and not attr.startswith("_"):  # an in-place call returns its receiver
            return _fresh(node.func.value)
        name = dotted(node.func)
        if name is not None and name.startswith("torch.") and name.count(".") == 1:
            return node.func.attr.value in FRESH_FUNCTIONS
        return node.func.attr.value in FRESH_METHODS
    return False


def _root(original: cst.BaseExpression, updated: cst.BaseExpression, table: Table):
    """The name or attribute chain an in-place call writes to (in the converted tree): the receiver itself, or the
    root of a chain of converted in-place calls (``v.mul_(b).add_(g)``: v); None when there is none."""
    while isinstance(original, cst.Call) and isinstance(original.func, cst.Attribute):
        link = table.methods.get(original.func.attr.value)
        if not (link is not None and link.inplace and not link.rebind and isinstance(updated, cst.Call)
                and isinstance(updated.func, cst.Attribute) and updated.func.attr.value == "copy_"):
            return None  # not an in-place link, or one that was not converted
        original, updated = original.func.value, updated.func.value
    return updated if dotted(original) is not None else None


def rebind_statement(expr_stmt: cst.Expr, target: cst.BaseExpression) -> cst.Assign:
    """``recv.op_(...)`` as a statement -> ``recv = <new value>``."""
    return cst.Assign(targets=[cst.AssignTarget(target=target)], value=expr_stmt.value,
                      semicolon=expr_stmt.semicolon)


def _one_line(src: str, limit: int = 80) -> str:
    """Source for a marker, which is one comment line: whitespace (and comments inside the expression) collapsed."""
    text = " ".join(ln.split("#", 1)[0].strip() for ln in src.splitlines())
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
