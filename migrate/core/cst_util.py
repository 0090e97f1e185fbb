"""Small libcst helpers shared by every layer (the table's rules, the passes, the resolver). Imports nothing of
msmigrate, so the table layer can use it without importing a pass."""
from __future__ import annotations

import functools

import libcst as cst

_EMPTY = cst.Module(body=[])

#: ``Call.literal`` of an argument that is an expression, not a literal.
NOT_LITERAL = object()


class Unsupported(Exception):
    """Raised by the binding steps and rules: the call stays as it was, with this reason."""


class Misfit(Unsupported):
    """The call's arguments do not fit the torch signature at all: on a receiver not known to be a tensor it is
    taken for a look-alike (``act(F, x)``'s ``F.relu(x)``) and left alone."""


def _concrete(base: type) -> frozenset:
    out, todo = set(), [base]
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if not getattr(cls, "__abstractmethods__", None):
            out.add(cls)
    return frozenset(out)


#: the statement node types, for ``type(node) in STATEMENT_TYPES``: libcst's nodes have ABCMeta for a metaclass,
#: so ``isinstance`` against them goes through ``ABCMeta.__instancecheck__`` (a few times per node of every walk)
STATEMENT_TYPES = _concrete(cst.BaseCompoundStatement) | {cst.SimpleStatementLine}


def code(node: cst.CSTNode) -> str:
    return _EMPTY.code_for_node(node)


@functools.lru_cache(maxsize=4096)
def expr(src: str) -> cst.BaseExpression:
    return cst.parse_expression(src)


_ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString,
          cst.Tuple, cst.List, cst.Dict, cst.Set, cst.ConcatenatedString, cst.FormattedString)


def atom_code(node: cst.BaseExpression) -> str:
    """Source of ``node``, parenthesised unless it is an atom (safe to splice into any template)."""
    src = code(node)
    if isinstance(node, _ATOMS) or (node.lpar and node.rpar):
        return src
    return f"({src})"


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def root(node: cst.BaseExpression) -> cst.BaseExpression:
    """The innermost receiver of an attribute / call / subscript chain (``a`` of ``a.b(c)[0].d``)."""
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        node = node.value if not isinstance(node, cst.Call) else node.func
    return node


def rename_root(node: cst.BaseExpression, new: str) -> cst.BaseExpression:
    """``node`` with the Name at the root of its attribute chain renamed (``nn.Foo`` -> ``torch_nn.Foo``)."""
    if isinstance(node, cst.Name):
        return node.with_changes(value=new)
    if isinstance(node, cst.Attribute):
        return node.with_changes(value=rename_root(node.value, new))
    if isinstance(node, cst.Call):
        return node.with_changes(func=rename_root(node.func, new))
    if isinstance(node, cst.Subscript):
        return node.with_changes(value=rename_root(node.value, new))
    return node
