"""The rewrite pass: one walk over the tree in source order.

Concerns are kept apart in small helpers rather than separate tree walks (each libcst walk costs about as much as
parsing, and the convert benchmark targets 5 kLOC/s per core):

* imports   — torch imports are resolved (``migrate.names``), removed, and replaced by the MindSpore imports the
              converted code needs; they are kept when something torch stays unconverted;
* modules   — classes deriving from a torch module become Cells and their ``forward`` becomes ``construct``;
* API uses  — calls, tensor-method calls and references (bases, dtypes, ``isinstance`` targets) are converted
              through the mapping table (``migrate.rewrite.calls``);
* markers   — whatever cannot be converted keeps its original text, with ``# msmigrate: unsupported ...`` above
              its statement, and is recorded for the report.
"""
from __future__ import annotations

import re
from collections import Counter

import libcst as cst

from ..mapping import Entry, Table
from ..names import Aliases, canonical, dotted
from . import inplace
from .calls import Call, Unsupported, code, expr
from .msnames import import_lines, names_used, short_name

MARKER = "# msmigrate: unsupported"
_PLACEHOLDER = "__msmigrate_imports__"
_NON_TENSOR_LITERALS = (
    cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.List, cst.Dict, cst.Set,
    cst.ListComp, cst.DictComp, cst.SetComp, cst.Integer, cst.Float,
)
# Methods that legitimately take a string literal argument on tensors; any other method called with one is
# taken for a str/list/dict method (``line.split(",")``) and left alone.
_STR_ARG_METHODS = {"to", "type", "norm", "einsum", "register_buffer", "get_submodule", "div", "divide",
                    "div_", "scatter", "scatter_"}
_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
_ARG_RULE_FIELDS = ("rename", "fill", "transform", "inject", "drop", "rule", "forms", "unsupported")


def _has_arg_rules(entry: Entry) -> bool:
    return any(getattr(entry, f) for f in _ARG_RULE_FIELDS)


def _root(node: cst.BaseExpression) -> cst.BaseExpression:
    while isinstance(node, (cst.Attribute, cst.Call, cst.Subscript)):
        node = node.value if not isinstance(node, cst.Call) else node.func
    return node


