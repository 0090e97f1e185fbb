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
is marked unsupported rather than guessed, with one exception: a whole statement whose receiver (or the root of
its chain of in-place links) is a basic-index subscript of a name or attribute chain (``boxes[:, 0].sub_(w)``,
``xy[..., :2].mul_(2).add_(c)``: integers, slices, ``...``, ``None``), which torch computes on a view of the
tensor, becomes ``boxes[:, 0] = <new value>``; MindSpore's ``x[i] = v`` writes into x's memory (measured: other
names bound to x see it) and casts v to x's dtype, as the view's in-place op does. The same holds for
``kp[..., 0] = kp[..., 0].sub_(c).neg_()``, where the assignment itself writes back. An index that may be a tensor
(``x[i]``, ``x[idx]``) is refused: torch's advanced indexing gives a copy, so whether x changes is not known; a
literal list index (``x[:, [0, 2]]``) is a copy in torch, so an in-place method on it is its out-of-place form.
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
SUBSCRIPT_STATEMENT = (": a subscript receiver is converted as a whole statement only (to x[i] = new value; MindSpore's"
                       " x[i] is a copy, not a view)")
SUBSCRIPT_INDEX = (": an index that may be a tensor (a name, a call) is not converted: torch's advanced indexing gives"
                   " a copy (x is unchanged), basic indexing a view (x changes), and which one is not known here")


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


