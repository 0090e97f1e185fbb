"""Which statements a pass can skip: one ``ast`` pre-pass over the same source, read by every pass.

For each statement the pre-pass records which *kinds* of rewrite could apply inside it (a bit each):

* ``API`` (the table pass): a name bound by a torch import, by an import of a local module (its exports may be
  torch's) or by a class of the file; a method call whose name is in the table (or is one of torch.Tensor's); an
  attribute a layer's MindSpore cell spells otherwise; ``x.device.type``; a call with an ``input=`` or ``output_size=`` keyword; an
  import.
* ``OPERATORS`` (rewrite/operators.py): ``~``, ``<<``, ``>>``, ``&``, ``|``, ``^``, ``**``, an augmented
  assignment, a subscript of ``.data``, a subscript read with a step (``x[:, ::2]``), an arithmetic operator
  whose left operand is ``module.function(...)`` (a numpy scalar: ``np.sqrt(2 / np.pi) * x``).
* ``PARAM_GROUPS`` (the training pass's no_grad walk): ``.param_groups``.

The table pass does not walk into a statement without ``API`` (its bindings are still recorded), which is where
most of a model file's lines are: config dicts, shape arithmetic, ``x = self.conv(x)``. A later pass skips a
statement only when the table pass left it as parsed (not walked, or walked with nothing rewritten: ``same``) and
it holds nothing of that pass's kind. Defs and classes are never skipped (their bodies are paired).

libcst and ``ast`` statements are paired by structure (a libcst line of ``k`` small statements is ``k`` ast
statements; compound statements pair their bodies, ``elif`` / ``else`` / handlers / ``finally`` included), so no
position metadata is needed. When the two trees do not pair up, nothing is skipped.
"""
from __future__ import annotations

import ast
import sys

import libcst as cst


_STDLIB = frozenset(sys.stdlib_module_names) - {"__future__"}

API, OPERATORS, PARAM_GROUPS = 1, 2, 4
_ALL = API | OPERATORS | PARAM_GROUPS
_OPERATOR_NODES = (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor, ast.Pow)


class _Mismatch(Exception):
    pass


#: set to False to walk every statement (benchmarks/convert_speed.py and tests/core/test_relevance.py compare
#: both; outputs must be identical)
ENABLED = True


class Relevance:
    """The kinds each statement of one parsed module holds. It keeps the statements it describes alive, so an id
    is never that of a node made later."""

    def __init__(self, masks: dict[int, int] | None = None, nodes: dict[int, cst.CSTNode] | None = None):
        self._masks = masks or {}
        self._nodes = nodes or {}

    def skip(self, node: cst.CSTNode, kind: int) -> bool:
        """Whether ``node`` is an unchanged statement of the parsed module with nothing of ``kind`` inside."""
        return self._nodes.get(id(node)) is node and not self._masks[id(node)] & kind

    def same(self, new: cst.CSTNode, original: cst.CSTNode) -> None:
        """``new`` is ``original`` rebuilt by a walk that rewrote nothing in it: it holds what ``original`` holds."""
        if new is not original and self._nodes.get(id(original)) is original:
            self._masks[id(new)] = self._masks[id(original)]
            self._nodes[id(new)] = new


def analyse(module: cst.Module, tree: ast.Module | None, methods: frozenset | set,
            attrs: frozenset | set = frozenset()) -> Relevance:
    """The kinds of every statement of ``module``; ``tree``: the same source parsed by ``ast`` (None: nothing is
    skipped). ``methods``: method names the table pass rewrites; ``attrs``: attribute names a layer's MindSpore
    cell spells otherwise (``self.bn.weight`` is ``self.bn.gamma``)."""
    if not ENABLED or tree is None:
        return Relevance()
    names = _interesting_names(tree)  # None: any name may be torch's
    relevant: dict[int, int] = {}
    _mark(tree, names, methods, attrs, relevant, _inplace_layers(tree))
    masks: dict[int, int] = {}
    nodes: dict[int, cst.CSTNode] = {}
    try:
        _pair(list(module.body), tree.body, relevant, masks, nodes)
    except _Mismatch:
        return Relevance()
    return Relevance(masks, nodes)


