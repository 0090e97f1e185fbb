"""MS001: tensors collected in a Python list/dict and combined with Python arithmetic in
compiled code (article 3.3 and 6.2).

The article reports gradients that silently vanish once such code runs under ``ms.jit``.
Measured on MindSpore 2.10 CPU (see tests/test_jitcheck.py) the gradients survive, but the
container is unrolled element by element into the graph; ``ops.stack`` / ``ops.cat`` keep one
tensor operation and are correct on every version. Combining with ``ops.stack`` /
``ops.cat`` / ``ops.concat`` is therefore not reported.

Safe fix (``--fix``), only for the clear pattern ``acc = []`` filled by one ``acc.append(t)``
in a ``for`` loop and combined by ``sum(acc)``, or by ``acc[0] + ... + acc[n-1]`` after
``for _ in range(n)``: the combination becomes ``ops.stack(acc).sum(axis=0)``.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from ..core import Context, Rule, _compiled_functions, walk
from ..imports import ImportMap
from ..fixes import ensure_ops

ARITH = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.MatrixMultiply)
FILL_METHODS = {"append", "extend", "insert"}


class ListAccumulation(Rule):
    ID = "MS001"
    NAME = "python-container-tensors"
    MESSAGE = "tensors in a Python container combined with Python arithmetic in compiled code"
    FIX = "combine with ops.stack(...).sum(axis=0) or ops.cat(...)"
    VALID = [
        """
class Net(nn.Cell):
    def construct(self, x):
        feats = []
        for i in range(4):
            feats.append(self.conv(x))
        return ops.stack(feats).sum(axis=0) + ops.cat(feats, axis=1).mean()
""",
        """
def evaluate(net, batches):  # not compiled
    losses = []
    for b in batches:
        losses.append(net(b))
    return sum(losses)
""",
    ]
    INVALID = [
        """
class Net(nn.Cell):
    def construct(self, x):
        temp = []
        for i in range(4):
            temp.append(self.conv(x))
        out = temp[0] + temp[1] + temp[2] + temp[3]  # <- flagged
        return out
""",
        """
import mindspore as ms

@ms.jit
def step(x):
    parts = {}
    parts["a"] = x * 2
    parts["b"] = x * 3
    total = sum(parts.values())  # <- flagged
    acc = []
    for i in range(3):
        acc.append(x * i)
    return total + sum(acc)  # <- flagged
