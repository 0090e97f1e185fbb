"""Shared machinery of the linter: findings, the rule base class and the per-file context.

A rule is a small class with an ``ID``, a ``MESSAGE``, a ``FIX`` hint, ``VALID`` and
``INVALID`` code examples (the tests run them all: every ``INVALID`` example marks each
line the rule must flag with a trailing ``# <- flagged`` comment) and a ``check(ctx)``
generator that yields findings. Rules with a safe rewrite also define
``fix(module, imports) -> module``.

"Compiled code" means what ``ms.jit`` turns into a static graph: a ``construct`` method of
a class, a function decorated with ``jit`` / ``ms_function``, or a function of the same file
that is passed to ``jit(...)`` (also through ``value_and_grad`` / ``grad``).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import ClassVar, Iterator

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .imports import ImportMap

JIT_NAMES = {
    "mindspore.jit",
    "mindspore.ms_function",
    "mindspore.common.api.jit",
    "mindspore.common.api.ms_function",
    "mindspore.common.jit",
}
GRAD_NAMES = {"mindspore.value_and_grad", "mindspore.grad", "mindspore.ops.value_and_grad",
              "mindspore.ops.grad"}
# attributes and calls that read only static (compile-time) facts about a tensor
STATIC_ATTRS = {"shape", "ndim", "dtype", "size", "training", "requires_grad", "name"}
STATIC_CALLS = {"len", "isinstance", "type", "hasattr", "getattr", "id", "callable"}


@dataclass(frozen=True)
class Finding:
    """One problem at ``path:line:col`` (1-based line and column)."""

    path: str
    line: int
    col: int
    rule: str
    message: str
    fix: str
    cell: int | None = None  # notebooks: the cell (1-based, in notebook order); ``line`` is then within it

    def where(self) -> str:
        """``path:line:col``, or ``nb.ipynb:cell 3:line 4:col 5`` in a notebook."""
        if self.cell is not None:
            return f"{self.path}:cell {self.cell}:line {self.line}:col {self.col}"
        return f"{self.path}:{self.line}:{self.col}"

    def text(self) -> str:
        return f"{self.where()}: {self.rule} {self.message} (fix: {self.fix})"

    def to_dict(self) -> dict:
        d = asdict(self)
        if self.cell is None:
            del d["cell"]
        return d


class Context:
    """A parsed file with positions, resolved imports and its compiled functions."""

    def __init__(self, path: str, module: cst.Module) -> None:
        self.path = path
        wrapper = MetadataWrapper(module)
        self.module = wrapper.module
        self.positions = wrapper.resolve(PositionProvider)
        self.imports = ImportMap(self.module)
        self.compiled = _compiled_functions(self.module, self.imports)
        self._methods = {id(f): {s.name.value for s in c.body.body if isinstance(s, cst.FunctionDef)}
                         for c in walk(self.module) if isinstance(c, cst.ClassDef)
                         for f in c.body.body if isinstance(f, cst.FunctionDef)}

    def methods_of(self, func: cst.FunctionDef) -> set[str]:
        """Names of the methods defined beside ``func`` in its class (empty for functions)."""
        return self._methods.get(id(func), set())

    def finding(self, rule: type["Rule"], node: cst.CSTNode, message: str | None = None,
                fix: str | None = None) -> Finding:
        start = self.positions[node].start
        return Finding(self.path, start.line, start.column + 1, rule.ID,
                       message or rule.MESSAGE, fix or rule.FIX)

    def qualname(self, node: cst.BaseExpression) -> str | None:
        return self.imports.qualname(node)


class Rule:
    """Base class of a lint rule; see the module docstring."""

    ID: ClassVar[str]
    NAME: ClassVar[str]
    MESSAGE: ClassVar[str]
    FIX: ClassVar[str]
    VALID: ClassVar[list[str]] = []
    INVALID: ClassVar[list[str]] = []

    def check(self, ctx: Context) -> Iterator[Finding]:  # pragma: no cover - abstract
        raise NotImplementedError

    fix = None  # optional: staticmethod (module, imports) -> module


# ---------------------------------------------------------------- tree helpers
def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node below ``node`` (pre-order), ``node`` included."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


def call_name(ctx: Context, node: cst.CSTNode) -> str | None:
    """Qualified name of the callee when ``node`` is a call."""
    if isinstance(node, cst.Call):
        return ctx.qualname(node.func)
    return None


def _decorator_target(dec: cst.Decorator) -> cst.BaseExpression:
    return dec.decorator.func if isinstance(dec.decorator, cst.Call) else dec.decorator


def _jitted_names(module: cst.Module, imports: ImportMap) -> set[str]:
    """Names of functions passed to ``jit(...)``, directly or through value_and_grad/grad."""
    names: set[str] = set()
    for node in walk(module):
        if isinstance(node, cst.Call) and imports.qualname(node.func) in JIT_NAMES and node.args:
            target = node.args[0].value
            while isinstance(target, cst.Call) and imports.qualname(target.func) in GRAD_NAMES \
                    and target.args:
                target = target.args[0].value
            if isinstance(target, cst.Name):
                names.add(target.value)
    return names


def _compiled_functions(module: cst.Module, imports: ImportMap) -> list[cst.FunctionDef]:
    """Outermost compiled functions of a module, in source order."""
    jitted = _jitted_names(module, imports)
    found: list[cst.FunctionDef] = []

    def visit(node: cst.CSTNode, in_class: bool) -> None:
        for child in node.children:
            if isinstance(child, cst.FunctionDef):
                if (in_class and child.name.value == "construct") or child.name.value in jitted \
                        or any(imports.qualname(_decorator_target(d)) in JIT_NAMES
                               for d in child.decorators):
                    found.append(child)
                    continue
                visit(child, False)
            elif isinstance(child, cst.ClassDef):
                visit(child, True)
            elif not isinstance(child, cst.BaseExpression):
                visit(child, in_class if isinstance(child, (cst.IndentedBlock,
                                                           cst.SimpleStatementSuite)) else False)

    visit(module, False)
    return found


# ----------------------------------------------------- tensor-value inference
def _is_static_use(parent_chain: list[cst.CSTNode]) -> bool:
    """True when a name is used only for a compile-time fact (shape, ``is None``, len...)."""
    for parent, child in zip(parent_chain[1:], parent_chain):
        if isinstance(parent, cst.Attribute) and parent.value is child \
                and parent.attr.value in STATIC_ATTRS:
            return True
        if isinstance(parent, cst.Call) and child is not parent.func:
            return _static_callee(parent.func)
        if isinstance(parent, cst.Comparison) and all(
                isinstance(t.operator, (cst.Is, cst.IsNot)) for t in parent.comparisons):
            return True
        if isinstance(parent, (cst.BooleanOperation, cst.UnaryOperation)):
            continue
        if not isinstance(parent, (cst.Attribute, cst.Subscript, cst.SubscriptElement,
                                   cst.Index, cst.Arg)):
            return False
    return False


def tensor_refs(expr: cst.CSTNode, tensors: set[str]) -> list[cst.Name]:
    """Names in ``expr`` that refer to tensors and are used for their values."""
    refs = []

    def visit(node: cst.CSTNode, chain: list[cst.CSTNode]) -> None:
        if isinstance(node, cst.Name) and node.value in tensors:
            if not _is_static_use(chain):
                refs.append(node)
            return
        if isinstance(node, (cst.Lambda, cst.FunctionDef)):
            return
        for child in node.children:
            if isinstance(node, cst.Attribute) and child is node.attr:
                continue
            visit(child, [child] + chain)

    visit(expr, [expr])
    return refs


def _python_default(param: cst.Param) -> bool:
    default = param.default
    return default is not None and not (isinstance(default, cst.Name) and default.value == "None")


def _assigned_names(target: cst.BaseExpression) -> list[str]:
    if isinstance(target, cst.Name):
        return [target.value]
    if isinstance(target, (cst.Tuple, cst.List)):
        return [n for el in target.elements for n in _assigned_names(el.value)]
    return []


def tensor_names(ctx: Context, func: cst.FunctionDef) -> set[str]:
    """Local names of ``func`` that (probably) hold tensors.

    Parameters other than ``self`` without a Python default, and every name assigned from an
    expression that calls a layer (``self.conv(x)``), a MindSpore function, or reads another
    tensor's value.
    """
    params = func.params
    names = {p.name.value for p in (*params.posonly_params, *params.params, *params.kwonly_params)
             if p.name.value != "self" and not _python_default(p)}
    if params.star_arg is not None and isinstance(params.star_arg, cst.Param):
        names.add(params.star_arg.name.value)
    methods = ctx.methods_of(func)
    for _ in range(2):  # second pass picks up names used before a later re-assignment
        for node in walk(func.body):
            if isinstance(node, (cst.Assign, cst.AugAssign, cst.AnnAssign)) and node.value is not None:
                if _is_tensor_expr(ctx, node.value, names, methods):
                    targets = ([t.target for t in node.targets] if isinstance(node, cst.Assign)
                               else [node.target])
                    for target in targets:
                        names.update(n for n in _assigned_names(target) if not _is_static_name(n))
    return names


STATIC_RESULT = {"shape", "shape_op", "dtype", "rank", "size", "ndim", "is_floating_point",
                 "is_sequence_value_unknown", "is_sequence_shape_unknown", "get_shape", "typeof"}


def _static_callee(func: cst.BaseExpression) -> bool:
    """``len``, ``isinstance``..., ``ops.shape``, ``F.dtype``, ``ops.Shape()``, ``self.shape_op``."""
    if isinstance(func, cst.Call):
        func = func.func
    if isinstance(func, cst.Name):
        return func.value in STATIC_CALLS or func.value.lower() in STATIC_RESULT
    return isinstance(func, cst.Attribute) and func.attr.value.lower() in STATIC_RESULT


def _is_static_name(name: str) -> bool:
    """Names that by convention hold Python shape / dtype facts (``in_shape``, ``x_dtype``)."""
    return name.lower().endswith(("shape", "dtype", "ndim", "rank"))


def _is_tensor_expr(ctx: Context, expr: cst.BaseExpression, tensors: set[str],
                    methods: set[str] = frozenset()) -> bool:
    """Does ``expr`` (probably) evaluate to a tensor?"""
    if tensor_refs(expr, tensors):
        return True
    stack = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, cst.Attribute) and node.attr.value in STATIC_ATTRS:
            continue
        if isinstance(node, cst.Call):
            name = ctx.qualname(node.func) or ""
            last = name.rpartition(".")[2]
            if _static_callee(node.func):
                continue  # len(...), ops.shape(x), ops.Shape()(x), F.dtype(x): Python values
            if name.startswith("self.") and name.count(".") == 1 and last in methods:
                continue  # a helper method of the class: treated as Python code
            if name.startswith(("mindspore.", "self.")) and not name.startswith("mindspore.dtype"):
                return True
            if isinstance(node.func, cst.Call) and (call_name(ctx, node.func) or "").startswith(
                    "mindspore."):  # ops.ReLU()(x)
                return True
        stack.extend(node.children)
    return False
