"""The operators pass: Python operators whose meaning on a MindSpore Tensor differs from torch's.

Found by the differential fuzzer (tests/fuzz, issue 16) and measured on MindSpore 2.10 CPU:

* ``~x`` is a bitwise not on integer tensors in torch (``[0, -1] -> [-1, 0]``) and a logical not for every dtype in
  MindSpore (``-> [False, False]``): silently wrong numbers. It becomes ``ops.invert(x)`` for non-bool tensors
  (``Invert``: integer dtypes; float raises, as torch does) and stays ``~x`` for bool tensors and Python ints.
* ``a << b`` / ``a >> b`` raise TypeError on MindSpore tensors: ``ops.bitwise_left_shift`` /
  ``ops.bitwise_right_shift``.
* ``2 & x`` / ``2 | x`` / ``2 ^ x`` (a number on the left) raise TypeError: the operands are swapped (the
  operations commute, the result dtype is the same).
* a torch module is in training mode once built, a MindSpore Cell in inference mode: the mode pass
  (migrate/rewrite/mode.py) sets it where the script builds the model, never inside a Cell.
* ``x += v`` (any arithmetic or bitwise augmented assignment) updates a torch tensor in place: every alias of ``x``
  sees the change and ``x`` keeps its dtype; on a MindSpore tensor it binds a new tensor (the alias keeps the old
  values, the dtype promotes; measured). Where an alias can exist (``x`` is a parameter of the function, so the
  caller holds it, or the scope assigns ``y = x`` / ``x = y``) the statement becomes
  ``if ops.is_tensor(x): x.copy_(x + v)`` ``else: x += v`` (Python's own operator for numbers and lists). Where no
  alias can exist, the statement becomes ``if ops.is_tensor(x): x = (x + v).astype(x.dtype)`` ``else: x += v``:
  torch keeps ``x``'s dtype (``float16 += float32`` stays float16, ``int32 += int64`` int32), MindSpore's operator
  promoted (fuzzed, issue 16); ``p.data += v`` gets the same form on ``p.data`` (MindSpore's ``p.data = ...``
  rebinds ``p``'s data with the promoted dtype). A number on the right (a literal, ``t.item()``, ``len(...)``,
  ``float(...)``) is left as written: it never changes a tensor's dtype class in either framework (``int += 1.5``
  raises in torch). CAVEAT: an alias made through a container or an attribute (``lst.append(x)``,
  ``self.buf = x``) is not seen; where torch raises (``int64_tensor += float_tensor``: "result type Float can't be
  cast"), the converted code casts (truncates) instead of raising.
* ``p.data[...] = v`` leaves ``p`` unchanged in MindSpore (``p.data[:] = v`` and ``p[...] = v`` update it): the
  ``.data`` is dropped from such a target.
* ``np.sqrt(2 / np.pi) * x`` (a numpy scalar on the left of an arithmetic operator, a tanh-GELU as research code
  writes it): torch's Tensor outranks numpy (``__array_priority__``), so the result is a tensor; numpy's scalar
  outranks a MindSpore Tensor, so the result is a numpy array (measured: float64, float32 and int64 scalars, with
  ``*``, ``+``, ``-``, ``/``): gradients are lost and the next MindSpore op raises. The numpy operand becomes a
  Python number, ``np.sqrt(2 / np.pi).item()`` (its value and int/float kind kept; a number never changes a
  tensor's dtype in either framework). Taken as numpy: a call of a numpy function whose arguments are constants
  (an elementwise function: ``sqrt``, ``exp``, ``log``, ... of literals, ``np.pi``, ``np.e`` and arithmetic of
  them), or of a numpy scalar type (``np.float32(v)``). CAVEAT: a
  numpy value held in a variable (``c = np.sqrt(2.0)`` then ``c * x``) is not seen.
* ``x[:, ::2]`` (a subscript read whose index has a step): MindSpore 2.10's CPU StridedSliceGrad fails ("input
  memory out of bounds") for a step on a middle axis of a tensor of 3 or more dimensions (swin's PatchMerging, LeViT's
  subsampling; measured), so the backward of such a model cannot run. It becomes ``_msmigrate_getitem(x, (slice(None),
  slice(None, None, 2)))`` (migrate/helpers/templates/strided_getitem.py): those axes by ops.gather, anything else
  (a list, a string, a step on the first or last axis) indexed as written. A literal string is left alone.

The converter cannot tell a tensor from a Python number here, so the first two are written as a test at run
time, ``(ops.invert(x) if ops.is_tensor(x) and x.dtype != ms.bool_ else ~x)``; an operand that is not a name or
attribute chain is bound once by a ``lambda`` so it is evaluated once. Literal-only expressions (``~0``,
``1 << 4``) and operands that are certainly bool (comparisons, ``isnan(...)``, ``logical_*``) are left alone.
CAVEAT: a user class overloading ``~`` or ``<<`` on non-tensor objects still gets its own operator (the run-time
test sends only tensors to ``ops``).
"""
from __future__ import annotations