""",
    ]

    def check(self, ctx: Context):
        for func in ctx.compiled:
            for site in _combinations(ctx.imports, func):
                yield ctx.finding(type(self), site.node,
                                  f"tensors in Python container '{site.container}' combined "
                                  "with Python arithmetic in compiled code")

    @staticmethod
    def fix(module: cst.Module, imports: ImportMap) -> cst.Module:
        fixable = {id(s.node): s for f in _compiled_functions(module, imports)
                   for s in _combinations(imports, f) if s.fixable}
        if not fixable:
            return module
        module, ops_name = ensure_ops(module, imports)
        return module.visit(_StackRewrite(fixable, ops_name))


@dataclass
class _Site:
    node: cst.BaseExpression
    container: str
    fixable: bool


def _containers(func: cst.FunctionDef) -> dict[str, str]:
    """name -> 'list' | 'dict' for containers created empty in ``func``."""
    found = {}
    for node in walk(func.body):
        if isinstance(node, cst.Assign) and len(node.targets) == 1 \
                and isinstance(node.targets[0].target, cst.Name):
            value = node.value
            kind = ("list" if isinstance(value, cst.List) and not value.elements else
                    "dict" if isinstance(value, cst.Dict) and not value.elements else
                    value.func.value if isinstance(value, cst.Call) and not value.args
                    and isinstance(value.func, cst.Name) and value.func.value in ("list", "dict")
                    else None)
            if kind:
                found[node.targets[0].target.value] = kind
    return found


def _subscript_of(node: cst.CSTNode, names) -> str | None:
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) \
            and node.value.value in names:
        return node.value.value
    return None


def _container_arg(node: cst.Call, callee: str, names) -> str | None:
    """``sum(acc)`` / ``sum(d.values())`` / ``reduce(f, acc)`` -> container name."""
    position = 0 if callee == "sum" else 1
    if len(node.args) <= position:
        return None
    arg = node.args[position].value
    if isinstance(arg, cst.Call) and isinstance(arg.func, cst.Attribute) \
            and arg.func.attr.value == "values":
        arg = arg.func.value
    return arg.value if isinstance(arg, cst.Name) and arg.value in names else None


def _combinations(imports: ImportMap, func: cst.FunctionDef) -> list[_Site]:
    containers = _containers(func)
    if not containers:
        return []
    sites: list[_Site] = []
    covered: set[int] = set()
    loop_vars: dict[str, str] = {}
    for node in walk(func.body):
        if id(node) in covered:
            continue
        if isinstance(node, cst.For) and isinstance(node.target, cst.Name):
            it = node.iter
            if isinstance(it, cst.Call) and isinstance(it.func, cst.Attribute) \
                    and it.func.attr.value == "values":
                it = it.func.value
            if isinstance(it, cst.Name) and it.value in containers:
                loop_vars[node.target.value] = it.value
        callee = imports.qualname(node.func) if isinstance(node, cst.Call) else None
        if callee in ("sum", "functools.reduce", "reduce"):
            name = _container_arg(node, callee, containers)
            if name:
                simple = callee == "sum" and len(node.args) == 1 \
                    and isinstance(node.args[0].value, cst.Name)
                sites.append(_Site(node, name, simple and _filled_by_one_append(func, name)))
        elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, ARITH):
            leaves = _leaves(node)
            names = {_subscript_of(leaf, containers) for leaf in leaves} - {None}
            if names:
                covered.update(id(n) for n in walk(node))
                name = sorted(names)[0]
                sites.append(_Site(node, name, _indices_cover_range(func, node, name)))
        elif isinstance(node, cst.AugAssign) and isinstance(node.value, cst.Name) \
                and node.value.value in loop_vars:
            sites.append(_Site(node, loop_vars[node.value.value], False))
    return sites


def _leaves(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, ARITH):
        return _leaves(node.left) + _leaves(node.right)
    return [node]


def _appends(func: cst.FunctionDef, name: str) -> tuple[list[cst.For], int]:
    """Loops whose body appends to ``name``, and the number of fill calls overall."""
    loops, fills = [], 0
    for node in walk(func.body):
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) \
                and isinstance(node.func.value, cst.Name) and node.func.value.value == name \
                and node.func.attr.value in FILL_METHODS:
            fills += 1 if node.func.attr.value == "append" else 100
        if isinstance(node, cst.For) and any(
                isinstance(n, cst.Call) and isinstance(n.func, cst.Attribute)
                and isinstance(n.func.value, cst.Name) and n.func.value.value == name
                for n in walk(node.body)):
            loops.append(node)
        if isinstance(node, (cst.Assign, cst.AugAssign)) and any(
                _subscript_of(t.target, {name}) for t in getattr(node, "targets", [])):
            fills += 100
    return loops, fills


def _filled_by_one_append(func: cst.FunctionDef, name: str) -> bool:
    loops, fills = _appends(func, name)
    return len(loops) == 1 and fills == 1


def _indices_cover_range(func: cst.FunctionDef, node: cst.BinaryOperation, name: str) -> bool:
    """``acc[0] + ... + acc[n-1]`` after ``for _ in range(n): acc.append(t)``."""
    leaves = _leaves(node)
    if not all(isinstance(op, cst.Add) for op in _operators(node)):
        return False
    indices = []
    for leaf in leaves:
        if _subscript_of(leaf, {name}) is None or len(leaf.slice) != 1 \
                or not isinstance(leaf.slice[0].slice, cst.Index) \
                or not isinstance(leaf.slice[0].slice.value, cst.Integer):
            return False
        indices.append(int(leaf.slice[0].slice.value.value))
    if not _filled_by_one_append(func, name):
        return False
    loop = _appends(func, name)[0][0]
    it = loop.iter
    if not (isinstance(it, cst.Call) and isinstance(it.func, cst.Name) and it.func.value == "range"
            and len(it.args) == 1 and isinstance(it.args[0].value, cst.Integer)):
        return False
    return sorted(indices) == list(range(int(it.args[0].value.value)))


def _operators(node: cst.BaseExpression) -> list[cst.BaseBinaryOp]:
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, ARITH):
        return _operators(node.left) + [node.operator] + _operators(node.right)
    return []


class _StackRewrite(cst.CSTTransformer):
    def __init__(self, sites: dict[int, _Site], ops_name: str) -> None:
        self.sites = sites
        self.ops = cst.parse_expression(ops_name)

    def _replace(self, original, updated):
        site = self.sites.get(id(original))
        if site is None:
            return updated
        return cst.parse_expression(f"OPS.stack({site.container}).sum(axis=0)").visit(
            _Substitute(self.ops))

    leave_Call = _replace
    leave_BinaryOperation = _replace


class _Substitute(cst.CSTTransformer):
    def __init__(self, ops: cst.BaseExpression) -> None:
        self.ops = ops

    def leave_Name(self, original: cst.Name, updated: cst.Name):
        return self.ops if original.value == "OPS" else updated