def convert(original: cst.Call, updated: cst.Call, entry: Entry, table: Table, is_statement: bool,
            pure: bool = False):
    """(new expression, rebind) or raises Unsupported. ``rebind``: the statement must become ``recv = new`` (True)
    or ``target = new`` (the target expression, a subscript). ``pure``: a link of a statement chain rooted at a
    basic-index subscript (:func:`subscript_chain`), whose write-back the statement does: its new value is all."""
    if pure or _fresh(original.func.value):  # `x.sqrt().add_(eps)`: a new tensor no one else sees
        if not pure and (entry.inplace or "").rsplit(".", 1)[-1] in DTYPE_CHANGING:
            # `(x > 0).float().logical_not_()`: torch keeps the receiver's dtype, the out-of-place op gives bool
            new = value(updated.with_changes(func=updated.func.with_changes(value=cst.Name("_t"))), entry, table)
            return cst.parse_expression(f"(lambda _t: {code(new)}.astype(_t.dtype))({code(updated.func.value)})"), False
        return value(updated, entry, table), False
    if is_statement and not entry.rebind:
        target = _subscript_root(original.func.value, table)
        if target is not None:  # `boxes[:, 0].sub_(w)` (its inner links, if any, converted as pure values)
            recv = updated.func.value
            return value(updated, entry, table), recv if isinstance(recv, cst.Subscript) else target
    if entry.rebind and not is_statement:
        raise Unsupported(VALUE_USED.format(name=entry.method_name))
    root = _root(original.func.value, updated.func.value, table)
    if root is None:
        recv = original.func.value
        sub = recv if isinstance(recv, cst.Subscript) else _links(recv, table)[1]
        reason = BAD_RECEIVER.format(recv=_one_line(code(recv)))
        if isinstance(sub, cst.Subscript) and dotted(sub.value) is not None:
            reason += SUBSCRIPT_STATEMENT if _basic_index(sub) else SUBSCRIPT_INDEX
        elif isinstance(recv, cst.Subscript):
            reason += SUBSCRIPT
        raise Unsupported(reason)
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
cosine_similarity cumprod cumsum deg2rad div erf erfc exp exp2 expm1 flip floor floor_divide fmod frac hypot lerp log
log10 log1p log2 logsumexp matmul maximum mean minimum mm mul mv nan_to_num neg new new_empty new_full new_ones new_tensor
new_zeros norm outer pow prod rad2deg reciprocal relu relu6 remainder roll round rsqrt sigmoid sign sin sinh softmax
log_softmax sqrt square std sub sum tan tanh trunc var eq ne lt le gt ge logical_not logical_and logical_or""".split())
# out-of-place results of another dtype (bool) than the receiver's, which the in-place form keeps
DTYPE_CHANGING = frozenset("""logical_not logical_and logical_or logical_xor eq ne lt le gt ge greater greater_equal
less less_equal not_equal""".split())
# F.relu(x, True) / F.relu6(x, True): the second positional argument is ``inplace`` (the result is x itself)
_INPLACE_SECOND = frozenset({"relu", "relu6"})
FRESH_FUNCTIONS = frozenset("""
zeros ones empty full rand randn randint randperm arange linspace logspace tensor zeros_like ones_like empty_like
full_like rand_like randn_like randint_like stack cat concat where eye""".split()) | FRESH_METHODS


def _basic_index(node: cst.Subscript) -> bool:
    """Torch indexes a view: every element an integer literal, a slice, ``...`` or ``None`` (a name may be a
    tensor: advanced indexing, a copy)."""
    for el in node.slice:
        s = el.slice
        if isinstance(s, cst.Slice):
            if any(b is not None and _has_call(b) for b in (s.lower, s.upper, s.step)):
                return False  # evaluated twice (read and write): only call-free bounds
            continue
        v = s.value
        if isinstance(v, cst.UnaryOperation) and isinstance(v.operator, cst.Minus):
            v = v.expression
        if not (isinstance(v, (cst.Integer, cst.Ellipsis)) or (isinstance(v, cst.Name) and v.value == "None")):
            return False
    return True


def _has_call(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) or any(_has_call(c) for c in node.children)


def _list_index(node: cst.BaseExpression) -> bool:
    """``x[:, [0, 2]]``: a literal list index, advanced indexing (torch gives a copy)."""
    return isinstance(node, cst.Subscript) and dotted(node.value) is not None and any(
        isinstance(el.slice, cst.Index) and isinstance(el.slice.value, cst.List) for el in node.slice)


def _links(call: cst.BaseExpression, table: Table):
    """The in-place links of a chain from its top call down (``a[0].mul_(2).add_(c)``: add_, mul_), and its root
    (the receiver of the innermost link); ([], None) when a link is not a converted-in-place entry."""
    links = []
    while isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute):
        entry = table.methods.get(call.func.attr.value)
        if entry is None or not entry.inplace or entry.rebind:
            break
        links.append(call)
        call = call.func.value
    return links, call


def _subscript_root(recv: cst.BaseExpression, table: Table) -> cst.Subscript | None:
    """The basic-index subscript of a name or attribute chain that ``recv`` is, or roots a chain of in-place links."""
    _, root = _links(recv, table) if isinstance(recv, cst.Call) else ([], recv)
    if isinstance(root, cst.Subscript) and dotted(root.value) is not None and _basic_index(root):
        return root
    return None


def subscript_chain(call: cst.Call, table: Table, target: cst.BaseExpression | None = None) -> set[int]:
    """Ids of the links of a statement's in-place chain on a basic-index subscript that are converted as pure values:
    the inner links of ``x[:, 0].add_(a).neg_()`` (the statement writes the whole chain back), or every link of
    ``x[:, 0] = x[:, 0].sub_(c).neg_()`` (``target``: the assignment writes back to the same subscript)."""
    links, root = _links(call, table)
    if not links or not (isinstance(root, cst.Subscript) and dotted(root.value) is not None and _basic_index(root)):
        return set()
    if target is None:
        return {id(c) for c in links[1:]}
    if isinstance(target, cst.Subscript) and code(target) == code(root):
        return {id(c) for c in links}
    return set()


def _fresh(node: cst.BaseExpression) -> bool:
    """The expression makes a tensor that nothing else references (an arithmetic result, ``x.sqrt()``,
    ``torch.zeros(...)``, ``x[:, [0, 2]]``): an in-place method on it is its out-of-place counterpart."""
    if _list_index(node):
        return True
    if isinstance(node, cst.BinaryOperation) or (isinstance(node, cst.UnaryOperation)
                                                 and isinstance(node.operator, cst.Minus)):
        return True
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute):
        if any(a.keyword is not None and a.keyword.value in ("out", "inplace") for a in node.args):
            return False  # F.relu(x, inplace=True), torch.add(x, y, out=x): x itself
        attr = node.func.attr.value
        if attr in _INPLACE_SECOND and sum(a.keyword is None and not a.star for a in node.args) > 1:
            return False  # F.relu6(x, True): x itself
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