import libcst as cst

from ..core import emit, relevance
from ..core.cst_util import STATEMENT_TYPES, Transformer
from ..core.imports import after_preamble
from . import helpers

BOOL_CALLS = {"isnan", "isinf", "isfinite", "isposinf", "isneginf", "isclose", "eq", "ne", "lt", "le", "gt", "ge",
              "logical_not", "logical_and", "logical_or", "logical_xor", "signbit", "isin", "equal", "bool",
              "greater", "less", "greater_equal", "less_equal", "not_equal", "is_nonzero", "isreal"}
SHIFTS = {cst.LeftShift: "ops.bitwise_left_shift", cst.RightShift: "ops.bitwise_right_shift"}
AUG_SHIFTS = {cst.LeftShiftAssign: "ops.bitwise_left_shift", cst.RightShiftAssign: "ops.bitwise_right_shift"}
COMMUTING = (cst.BitAnd, cst.BitOr, cst.BitXor)


_OPERATORS = ("~", "<<", ">>", "&", "|", "^", "[...]", "=", "**", "::")


def applies(source: str) -> bool:
    """Operators to rewrite, or a call whose conversion uses a helper (migrate/rewrite/helpers.py)."""
    return "torch" in source and (any(op in source for op in _OPERATORS) or helpers.may_need(source)
                                  or "numpy" in source)


def _code(node) -> str:
    return cst.Module([]).code_for_node(node)


def _is_literal(node) -> bool:
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)):
        return True
    if isinstance(node, cst.Name) and node.value in ("True", "False", "None"):
        return True
    if isinstance(node, cst.UnaryOperation):
        return _is_literal(node.expression)
    if isinstance(node, cst.BinaryOperation):
        return _is_literal(node.left) and _is_literal(node.right)
    return False


def _simple(node) -> bool:
    """Cheap to evaluate twice, without side effects: a name or an attribute chain."""
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _certainly_bool(node) -> bool:
    if isinstance(node, cst.Comparison):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.BitInvert):
        return _certainly_bool(node.expression)
    if isinstance(node, cst.Call):
        f = node.func
        name = f.attr.value if isinstance(f, cst.Attribute) else f.value if isinstance(f, cst.Name) else ""
        return name in BOOL_CALLS
    return False


def _expr(text: str) -> cst.BaseExpression:
    return emit.expression(text)  # requests the imports of what it emits (ops., ms.)


def _invert(operand) -> cst.BaseExpression:
    if _simple(operand):
        x = _code(operand)
        return _expr(f"(ops.invert({x}) if ops.is_tensor({x}) and {x}.dtype != ms.bool_ else ~{x})")
    return _expr(f"(lambda t: ops.invert(t) if ops.is_tensor(t) and t.dtype != ms.bool_ else ~t)({_code(operand)})")


def _shift(fn: str, op: str, left, right) -> cst.BaseExpression:
    if (_simple(left) or _is_literal(left)) and (_simple(right) or _is_literal(right)):
        a, b = _code(left), _code(right)
        tests = " or ".join(f"ops.is_tensor({v})" for v, n in ((a, left), (b, right)) if not _is_literal(n))
        return _expr(f"({fn}({a}, {b}) if {tests} else {a} {op} {b})")
    return _expr(f"(lambda a, b: {fn}(a, b) if ops.is_tensor(a) or ops.is_tensor(b) else a {op} b)"
                 f"({_code(left)}, {_code(right)})")


