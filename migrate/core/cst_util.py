"""Small libcst helpers shared by every layer (the table's rules, the passes, the resolver). Imports nothing of
msmigrate, so the table layer can use it without importing a pass."""
from __future__ import annotations

import dataclasses
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


#: nodes whose subtree holds no name and no expression (whitespace, comments, punctuation, operators, number and
#: plain string literals): no pass rewrites inside them, and a walk that does not descend into them (``on_visit``
#: returns False) visits well under half of a module's nodes (whitespace alone is ~45 % of them)
TOKEN_TYPES = frozenset({
    cst.SimpleWhitespace, cst.ParenthesizedWhitespace, cst.TrailingWhitespace, cst.Newline, cst.EmptyLine,
    cst.Comment, cst.Comma, cst.Dot, cst.Colon, cst.Semicolon, cst.AssignEqual, cst.ImportStar, cst.Asynchronous,
    cst.LeftParen, cst.RightParen, cst.LeftSquareBracket, cst.RightSquareBracket, cst.LeftCurlyBrace,
    cst.RightCurlyBrace, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.Ellipsis,
    *_concrete(cst.BaseBinaryOp), *_concrete(cst.BaseBooleanOp), *_concrete(cst.BaseCompOp),
    *_concrete(cst.BaseUnaryOp), *_concrete(cst.BaseAugOp)})


class Transformer(cst.CSTTransformer):
    """libcst's transformer, for walks over whole modules: ``visit_X`` / ``leave_X`` looked up once per node type
    (libcst formats the method name and calls ``getattr`` at every node), token nodes (``TOKEN_TYPES``) not walked
    into, and no per-field hooks (``visit_X_field``: none is defined here; defining one raises)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._hooks = {}
        own = {n for k in cls.__mro__ if issubclass(k, Transformer) and k is not Transformer for n in vars(k)}
        fields = [n for n in own if n.startswith(("visit_", "leave_")) and n.count("_") > 1
                  and n.split("_", 2)[1][:1].isupper()]
        if fields:
            raise TypeError(f"{cls.__name__}: per-field hooks are not called by Transformer: {fields}")

    def _hooks_of(self, t: type) -> tuple:
        hooks = type(self)._hooks.get(t)
        if hooks is None:
            hooks = type(self)._hooks[t] = (getattr(type(self), f"visit_{t.__name__}", None),
                                            getattr(type(self), f"leave_{t.__name__}", None))
        return hooks

    def on_visit(self, node: cst.CSTNode) -> bool:
        t = type(node)
        if t in TOKEN_TYPES:
            return False
        visit = self._hooks_of(t)[0]
        return visit is None or visit(self, node) is not False

    def on_leave(self, original_node, updated_node):
        t = type(original_node)
        if t in TOKEN_TYPES:
            return updated_node
        leave = self._hooks_of(t)[1]
        if leave is None:
            return updated_node
        new = leave(self, original_node, updated_node)
        if new is not updated_node and getattr(updated_node, "lpar", None) and isinstance(new, cst.BaseExpression) \
                and not getattr(new, "lpar", True):
            # the source's parentheses stay on the replacement: ``assert(torch.cuda.is_available())`` has no space
            # after ``assert`` (nor ``return(x)``, ``if(x):``, ``not(x)``), which is valid only with them
            new = new.with_changes(lpar=updated_node.lpar, rpar=updated_node.rpar)
        return new

    def on_visit_attribute(self, node, attribute) -> None:
        return None

    def on_leave_attribute(self, original_node, attribute) -> None:
        return None


_FIELDS: dict[type, tuple[str, ...]] = {}


def nodes_of(node: cst.CSTNode, types: type | tuple, skip: type | tuple = ()) -> list:
    """Every node of ``types`` in ``node``'s subtree (itself included), read straight from the
    dataclass fields: the same nodes a ``CSTVisitor`` with a ``visit_X`` would see, at a fraction of the cost
    (libcst's visit rebuilds every node it walks). Token subtrees (``TOKEN_TYPES``) are not entered, nor those of
    ``skip`` below ``node`` (such a node itself is still found when it is of ``types``)."""
    found, todo = [], [node]
    while todo:
        n = todo.pop()
        t = type(n)
        if isinstance(n, types):
            found.append(n)
        if skip and n is not node and isinstance(n, skip):
            continue
        names = _FIELDS.get(t)
        if names is None:
            names = _FIELDS[t] = tuple(f.name for f in dataclasses.fields(t))
        children = []
        for name in names:
            v = getattr(n, name)
            if isinstance(v, cst.CSTNode):
                if type(v) not in TOKEN_TYPES:
                    children.append(v)
            elif isinstance(v, (list, tuple)):
                children.extend(c for c in v if isinstance(c, cst.CSTNode) and type(c) not in TOKEN_TYPES)
        todo.extend(reversed(children))
    return found


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
