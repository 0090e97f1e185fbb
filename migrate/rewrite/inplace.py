"""In-place tensor methods (``x.add_(y)``, ``p.data.zero_()``): entries with ``inplace`` in the mapping table.

MindSpore 2.10 on CPU has no kernel for most in-place methods (``zero_``, ``fill_``, ``masked_fill_``,
``clamp_``, ``sigmoid_``... raise "kernel Inplace... unregistered"), others do not exist (``pow_``, ``neg_``,
``relu_``...), and ``add_``/``sub_``/``mul_``/``div_``/``exp_`` run but leave the tensor unchanged (measured).
``copy_`` works, on tensors and Parameters, eagerly and under ``ms.jit``, so a whole statement ``recv.op_(args)``
becomes ``recv.copy_(<conversion of recv.op(args)>)``: the tensor object is updated, so other names bound to it
(and a Cell's Parameter) see the change, and the receiver keeps its dtype, as torch's in-place ops do. Methods
that change the shape (``unsqueeze_``, ``t_``) are entries with ``rebind = true``: ``recv = recv.op(args)``, which
other names bound to the old tensor do not see.

Only a whole expression statement whose receiver is a name or attribute chain is converted. When the result is
used (``z = x.add_(1)``, chains, ``return x.mul_(2)``) or the receiver is a subscript or call result (MindSpore's
``x[0]`` is a copy, not a view: ``x[0].copy_`` fails), the call is marked unsupported rather than guessed.
"""
from __future__ import annotations

import libcst as cst

from ..mapping import Entry, Table
from ..names import dotted
from .calls import Call, Unsupported, code

VALUE_USED = ("its result is used as a value: only a whole statement `x.{name}(...)` is converted "
              "(to x.copy_(new value)); MindSpore's in-place kernels are missing on CPU or leave x unchanged")
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
    if not is_statement:
        raise Unsupported(VALUE_USED.format(name=entry.method_name))
    if dotted(original.func.value) is None:
        recv = original.func.value
        raise Unsupported(BAD_RECEIVER.format(recv=_one_line(code(recv))) + (SUBSCRIPT if isinstance(recv, cst.Subscript) else ""))
    new = value(updated, entry, table)
    if entry.rebind:
        return new, True
    recv = updated.func.value
    return cst.Call(func=cst.Attribute(value=recv, attr=cst.Name("copy_")), args=[cst.Arg(new)]), False


def rebind_statement(expr_stmt: cst.Expr, target: cst.BaseExpression) -> cst.Assign:
    """``recv.op_(...)`` as a statement -> ``recv = <new value>``."""
    return cst.Assign(targets=[cst.AssignTarget(target=target)], value=expr_stmt.value,
                      semicolon=expr_stmt.semicolon)


def _one_line(src: str, limit: int = 80) -> str:
    """Source for a marker, which is one comment line: whitespace (and comments inside the expression) collapsed."""
    text = " ".join(ln.split("#", 1)[0].strip() for ln in src.splitlines())
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