class _Operators(Transformer):
    def __init__(self, ctx):
        super().__init__()
        self.ctx = ctx
        self.changed = 0
        self._fallbacks: set[int] = set()  # `else a << b` branches this pass wrote (converting again adds nothing)
        self._aliased: list[set[str]] = []  # per scope: names whose tensor another name may share
        self._stores: set[int] = set()  # subscripts that are written or deleted (``x[::2] = v``), not read

    def visit_Module(self, node: cst.Module) -> None:
        self._aliased.append(_alias_names(node.body))

    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) in STATEMENT_TYPES and self.ctx.relevance.skip(node, relevance.OPERATORS):
            return False  # untouched by the table pass and no operator inside (core/relevance.py)
        return super().on_visit(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        params = [p.name.value for p in (*node.params.posonly_params, *node.params.params,
                                         *node.params.kwonly_params)]
        self._aliased.append(set(params) | _alias_names(node.body.body if isinstance(node.body, cst.IndentedBlock)
                                                         else ()))
        # a helper the output defines (converting again): _msm_* (rewrite/helpers.py), _msmigrate_* (migrate/helpers)
        return not node.name.value.startswith(("_msm_", "_msmigrate_"))

    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        return not node.name.value.startswith("_Msmigrate")  # a helper class (converting again)

    def leave_FunctionDef(self, original, updated):
        self._aliased.pop()
        return self._leave_function(original, updated)

    def visit_If(self, node: cst.If) -> None:
        if _code(node.test).startswith("ops.is_tensor(") and node.orelse is not None:
            for stmt in node.orelse.body.body:
                self._fallbacks.add(id(stmt))

    def leave_SimpleStatementLine(self, original, updated):
        if id(original) in self._fallbacks or len(updated.body) != 1 or not isinstance(updated.body[0], cst.AugAssign):
            return updated
        aug = updated.body[0]
        sym = INPLACE_OPS.get(type(aug.operator))
        if sym is None or isinstance(aug.value, NOT_TENSORS):  # path += ".ckpt", names += ["a"]: never a tensor
            return updated
        data = isinstance(aug.target, cst.Attribute) and aug.target.attr.value == "data"
        if not isinstance(aug.target, cst.Name) and not data:
            return updated
        shared = isinstance(aug.target, cst.Name) and bool(self._aliased) and aug.target.value in self._aliased[-1]
        if not shared and (_is_literal(aug.value) or _number_call(aug.value)):
            return updated  # i += 1, total += loss.item(): a Python number never widens a tensor's dtype class
        if not shared and any("msmigrate: unsupported" in (ln.comment.value if ln.comment else "")
                              for ln in updated.leading_lines):
            return updated  # marked unconvertible: left as written (the marker stays on the statement)
        x, v = _code(aug.target), _code(aug.value)
        if not (_simple(aug.value) or _is_literal(aug.value) or isinstance(aug.value, (cst.Call, cst.Subscript))):
            v = f"({v})"
        value = f"_msm_pow({x}, {_code(aug.value)})" if sym == "**" and _pow_needs_helper(aug.target, aug.value) \
            else f"{x} {sym} {v}"
        fallback = _code(updated.with_changes(leading_lines=[])).strip()
        if shared:
            self._count(f"{sym}= on a shared tensor")
            text = f"{x}.copy_(_msm_inplace({x}, {value}))  # in place as in torch: aliases of {x} see the change"
        else:
            self._count(f"{sym}= keeps the dtype")
            text = f"{x} = _msm_inplace({x}, {value})  # in place: {x} keeps its dtype"
        stmt = emit.statement(f"if ops.is_tensor({x}):\n    {text}\nelse:\n    {fallback}\n")
        return stmt.with_changes(leading_lines=updated.leading_lines)

    def visit_IfExp(self, node: cst.IfExp) -> None:
        if "ops.is_tensor(" in _code(node.test):
            self._fallbacks.add(id(node.orelse))

    def _count(self, what: str) -> None:
        self.changed += 1
        self.ctx.ok(f"operator {what}")

    def leave_UnaryOperation(self, original, updated):
        if id(original) in self._fallbacks:
            return updated
        if not isinstance(updated.operator, cst.BitInvert):
            return updated
        if _is_literal(updated.expression) or _certainly_bool(original.expression):
            return updated
        self._count("~")
        return _invert(updated.expression)

    def leave_BinaryOperation(self, original, updated):
        if id(original) in self._fallbacks:
            return updated
        op = type(updated.operator)
        if op in SHIFTS:
            if _is_literal(updated.left) and _is_literal(updated.right):
                return updated
            self._count("<<" if op is cst.LeftShift else ">>")
            return _shift(SHIFTS[op], "<<" if op is cst.LeftShift else ">>", updated.left, updated.right)
        if op is cst.Power and _pow_needs_helper(updated.left, updated.right):
            self._count("**")
            return _expr(f"_msm_pow({_code(updated.left)}, {_code(updated.right)})")
        if op in ARITHMETIC and self._numpy_scalar(updated.left) and not self._numpy_constant(updated.right):
            self._count("numpy scalar " + _code(updated.operator).strip() + " tensor")
            return updated.with_changes(left=cst.Call(func=cst.Attribute(value=_parenthesized(updated.left),
                                                                         attr=cst.Name("item"))))
        if isinstance(updated.operator, COMMUTING) and _is_literal(updated.left) and not _is_literal(updated.right):
            self._count(_code(updated.operator).strip())
            return updated.with_changes(left=updated.right, right=updated.left)
        return updated

    def _numpy_scalar(self, node) -> bool:
        """``np.sqrt(2 / np.pi)``, ``np.float32(v)``: a numpy scalar (the module docstring)."""
        if not isinstance(node, cst.Call):
            return False
        q = self.ctx.resolver.qualify(node.func)
        if not q or not (q == "numpy" or q.startswith("numpy.")):
            return False
        name = q.rsplit(".", 1)[-1]
        if name in NUMPY_SCALAR_TYPES:
            return len(node.args) == 1 and not node.args[0].star
        return name in NUMPY_UFUNCS and all(not a.star and self._numpy_constant(a.value) for a in node.args)

    def _numpy_constant(self, node) -> bool:
        if _is_literal(node):
            return True
        if isinstance(node, cst.Attribute):
            return self.ctx.resolver.qualify(node) in ("numpy.pi", "numpy.e")
        if isinstance(node, cst.UnaryOperation):
            return self._numpy_constant(node.expression)
        if isinstance(node, cst.BinaryOperation):
            return self._numpy_constant(node.left) and self._numpy_constant(node.right)
        return self._numpy_scalar(node)

    def leave_AugAssign(self, original, updated):
        op = type(updated.operator)
        if op not in AUG_SHIFTS:
            return updated
        target = updated.target
        sym = "<<" if op is cst.LeftShiftAssign else ">>"
        self._count(sym + "=")
        return cst.Assign(targets=[cst.AssignTarget(target=target)],
                          value=_shift(AUG_SHIFTS[op], sym, target, updated.value))

    def _leave_function(self, original, updated):
        return updated

    def visit_AssignTarget(self, node) -> None:
        self._stores.add(id(node.target))

    def visit_AugAssign(self, node) -> None:
        self._stores.add(id(node.target))

    def visit_AnnAssign(self, node) -> None:
        self._stores.add(id(node.target))

    def visit_Del(self, node) -> None:
        self._stores.add(id(node.target))
        for e in getattr(node.target, "elements", ()):
            self._stores.add(id(e.value))

    def visit_For(self, node) -> None:
        self._stores.add(id(node.target))

    def leave_Subscript(self, original, updated):
        """``x[:, ::2]`` read: a step goes through _msmigrate_getitem (the module docstring)."""
        if id(original) in self._stores or isinstance(updated.value, (cst.SimpleString, cst.ConcatenatedString,
                                                                       cst.FormattedString, cst.List, cst.Tuple)):
            return updated
        if not any(isinstance(e.slice, cst.Slice) and e.slice.step is not None for e in updated.slice):
            return updated
        parts = []
        for e in updated.slice:
            s = e.slice
            if isinstance(s, cst.Slice):
                parts.append("slice(" + ", ".join(_code(v) if v is not None else "None"
                                                  for v in (s.lower, s.upper, s.step)) + ")")
            else:
                parts.append(_code(s.value))
        index = parts[0] if len(parts) == 1 else "(" + ", ".join(parts) + ")"
        self._count("x[::step]")
        return _expr(f"_msmigrate_getitem({_code(updated.value)}, {index})")

    def leave_AssignTarget(self, original, updated):
        t = updated.target
        if (isinstance(t, cst.Subscript) and len(t.slice) == 1 and isinstance(t.slice[0].slice, cst.Index)
                and isinstance(t.slice[0].slice.value, cst.Ellipsis) and isinstance(t.value, cst.Attribute)
                and t.value.attr.value == "data"):
            self._count("p.data[...] =")
            return updated.with_changes(target=t.with_changes(value=t.value.value))
        return updated


ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.FloorDivide, cst.Modulo, cst.Power,
              cst.MatrixMultiply)