class Rewriter(cst.CSTTransformer):
    def __init__(self, table: Table) -> None:
        super().__init__()
        self.table = table
        self.aliases = Aliases()
        self.removed_torch_imports: list[tuple[str, set[str]]] = []  # module-level (statement text, names bound)
        self.torch_left: set[str] = set()  # local torch names still used by unconverted code
        self.records: list[tuple[str, str, cst.CSTNode]] = []  # (api, reason, original node)
        # converted statement -> its original statement: later passes (EXTRA_PASSES) report positions with it
        self.origins: dict[cst.CSTNode, cst.CSTNode] = {}
        self.uses = 0
        self.apis: Counter = Counter()
        self._pending: list[list[str]] = []  # marker comments per open statement
        self._skip: set[int] = set()  # ids of nodes that are not references (callees, inner chain parts)
        self._bases: set[int] = set()  # ids of class-base expressions
        self._module_classes: set[str] = set()
        self._class_stack: list[bool] = []
        self._non_tensors: list[set[str]] = [set()]
        self._depth = 0  # function/class nesting
        self._placeholder_done = False
        self._carry: list[cst.EmptyLine] = []  # comments of a removed import line, for the next statement
        self._carry_to: int | None = None
        self._statement_calls: set[int] = set()  # ids of calls that are a whole expression statement
        self._rebinds: dict[int, cst.BaseExpression] = {}  # in-place call id -> receiver to assign to

    # -- bookkeeping ----------------------------------------------------------------------------------
    @property
    def converted(self) -> int:
        return sum(self.apis.values())

    def _ok(self, api: str) -> None:
        self.uses += 1
        self.apis[api] += 1

    def _fail(self, api: str, reason: str, node: cst.CSTNode, torch_rooted: bool = True) -> None:
        self.uses += 1
        self.records.append((api, reason, node))
        if torch_rooted:
            self.torch_left.add((dotted(_root(node)) or "").split(".")[0])
        if self._pending:
            self._pending[-1].append(f"{MARKER} {api}: {reason}")

    def on_visit_attribute(self, node, attribute) -> None:  # no per-field hooks here: skip libcst's lookups
        return None

    def on_leave_attribute(self, original_node, attribute) -> None:
        return None

    def on_visit(self, node: cst.CSTNode) -> bool:
        if isinstance(node, _STATEMENTS):
            self._pending.append([])
            if self._carry and self._carry_to is None:
                self._carry_to = id(node)
        return super().on_visit(node)

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        if isinstance(original, _STATEMENTS):
            messages = self._pending.pop()
            if isinstance(result, _STATEMENTS):
                extra = []
                if self._carry and self._carry_to == id(original):
                    extra, self._carry, self._carry_to = self._carry, [], None
                existing = {ln.comment.value for ln in result.leading_lines if ln.comment}
                extra += [cst.EmptyLine(comment=cst.Comment(m)) for m in dict.fromkeys(messages)
                          if m not in existing]
                if extra:
                    result = result.with_changes(leading_lines=[*extra, *result.leading_lines]
                                                 if self._is_carry(extra) else [*result.leading_lines, *extra])
                self.origins[result] = original
        return result

    @staticmethod
    def _is_carry(lines) -> bool:
        return bool(lines) and not (lines[0].comment and lines[0].comment.value.startswith(MARKER))

    # -- imports --------------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        self.aliases.record(node)
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        self.aliases.record(node)
        return False

    def _is_torch_import(self, node) -> bool:
        if isinstance(node, cst.Import):
            return any((dotted(a.name) or "").split(".")[0] == "torch" for a in node.names)
        return not node.relative and (dotted(node.module) or "").split(".")[0] == "torch"

    def leave_SimpleStatementLine(self, original, updated):
        torch_imports = [s for s in updated.body if isinstance(s, (cst.Import, cst.ImportFrom))
                         and self._is_torch_import(s)]
        if not torch_imports:
            return updated
        if self._depth == 0:
            names = {n for s in torch_imports for n in _bound_names(s)}
            self.removed_torch_imports.append((code(updated.with_changes(leading_lines=[])).strip(), names))
        rest = [s for s in updated.body if s not in torch_imports]
        if rest:
            return updated.with_changes(body=rest)
        if self._depth == 0 and not self._placeholder_done:
            self._placeholder_done = True
            return updated.with_changes(body=[cst.Expr(cst.Name(_PLACEHOLDER))])
        comments = [ln for ln in updated.leading_lines if ln.comment]
        if comments:
            self._carry += comments
        return cst.RemoveFromParent()

    def leave_IndentedBlock(self, original, updated):
        if not updated.body:  # a function whose only statement was `import torch`
            return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated

    def leave_Module(self, original, updated):
        """Make sure converted code has a place for its imports; ``finish`` fills it once the text exists."""
        body = list(updated.body)
        if self.uses and not any(_is_placeholder(stmt) for stmt in body):
            at = _after_preamble(body)
            body[at:at] = [cst.SimpleStatementLine([cst.Expr(cst.Name(_PLACEHOLDER))])]
        return updated.with_changes(body=body)

    def finish(self, text: str) -> str:
        """Replace the import placeholder with the MindSpore imports the converted text uses (``nn.``, ``ops.``,
        ``ms.``...), plus the torch imports that unconverted code still needs. Done on the final text, after every
        pass, so a pass never has to track imports."""
        line = _PLACEHOLDER + "\n"
        if line not in text:
            return text
        lines = import_lines(names_used(text.replace(line, "")))
        lines += [f"{src}  # msmigrate: kept for the unconverted APIs marked below"
                  for src, names in self.removed_torch_imports if names & self.torch_left]
        return text.replace(line, "".join(f"{imp}\n" for imp in lines), 1)

    # -- scopes and modules ---------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        is_module = False
        for base in node.bases:
            self._bases.add(id(base.value))
            q = self.aliases.qualify(base.value)
            if (q and canonical(q).startswith("torch.nn.")) or dotted(base.value) in self._module_classes:
                is_module = True
        if is_module:
            self._module_classes.add(node.name.value)
        self._class_stack.append(is_module)
        self._depth += 1

    def leave_ClassDef(self, original, updated):
        self._class_stack.pop()
        self._depth -= 1
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth += 1
        self._non_tensors.append(set())

    def leave_FunctionDef(self, original, updated):
        self._depth -= 1
        self._non_tensors.pop()
        if self._class_stack and self._class_stack[-1]:
            if updated.name.value == "forward":
                self._ok("torch.nn.Module.forward")
                return updated.with_changes(name=cst.Name("construct"))
            if updated.name.value == "__init__" and _FILLS_CONTAINER.search(code(updated.body)):
                return _rename_parameters_at_end(updated)
        return updated

    def visit_Assign(self, node: cst.Assign) -> None:
        """Remember local names bound to numpy results and Python literals: their methods are not tensors'."""
        for target in node.targets:
            if isinstance(target.target, cst.Name):
                name = target.target.value
                if self._is_non_tensor(node.value):
                    self._non_tensors[-1].add(name)
                else:
                    self._non_tensors[-1].discard(name)

    def _is_non_tensor(self, node: cst.BaseExpression) -> bool:
        if isinstance(node, _NON_TENSOR_LITERALS):
            return True
        root = _root(node)
        if isinstance(root, _NON_TENSOR_LITERALS):
            return True
        if isinstance(root, cst.Name):
            if root.value in self._non_tensors[-1]:
                return True
            return self.aliases.is_numpy(self.aliases.qualify(root))
        return False

    # -- API uses -------------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self._skip.add(id(node.func))

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.value))
        self._skip.add(id(node.attr))

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        q = self.aliases.qualify(original.func)
        if q is not None:
            if not self.aliases.is_torch(q):
                return updated
            return self._convert(canonical(q), updated, original)
        if isinstance(original.func, cst.Attribute) and self._imports_torch:
            return self._method(original, updated)
        return updated

    @property
    def _imports_torch(self) -> bool:
        """Tensor methods are only rewritten in files that use torch (which also keeps conversion idempotent)."""
        return any(self.aliases.is_torch(v) for v in self.aliases.names.values())

    def _convert(self, api: str, updated: cst.Call, original: cst.Call):
        entry = self.table.lookup(api)
        if entry is None:
            self._fail(api, "no MindSpore mapping in msmigrate's table", original)
            return updated
        try:
            call = Call(updated, entry)
            new = call.convert()
        except Unsupported as exc:
            self._fail(api, str(exc), original)
            return updated
        self._ok(api)
        return new

    def _method(self, original: cst.Call, updated: cst.Call):
        name = original.func.attr.value
        entry = self.table.methods.get(name)
        if entry is None or self._is_non_tensor(original.func.value):
            return updated
        if name not in _STR_ARG_METHODS and any(
                isinstance(a.value, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))
                for a in original.args):
            return updated
        api = entry.torch
        if entry.is_identity:
            self._ok(api)
            return updated
        try:
            if entry.inplace:
                new, rebind = inplace.convert(original, updated, entry, self.table,
                                              id(original) in self._statement_calls)
                if rebind:
                    self._rebinds[id(original)] = updated.func.value
            else:
                new = Call(updated, entry, receiver=updated.func.value).convert()
        except Unsupported as exc:
            self._fail(api, str(exc), original, torch_rooted=False)
            return updated
        self._ok(api)
        return new

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call):
            self._statement_calls.add(id(node.value))

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr):
        target = self._rebinds.pop(id(original.value), None)
        return updated if target is None else inplace.rebind_statement(updated, target)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        if id(original) in self._skip:
            return updated
        return self._reference(original, updated)

    def leave_Name(self, original: cst.Name, updated: cst.Name):
        if id(original) in self._skip or original.value not in self.aliases.names:
            return updated
        return self._reference(original, updated)

    def _reference(self, original, updated):
        """A torch name used without being called: a base class, a dtype, an isinstance target..."""
        q = self.aliases.qualify(original)
        if not self.aliases.is_torch(q):
            return updated
        api = canonical(q)
        entry = self.table.lookup(api)
        if entry is None:
            self._fail(api, "no MindSpore mapping in msmigrate's table", original)
            return updated
        if "*" in entry.unsupported:
            self._fail(api, entry.unsupported["*"], original)
            return updated
        if not entry.ms or entry.ms == "=":
            self._fail(api, "only supported when called", original)
            return updated
        if id(original) in self._bases and _has_arg_rules(entry):
            self._fail(api, "subclassing it passes torch constructor arguments through super().__init__, "
                            "which cannot be adapted", original)
            return updated
        if entry.kind == "function" and _has_arg_rules(entry):
            self._fail(api, "used as a value: its arguments cannot be adapted where it is called", original)
            return updated
        target = short_name(entry.ms)
        self._ok(api)
        new = expr(target)
        return new.with_changes(lpar=updated.lpar, rpar=updated.rpar) if hasattr(new, "lpar") else new


