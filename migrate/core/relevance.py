"""Which statements a pass can skip: an ``ast`` pre-pass over the same source.

A statement is *relevant* when something in it could be rewritten: a name bound by a torch import, by an
import of a local module (its exports may be torch's) or by a class of the file; or a method call whose name is
in the table (or is one of torch.Tensor's). The table pass does not walk into the other statements (their
bindings are still recorded), which is where most of a model file's lines are: config dicts, shape arithmetic,
``x = self.conv(x)``.

libcst and ``ast`` statements are paired by structure (a libcst line of ``k`` small statements is ``k`` ast
statements; compound statements pair their bodies, ``elif`` / ``else`` / handlers / ``finally`` included), so no
position metadata is needed. When the two trees do not pair up, nothing is skipped.
"""
from __future__ import annotations

import ast
import sys

import libcst as cst


_STDLIB = frozenset(sys.stdlib_module_names) - {"__future__"}


class _Mismatch(Exception):
    pass


#: set to False to walk every statement (benchmarks/convert_speed.py compares both; outputs must be identical)
ENABLED = True


def skippable(module: cst.Module, source: str, methods: frozenset | set, attrs: frozenset | set = frozenset()
              ) -> set[int]:
    """ids of the libcst statements of ``module`` that hold nothing to rewrite (never a def or class). ``attrs``:
    attribute names a layer's MindSpore cell spells otherwise (``self.bn.weight`` is ``self.bn.gamma``)."""
    if not ENABLED:
        return set()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    names = _interesting_names(tree)
    if names is None:
        return set()
    relevant: dict[int, bool] = {}
    _mark(tree, names, methods, attrs, relevant)
    out: set[int] = set()
    try:
        _pair(list(module.body), tree.body, relevant, out)
    except _Mismatch:
        return set()
    return out


def _interesting_names(tree: ast.Module) -> set[str] | None:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "torch":
                    names.add(a.asname or "torch")
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if any(a.name == "*" for a in node.names) and mod.split(".")[0] not in _STDLIB:
                return None  # a star import of torch or of a sibling may bind any name: skip nothing
            if mod.split(".")[0] == "torch" or node.level > 0 or mod.split(".")[0] not in _STDLIB:
                names.update(a.asname or a.name for a in node.names)  # torch's, or maybe a local module's
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
    return names


def _mark(node: ast.AST, names, methods, attrs, relevant: dict[int, bool]) -> bool:
    hit = False
    if isinstance(node, ast.Name):
        hit = node.id in names
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        hit = node.func.attr in methods
    elif isinstance(node, ast.Attribute):
        hit = node.attr in attrs
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        hit = True  # the table pass removes torch imports; cheap to keep
    for child in ast.iter_child_nodes(node):
        if _mark(child, names, methods, attrs, relevant):
            hit = True
    if isinstance(node, ast.stmt):
        relevant[id(node)] = hit
    return hit


class _Suite(list):
    """The small statements of a one-line block (``if x: return y``), as a line made here to pair them: it is not
    in the tree, so its id is never recorded (a freed object's id may be reused by a node made later)."""


def _block(body) -> list:
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    if isinstance(body, cst.SimpleStatementSuite):
        return _Suite([cst.SimpleStatementLine(body=body.body)])  # pairs as one line of small statements
    raise _Mismatch


def _pair(cst_stmts: list, ast_stmts: list, relevant: dict[int, bool], out: set[int]) -> None:
    i = 0
    for s in cst_stmts:
        if isinstance(s, cst.SimpleStatementLine):
            k = len(s.body)
            group = ast_stmts[i:i + k]
            if len(group) != k:
                raise _Mismatch
            i += k
            if not isinstance(cst_stmts, _Suite) and not any(relevant.get(id(a), True) for a in group):
                out.add(id(s))
            continue
        if i >= len(ast_stmts):
            raise _Mismatch
        a = ast_stmts[i]
        i += 1
        _pair_compound(s, a, relevant, out)
    if i != len(ast_stmts):
        raise _Mismatch


def _pair_compound(s, a, relevant, out) -> None:
    if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
        if not isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or a.name != s.name.value:
            raise _Mismatch
        _pair(_block(s.body), a.body, relevant, out)
        return
    if not relevant.get(id(a), True):  # nothing to rewrite anywhere inside
        out.add(id(s))
        return
    if isinstance(s, cst.If) and isinstance(a, ast.If):
        _pair(_block(s.body), a.body, relevant, out)
        orelse = s.orelse
        if isinstance(orelse, cst.If):
            if len(a.orelse) != 1:
                raise _Mismatch
            _pair_compound(orelse, a.orelse[0], relevant, out)
        elif isinstance(orelse, cst.Else):
            _pair(_block(orelse.body), a.orelse, relevant, out)
        elif a.orelse:
            raise _Mismatch
    elif isinstance(s, (cst.For, cst.While)) and isinstance(a, (ast.For, ast.AsyncFor, ast.While)):
        _pair(_block(s.body), a.body, relevant, out)
        if s.orelse is not None:
            _pair(_block(s.orelse.body), a.orelse, relevant, out)
    elif isinstance(s, cst.With) and isinstance(a, (ast.With, ast.AsyncWith)):
        _pair(_block(s.body), a.body, relevant, out)
    elif isinstance(s, (cst.Try, cst.TryStar)) and isinstance(a, (ast.Try, ast.TryStar)):
        _pair(_block(s.body), a.body, relevant, out)
        if len(s.handlers) != len(a.handlers):
            raise _Mismatch
        for h, ah in zip(s.handlers, a.handlers):
            _pair(_block(h.body), ah.body, relevant, out)
        if s.orelse is not None:
            _pair(_block(s.orelse.body), a.orelse, relevant, out)
        if s.finalbody is not None:
            _pair(_block(s.finalbody.body), a.finalbody, relevant, out)
    elif isinstance(s, cst.Match) and isinstance(a, ast.Match):
        if len(s.cases) != len(a.cases):
            raise _Mismatch
        for c, ac in zip(s.cases, a.cases):
            _pair(_block(c.body), ac.body, relevant, out)
    else:
        raise _Mismatch