NUMPY_SCALAR_TYPES = {"float16", "float32", "float64", "double", "single", "half", "int8", "int16", "int32",
                      "int64", "uint8", "bool_", "float_", "int_"}
# elementwise numpy functions: on constant (scalar) arguments they give a numpy scalar
NUMPY_UFUNCS = {"sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "arcsin",
                "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "power", "float_power", "abs", "absolute",
                "floor", "ceil", "square", "reciprocal", "hypot", "maximum", "minimum", "sign", "deg2rad", "radians",
                "degrees", "rad2deg", "cbrt"}


def _parenthesized(node):
    """``node`` as the receiver of ``.item()``: a call or a name needs no parentheses."""
    if isinstance(node, (cst.Call, cst.Name, cst.Attribute)) or node.lpar:
        return node
    return node.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


INPLACE_OPS = {cst.AddAssign: "+", cst.SubtractAssign: "-", cst.MultiplyAssign: "*", cst.DivideAssign: "/",
               cst.FloorDivideAssign: "//", cst.ModuloAssign: "%", cst.PowerAssign: "**", cst.BitAndAssign: "&",
               cst.BitOrAssign: "|", cst.BitXorAssign: "^"}


def _number_call(node) -> bool:
    """``t.item()`` / ``len(xs)`` / ``float(v)``: certainly a Python number."""
    if not isinstance(node, cst.Call):
        return False
    if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("item", "numel", "dim", "ndimension"):
        return True
    if isinstance(node.func, cst.Name) and node.func.value in ("len", "int", "float", "bool"):
        return True
    return False