# `self.blocks = nn.ModuleList()` then `self.blocks.append(block)`: MindSpore's CellList.append names the new
# parameters without the parent's prefix ("0.weight"), so two such lists collide and optimizers refuse the net.
_FILLS_CONTAINER = re.compile(r"\bself\.\w+\.(append|extend|insert)\(")
_RENAME_STMT = "self.update_parameters_name()  # msmigrate: CellList.append names parameters without their path\n"


def _rename_parameters_at_end(func: cst.FunctionDef) -> cst.FunctionDef:
    """Append ``self.update_parameters_name()`` (names = attribute paths, as torch's state_dict) to __init__."""
    body = func.body
    if isinstance(body, cst.IndentedBlock) and not any(
            _RENAME_STMT.split("  #")[0] in code(stmt) for stmt in body.body):
        return func.with_changes(body=body.with_changes(body=[*body.body, cst.parse_statement(_RENAME_STMT)]))
    return func


def _is_placeholder(stmt) -> bool:
    return (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)
            and isinstance(stmt.body[0].value, cst.Name) and stmt.body[0].value.value == _PLACEHOLDER)


def _bound_names(node: cst.Import | cst.ImportFrom) -> set[str]:
    if isinstance(node, cst.ImportFrom):
        if isinstance(node.names, cst.ImportStar):
            return set()
        return {(a.asname.name.value if a.asname else a.name.value) for a in node.names}
    return {(a.asname.name.value if a.asname else (dotted(a.name) or "").split(".")[0]) for a in node.names}


def _after_preamble(body) -> int:
    """Index after the module docstring and ``from __future__`` imports."""
    i = 0
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and stmt.body and (
            (isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, cst.SimpleString))
            or (isinstance(stmt.body[0], cst.ImportFrom) and dotted(stmt.body[0].module) == "__future__")
        ):
            continue
        return i
    return len(body)