def _statements(body: list):
    """Every statement of ``body``, nested ones included (imports and classes are statements: no expression
    needs walking to find them)."""
    todo = list(reversed(body))
    while todo:
        node = todo.pop()
        yield node
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(node, field, None)
            if isinstance(inner, list):
                for child in reversed(inner):
                    if isinstance(child, (ast.excepthandler, ast.match_case)):
                        todo.extend(reversed(child.body))
                    else:
                        todo.append(child)


def _interesting_names(tree: ast.Module) -> set[str] | None:
    names: set[str] = set()
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "torch":
                    names.add(a.asname or "torch")
                elif a.name.split(".")[0] not in _STDLIB:  # maybe a local module (``import net``; ``net.vgg``)
                    names.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom):
            mod = node.module or ""
            if any(a.name == "*" for a in node.names) and mod.split(".")[0] not in _STDLIB:
                return None  # a star import of torch or of a sibling may bind any name: skip nothing
            if mod.split(".")[0] == "torch" or node.level > 0 or mod.split(".")[0] not in _STDLIB:
                names.update(a.asname or a.name for a in node.names)  # torch's, or maybe a local module's
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
    return names


def _inplace_layers(tree: ast.Module) -> frozenset[str]:
    """Names (or ``self.<attr>`` attribute names) bound to a call with ``inplace=True`` or a positional ``True``
    (``relu = nn.ReLU(inplace=True)``): their calls may write into their input (the table pass decides)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and (
                any(k.arg == "inplace" and isinstance(k.value, ast.Constant) and k.value.value is True
                    for k in node.value.keywords)
                or any(isinstance(a, ast.Constant) and a.value is True for a in node.value.args)):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    found.add(t.id)
                elif isinstance(t, ast.Attribute):
                    found.add(t.attr)
    return frozenset(found)


def _mark(node: ast.AST, names, methods, attrs, relevant: dict[int, int], inplace=frozenset()) -> int:
    mask = 0
    if isinstance(node, ast.Name):
        if names is None or node.id in names:
            mask = API
    elif isinstance(node, ast.Attribute):
        if node.attr in attrs:
            mask = API
        if node.attr == "type" and isinstance(node.value, ast.Attribute) and node.value.attr == "device":
            mask = API  # x.device.type (the table pass)
        if node.attr in ("real", "imag"):
            mask = API  # x.imag: a method in MindSpore (the table pass)
        if node.attr == "param_groups":
            mask |= PARAM_GROUPS
    elif isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in methods:
            mask = API
        if inplace and ((isinstance(node.func, ast.Name) and node.func.id in inplace) or (
                isinstance(node.func, ast.Attribute) and node.func.attr in inplace)):
            mask = API  # a call of a layer built with inplace=True
        if any(k.arg in ("input", "output_size") for k in node.keywords):
            mask = API  # ``self.unpool(input=x, ...)``, ``self.up(x, output_size=s)``: a layer's forward keyword
    elif isinstance(node, ast.BinOp):
        if isinstance(node.op, _OPERATOR_NODES):
            mask = OPERATORS
        elif isinstance(node.left, ast.Call) and isinstance(node.left.func, ast.Attribute) and isinstance(
                node.left.func.value, ast.Name):
            mask = OPERATORS  # np.sqrt(2 / np.pi) * x: a numpy scalar on the left (rewrite/operators.py)
    elif isinstance(node, ast.UnaryOp):
        if isinstance(node.op, ast.Invert):
            mask = OPERATORS
    elif isinstance(node, ast.AugAssign):
        mask = OPERATORS
    elif isinstance(node, ast.Subscript):
        if isinstance(node.value, ast.Attribute) and node.value.attr == "data":
            mask = OPERATORS
        elif isinstance(node.ctx, ast.Load) and any(
                isinstance(e, ast.Slice) and e.step is not None
                for e in (node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice])):
            mask = OPERATORS  # x[:, ::2]: a step (rewrite/operators.py)
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        mask = API  # the table pass removes torch imports; cheap to keep
    if names is None and isinstance(node, ast.stmt):
        mask |= API
    for child in ast.iter_child_nodes(node):
        mask |= _mark(child, names, methods, attrs, relevant, inplace)
    if isinstance(node, ast.stmt):
        relevant[id(node)] = mask
    return mask


class _Suite(list):
    """The small statements of a one-line block (``if x: return y``), as a line made here to pair them: it is not
    in the tree, so its id is never recorded (a freed object's id may be reused by a node made later)."""


def _block(body) -> list:
    if isinstance(body, cst.IndentedBlock):
        return list(body.body)
    if isinstance(body, cst.SimpleStatementSuite):
        return _Suite([cst.SimpleStatementLine(body=body.body)])  # pairs as one line of small statements
    raise _Mismatch


def _pair(cst_stmts: list, ast_stmts: list, relevant: dict[int, int], masks: dict, nodes: dict) -> None:
    i = 0
    for s in cst_stmts:
        if isinstance(s, cst.SimpleStatementLine):
            k = len(s.body)
            group = ast_stmts[i:i + k]
            if len(group) != k:
                raise _Mismatch
            i += k
            if not isinstance(cst_stmts, _Suite):
                _record(s, _or(relevant.get(id(a), _ALL) for a in group), masks, nodes)
            continue
        if i >= len(ast_stmts):
            raise _Mismatch
        a = ast_stmts[i]
        i += 1
        _pair_compound(s, a, relevant, masks, nodes)
    if i != len(ast_stmts):
        raise _Mismatch


def _or(values) -> int:
    mask = 0
    for v in values:
        mask |= v
    return mask


def _record(stmt, mask: int, masks: dict, nodes: dict) -> None:
    masks[id(stmt)] = mask
    nodes[id(stmt)] = stmt


def _pair_compound(s, a, relevant, masks, nodes) -> None:
    if isinstance(s, (cst.FunctionDef, cst.ClassDef)):
        if not isinstance(a, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or a.name != s.name.value:
            raise _Mismatch
        _pair(_block(s.body), a.body, relevant, masks, nodes)
        return
    mask = relevant.get(id(a), _ALL)
    _record(s, mask, masks, nodes)
    if not mask:  # nothing of any kind anywhere inside
        return
    if isinstance(s, cst.If) and isinstance(a, ast.If):
        _pair(_block(s.body), a.body, relevant, masks, nodes)
        orelse = s.orelse
        if isinstance(orelse, cst.If):
            if len(a.orelse) != 1:
                raise _Mismatch
            _pair_compound(orelse, a.orelse[0], relevant, masks, nodes)
        elif isinstance(orelse, cst.Else):
            _pair(_block(orelse.body), a.orelse, relevant, masks, nodes)
        elif a.orelse:
            raise _Mismatch
    elif isinstance(s, (cst.For, cst.While)) and isinstance(a, (ast.For, ast.AsyncFor, ast.While)):
        _pair(_block(s.body), a.body, relevant, masks, nodes)
        if s.orelse is not None:
            _pair(_block(s.orelse.body), a.orelse, relevant, masks, nodes)
    elif isinstance(s, cst.With) and isinstance(a, (ast.With, ast.AsyncWith)):
        _pair(_block(s.body), a.body, relevant, masks, nodes)
    elif isinstance(s, (cst.Try, cst.TryStar)) and isinstance(a, (ast.Try, ast.TryStar)):
        _pair(_block(s.body), a.body, relevant, masks, nodes)
        if len(s.handlers) != len(a.handlers):
            raise _Mismatch
        for h, ah in zip(s.handlers, a.handlers):
            _pair(_block(h.body), ah.body, relevant, masks, nodes)
        if s.orelse is not None:
            _pair(_block(s.orelse.body), a.orelse, relevant, masks, nodes)
        if s.finalbody is not None:
            _pair(_block(s.finalbody.body), a.finalbody, relevant, masks, nodes)
    elif isinstance(s, cst.Match) and isinstance(a, ast.Match):
        if len(s.cases) != len(a.cases):
            raise _Mismatch
        for c, ac in zip(s.cases, a.cases):
            _pair(_block(c.body), ac.body, relevant, masks, nodes)
    else:
        raise _Mismatch