NOT_TENSORS = (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Tuple, cst.Dict, cst.Set,
               cst.ListComp, cst.DictComp, cst.SetComp)


def _pow_needs_helper(base, exponent) -> bool:
    """``a ** b`` differs on MindSpore integer tensors only for a 0 base and a negative exponent (torch: 0,
    MindSpore: the dtype's minimum): a literal exponent (a negative one on an integer tensor raises in torch) or a
    non-zero literal base cannot give that."""
    if _is_literal(exponent) or (_is_literal(base) and _code(base).strip() not in ("0", "False")):
        return False
    return not isinstance(exponent, (cst.SimpleString, cst.List, cst.Tuple))


def _alias_names(body) -> set[str]:
    """Both names of every ``a = b`` in ``body`` (nested blocks included, nested functions and classes not). An
    assignment is a statement, so only statements are scanned, not their expressions."""
    out: set[str] = set()
    stack = list(body)
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, cst.SimpleStatementLine):
            _add_aliases(stmt.body, out)
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            continue
        elif isinstance(stmt, cst.BaseCompoundStatement):
            stack.extend(_blocks(stmt))
    return out


def _add_aliases(small_statements, out: set[str]) -> None:
    for small in small_statements:
        if isinstance(small, cst.Assign) and isinstance(small.value, cst.Name):
            names = [t.target.value for t in small.targets if isinstance(t.target, cst.Name)]
            if names:
                out.update(names)
                out.add(small.value.value)


def _blocks(stmt) -> list:
    """The statements directly inside a compound statement: its body, ``elif`` (as an If), else, except and
    finally blocks, match cases; a one-line block's small statements as one line."""
    out = []
    for part in (getattr(stmt, "body", None), getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None),
                 *getattr(stmt, "handlers", ()), *getattr(stmt, "cases", ())):
        if isinstance(part, cst.If):  # elif
            out.append(part)
            continue
        if isinstance(part, (cst.Else, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally, cst.MatchCase)):
            part = part.body
        if isinstance(part, cst.IndentedBlock):
            out.extend(part.body)
        elif isinstance(part, cst.SimpleStatementSuite):
            out.append(cst.SimpleStatementLine(body=part.body))
    return out


def _after_imports(body) -> int:
    """After the docstring, ``__future__`` imports and the module's imports right below them."""
    at = after_preamble(body)
    while at < len(body) and isinstance(body[at], cst.SimpleStatementLine) and body[at].body and isinstance(
            body[at].body[0], (cst.Import, cst.ImportFrom)):
        at += 1
    return at


def run(module: cst.Module, ctx) -> cst.Module:
    return module.visit(_Operators(ctx))


def define_helpers(module: cst.Module, ctx) -> str:
    """After the imports are applied: the text of ``module`` with the helpers (rewrite/helpers.py) that converted
    calls use defined below the imports."""
    code = module.code
    if helpers.used_apis(ctx):
        return helpers.insert_code(module, code, _after_imports)
    return code
