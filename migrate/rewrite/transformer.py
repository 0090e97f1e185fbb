"""The table-driven pass: one walk over the tree in source order, over one :class:`FileContext`.

Concerns are kept apart in small helpers rather than separate tree walks (each libcst walk costs about as much as
parsing):

* names     — every binding is recorded in the context's scope-aware resolver as the walk reaches it
              (``migrate.core.resolve``): imports, parameters, assignments, class attributes, comprehensions;
* imports   — torch imports are removed and handed to the context's import plan, which writes the MindSpore
              imports (and the torch ones unconverted code still needs, under names that cannot collide) once,
              after every pass (``migrate.core.imports``);
* modules   — classes deriving from a torch module become Cells and their ``forward`` becomes ``construct``;
* API uses  — calls, tensor-method calls and references (bases, dtypes, ``isinstance`` targets) are converted
              through the mapping table (``migrate.rewrite.calls``); a method is converted when its receiver is
              a tensor or unknown, left alone when it is provably something else (``self``, a submodule, a
              string, a list, a numpy array, an object of a non-Module class), and marked when the receiver is a
              tensor and the table lacks the method;
* markers   — whatever cannot be converted keeps its original text, with ``# msmigrate: unsupported ...`` above
              its statement (written by the context's diagnostics store), and is recorded for the report.
"""
from __future__ import annotations


import re

import libcst as cst

from ..core.context import FileContext
from ..core import emit
from ..core.diagnostics import new_markers
from ..core.imports import MS_OBJECTS
from ..core import relevance
from ..core.parens import Parens, fix_attribute, fix_call, fix_subscript
from ..core.cst_util import STATEMENT_TYPES, TOKEN_TYPES, Transformer, dotted, rename_root, root as _root
from ..core.resolve import NO, UNKNOWN, YES
from ..core.walk import Binder
from ..mapping import Entry
from ..names import canonical
from . import inplace
from .calls import Call, Misfit, Unsupported, code, expr
from .msnames import names_used, short_name

# Methods that legitimately take a string literal argument on tensors; any other method called with one is
# taken for a str/list/dict method (``line.split(",")``) and left alone unless the receiver is a tensor.
# torch.nn.Module methods that mindspore.nn.Cell (MindSpore 2.10) has no attribute of that name for, and the table
# does not map (measured: dir(torch.nn.Module) - dir(mindspore.nn.Cell) - the table's Module entries). Called on a
# module, each is a marker: the converted Cell would raise AttributeError when built or run, with convert silent.
# CAVEAT: a method both have under one name with other semantics (register_backward_hook) is not seen here.
_CELL_LACKS = frozenset({
    "bfloat16", "double", "extra_repr", "float", "get_parameter", "get_submodule", "half", "ipu", "mtia",
    "register_full_backward_pre_hook",
    "set_submodule", "share_memory", "type", "xpu"})

# libraries written in torch that models import (backbones, layer getters): their code is torch code
_TORCH_LIBRARIES = frozenset({"torchvision", "torchaudio", "torchtext"})

# torch.nn.Module's own dictionaries, which research code edits directly (equalized learning rate, weight norm:
# ``del module._parameters[name]``): MindSpore's Cell holds the same objects, by name, under another attribute
# (measured: deleting from ``_params`` removes the parameter, ``_cells`` holds the sub-cells). Recognised by name:
# no other object has them.
_MODULE_DICTS = {"_parameters": "_params", "_modules": "_cells"}

_STR_ARG_METHODS = {"to", "type", "norm", "einsum", "register_buffer", "register_parameter", "get_submodule", "div",
                    "divide", "div_", "divide_", "scatter", "scatter_"}
_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)
_ARG_RULE_FIELDS = ("rename", "fill", "transform", "inject", "drop", "rule", "forms", "unsupported")


# entry fields that change what a call computes when arguments are omitted or given: a class with one of them
# cannot be renamed where it is used as a value (``norm_layer=nn.BatchNorm2d``) without an adapter (``value``)
_DEFAULT_RULE_FIELDS = ("fill", "transform", "inject", "rule", "forms")


def _has_arg_rules(entry: Entry) -> bool:
    return any(getattr(entry, f) for f in _ARG_RULE_FIELDS)


def _is_torch_import(node) -> bool:
    if isinstance(node, cst.Import):
        return any((dotted(a.name) or "").split(".")[0] == "torch" for a in node.names)
    return not node.relative and node.module is not None and (dotted(node.module) or "").split(".")[0] == "torch"


class Rewriter(Parens, Transformer):
    """The table-driven pass over one file (``run(ctx)``)."""

    def __init__(self, ctx: FileContext) -> None:
        super().__init__()
        self.ctx = ctx
        self.table = ctx.table
        self.resolver = ctx.resolver
        self.binder = Binder(ctx.resolver)
        self._pending: list[list[str]] = []  # marker comments per open statement
        self._strided_layouts: set[int] = set()  # calls that write layout=torch.strided (the default)
        self._skip: set[int] = set()  # ids of nodes that are not references (callees, inner chain parts)
        self._bases: set[int] = set()  # ids of class-base expressions
        self._class_stack: list[bool] = []
        self._depth = 0  # function/class nesting
        self._stmt_depth = 0  # statement nesting (1: a module-level statement)
        self._top_kept = 0  # module-level statements kept so far (the import plan's anchor)
        self._first_import_seen = False
        self._carry: list[cst.EmptyLine] = []  # comments of a removed import line, for the next statement
        self._carry_to: int | None = None
        self._statement_calls: set[int] = set()  # ids of calls that are a whole expression statement
        self._rebinds: dict[int, cst.BaseExpression] = {}  # in-place call id -> receiver to assign to
        self._rebinding_calls: set[int] = set()  # x = layer(x): calls whose input name is rebound to the result
        self._pure_links: set[int] = set()  # in-place links whose statement writes back (inplace.subscript_chain)
        self._method_names = (frozenset(ctx.table.methods) | ctx.table.tensor_method_names | ctx.deferred_methods
                              | _CELL_LACKS)
        self._narrowing: dict[int, tuple[str, str, dict]] = {}  # if-body id -> (name, torch class, renames)
        self._narrowed: list[tuple[str, str, dict]] = []  # the isinstance branches being walked
        self._class_names: dict[str, str] = {}  # ``classname = m.__class__.__name__``: classname -> m
        self._changed: list[bool] = []  # per statement being walked: whether anything in it was rewritten
        self._class_refs: set[int] = set()  # ids of torch names used as classes (isinstance targets, comparisons)
        self._int_evidence = None  # Python int evidence of arguments (int_values.py), built on first use
        self._plain_values: set[int] | None = None  # layer values written as the MindSpore class (layer_values.py)

    def _finish_statement(self, original, result, messages):
        """A rewritten statement: its markers above it (once), and what it came from."""
        if self._stmt_depth == 0:
            self._top_kept += 1
        extra = []
        if self._carry and self._carry_to == id(original):
            extra, self._carry, self._carry_to = self._carry, [], None
        seen = result.leading_lines
        if self._stmt_depth == 0 and self._top_kept == 1:  # the file's first statement: libcst reads
            seen = [*self.ctx.module.header, *seen]  # the comments above it as the module's header
        marks = new_markers(seen, messages)
        if extra or marks:
            result = result.with_changes(leading_lines=[*extra, *result.leading_lines, *marks])
        self.ctx.origins[result] = original
        return result

    # -- bookkeeping ----------------------------------------------------------------------------------
    def _ok(self, api: str, new: cst.CSTNode | None = None) -> None:
        self.ctx.ok(api)
        if new is not None:
            self.ctx.imports.need(names_used(code(new)))

    def _fail(self, api: str, reason: str, node: cst.CSTNode, updated: cst.BaseExpression | None = None,
              torch_rooted: bool = True):
        """Record an unsupported use; returns ``updated`` with its torch root renamed where the kept torch import
        gets another name (``nn.Foo`` -> ``torch_nn.Foo``)."""
        local = None
        if torch_rooted:
            local = (dotted(_root(node)) or "").split(".")[0] or None
            b = self.resolver.lookup(local) if local else None
            if b is None or b.qualname is None:
                local = None
        text = self.ctx.unsupported(api, reason, node, local)
        if self._pending:
            self._pending[-1].append(text)
        if local is not None:
            alias = self.ctx.imports.torch_name(local, self.resolver.lookup(local).qualname)
            if updated is not None and alias != local:
                return rename_root(updated, alias)
        return updated

    def on_visit(self, node: cst.CSTNode) -> bool:
        if type(node) in TOKEN_TYPES:  # nothing to rewrite or bind inside (core/cst_util.py)
            return False
        if type(node) is cst.Module:
            self.ctx.relevance = relevance.analyse(node, self.ctx.tree, self._method_names,
                                                   _renamed_attrs(self.table))
        self.binder.enter(node)
        if type(node) is cst.If:
            self._narrow(node)
        elif id(node) in self._narrowing:
            self._narrowed.append(self._narrowing.pop(id(node)))
        if type(node) in STATEMENT_TYPES:
            self._pending.append([])
            self._changed.append(False)
            self._stmt_depth += 1
            if self._carry and self._carry_to is None:
                self._carry_to = id(node)
            # nothing to rewrite inside (core/relevance.py), unless an isinstance narrowing renames attributes
            # there (``m.groups`` under ``isinstance(m, nn.Conv2d)`` names no torch object itself)
            if type(node) is cst.SimpleStatementLine:
                self._class_name_assign(node)
            if (not self._narrowed and id(getattr(node, "body", None)) not in self._narrowing
                    and self.ctx.relevance.skip(node, relevance.API)) or _generated(node):
                self.binder.bind_only(node, enter=False)  # its bindings still count
                return False
        return super().on_visit(node)

    def on_leave(self, original, updated):
        if type(original) in TOKEN_TYPES:
            return updated
        result = super().on_leave(original, updated)
        self.binder.exit(original)
        if self._narrowed and self._narrowed[-1][3] == id(original):
            self._narrowed.pop()
        if type(original) in STATEMENT_TYPES:
            self._stmt_depth -= 1
            messages = self._pending.pop()
            if isinstance(result, cst.FlattenSentinel) and result.nodes:  # one statement became several
                first, *more = result.nodes
                result = cst.FlattenSentinel([self._finish_statement(original, first, messages), *more])
                if self._stmt_depth == 0:
                    self._top_kept += len(more)
            elif isinstance(result, _STATEMENTS):
                result = self._finish_statement(original, result, messages)
            changed = self._changed.pop() or result is not updated
            if not changed:  # walked, nothing rewritten: later passes read it as the parsed statement
                self.ctx.relevance.same(result, original)
            elif self._changed:
                self._changed[-1] = True
        elif result is not updated and self._changed:
            self._changed[-1] = True
        return result

    # -- imports --------------------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def leave_SimpleStatementLine(self, original, updated):
        torch_imports = [s for s in updated.body if isinstance(s, (cst.Import, cst.ImportFrom))
                         and _is_torch_import(s)]
        if not torch_imports:
            self._torch_library(updated)
            return self._einops(updated)
        return self._torch_imports(updated, torch_imports)

    def _torch_library(self, updated) -> None:
        """``import torchvision.models._utils as _utils``: a library written in torch (its layers, its
        IntermediateLayerGetter walking ``named_children``) is torch code inside the converted file. A marker at the
        import: its source must be converted as well (``msmigrate convert`` of the library, put on the path in its
        place), or the use replaced."""
        for node in updated.body:
            if not isinstance(node, (cst.Import, cst.ImportFrom)):
                continue
            if isinstance(node, cst.Import):
                modules = [dotted(a.name) or "" for a in node.names]
            else:
                modules = [] if node.relative or node.module is None else [dotted(node.module) or ""]
            for m in modules:
                root = m.split(".")[0]
                if root in _TORCH_LIBRARIES:
                    self._fail(root, f"{root} is a library written in torch: its classes and functions stay torch "
                                     f"code here; convert its sources too (msmigrate convert) and put them on the "
                                     f"path in its place, or replace the use", node, torch_rooted=False)
                    break

    def _einops(self, updated):
        """``import einops`` / ``from einops import rearrange``: einops has no MindSpore backend, so the statement is
        followed by ``_msmigrate_einops_mindspore()`` (a helper defining one; migrate/helpers/templates/
        einops_backend.py). ``from einops.layers.torch import Rearrange, Reduce`` (torch layers) binds the names to
        the helper Cells instead; any other name of that module stays torch's, with a marker."""
        if len(updated.body) != 1 or not isinstance(updated.body[0], (cst.Import, cst.ImportFrom)):
            return updated
        node = updated.body[0]
        modules = [dotted(a.name) or "" for a in node.names] if isinstance(node, cst.Import) else \
            ([] if node.relative or node.module is None else [dotted(node.module) or ""])
        if not any(m == "einops" or m.startswith("einops.") for m in modules):
            return updated
        if isinstance(node, cst.ImportFrom) and modules == ["einops.layers.torch"] and \
                not isinstance(node.names, cst.ImportStar):
            layers = {"Rearrange": "_MsmigrateEinopsRearrange", "Reduce": "_MsmigrateEinopsReduce"}
            binds = [(a.asname.name.value if a.asname else a.name.value, layers[a.name.value])
                     for a in node.names if a.name.value in layers]
            rest = [a for a in node.names if a.name.value not in layers]
            for a in rest:
                self._fail(f"einops.layers.torch.{a.name.value}", "a torch layer; only Rearrange and Reduce are "
                           "converted (to MindSpore Cells)", node, torch_rooted=False)
            self.ctx.ok("einops.layers.torch")
            out = [emit.statement(f"{local} = {cell}  # einops.layers.torch.{cell[len('_MsmigrateEinops'):]} as a "
                                  "MindSpore Cell\n") for local, cell in binds]
            if rest:
                out.insert(0, updated.with_changes(body=[node.with_changes(names=[
                    *rest[:-1], rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])]))
            out[0] = out[0].with_changes(leading_lines=updated.leading_lines)
            return cst.FlattenSentinel(out)
        self.ctx.ok("einops")
        return cst.FlattenSentinel([updated, emit.statement(
            "_msmigrate_einops_mindspore()  # einops learns MindSpore tensors\n")])

    def _torch_imports(self, updated, torch_imports):
        # `import sys, numpy as np, torch`: the other modules' names stay imported
        others = {id(s): [a for a in s.names if (dotted(a.name) or "").split(".")[0] != "torch"]
                  for s in torch_imports if isinstance(s, cst.Import)}
        bound = [(local, q) for s in torch_imports for local, q in _bound(
            s.with_changes(names=[a for a in s.names if a not in others[id(s)]]) if others.get(id(s)) else s)]
        # names re-exported with no MindSpore value stay imported from torch, in place (``kept``)
        reexports, kept = self._reexports(torch_imports) if self._depth == 0 else ([], {})
        rest = []
        for s in updated.body:
            if s not in torch_imports:
                rest.append(s)
            elif id(s) in kept:
                rest.append(kept[id(s)])
            elif others.get(id(s)):
                rest.append(s.with_changes(names=[*others[id(s)][:-1],
                                                  others[id(s)][-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)]))
        top = self._top_kept if self._depth == 0 else None
        first = top is not None and not self._first_import_seen
        if first:
            self._first_import_seen = True
        if reexports:  # names other modules import from this one: bound to their MindSpore values
            self.ctx.imports.remove(bound, top, [])
            return cst.FlattenSentinel([*([updated.with_changes(body=rest)] if rest else []), *reexports])
        if rest:
            self.ctx.imports.remove(bound, top, [])
            return updated.with_changes(body=rest)
        if first:  # the MindSpore imports take this line's place, with its comments and blank lines above
            self.ctx.imports.remove(bound, top, updated.leading_lines)
        else:
            self.ctx.imports.remove(bound, top, [])
            self._carry += [ln for ln in updated.leading_lines if ln.comment]
        return cst.RemoveFromParent()

    def _reexports(self, torch_imports) -> tuple[list[cst.BaseStatement], dict]:
        """``from torch.hub import load_state_dict_from_url`` in a module that never reads the name and that other
        modules import it from (a package's ``__init__.py``, or a sibling's ``from .utils import ...``). Removing it would break them, so the name is bound to what the table maps it
        to (``load_state_dict_from_url = _msmigrate_load_state_dict_from_url``), or kept from torch with a marker
        when the table has no value for it. A MindSpore short name (``nn``) is never bound this way. Returns the
        bindings and, by id of the import node, the import reduced to the names kept from torch."""
        out, kept = [], {}
        for node in torch_imports:
            if not isinstance(node, cst.ImportFrom) or isinstance(node.names, cst.ImportStar):
                continue
            keep = []
            for alias, (local, q) in zip(node.names, _bound(node)):
                if (local in self.ctx.loaded_names or local in MS_OBJECTS
                        or not ({local, "*"} & self.ctx.reexported)):
                    continue  # used here (converted where it is used), or a dead import
                api = canonical(q)
                value, reason = self._value_form(api, as_class=True)  # for subclassing and isinstance, too
                if value is not None:
                    self._ok(api, expr(value))
                    out.append(emit.statement(f"{local} = {value}  # re-exported for other modules\n"))
                else:
                    self._fail(api, f"re-exported for other modules: {reason}; kept from torch", node,
                               torch_rooted=False)
                    keep.append(alias.with_changes(comma=cst.MaybeSentinel.DEFAULT))
            if keep:  # the statement stays, with just the names kept from torch
                kept[id(node)] = node.with_changes(names=keep, lpar=None, rpar=None)
        return out, kept

    def _plain_layer_values(self) -> set[int]:
        """Ids of torch layer classes used as values whose every call the MindSpore class takes as torch's
        (migrate/rewrite/layer_values.py), computed once per file."""
        if self._plain_values is None:
            from .layer_values import plain_values

            self._plain_values = plain_values(self.ctx.module, self.resolver, self.table, canonical,
                                              frozenset(self.ctx.reexported))
        return self._plain_values

    def _value_form(self, api: str, as_class: bool = False) -> tuple[str | None, str]:
        """The MindSpore expression for ``api`` used as a value (not called), or None and why not. ``as_class``:
        the class itself is meant (a base, an isinstance target), not something that builds it."""
        entry = self.table.lookup(api)
        if entry is None:
            return None, "no MindSpore mapping in msmigrate's table"
        if "*" in entry.unsupported:
            return None, entry.unsupported["*"]
        if (as_class or entry.value_class) and entry.kind == "class" and entry.ms and entry.ms != "=":
            return short_name(entry.ms), ""
        if entry.value:
            return entry.value, ""  # a helper with torch's signature (migrate/helpers writes its definition)
        if not entry.ms or entry.ms == "=":
            return None, "only supported when called"
        if entry.kind == "function" and _has_arg_rules(entry):
            return None, "used as a value: its arguments cannot be adapted where it is called"
        if entry.kind == "class" and any(getattr(entry, f) for f in _DEFAULT_RULE_FIELDS):
            return None, ("used as a value: MindSpore's defaults or arguments differ, so the layer it builds "
                          "would differ, and msmigrate has no value adapter for it")
        return short_name(entry.ms), ""

    def leave_IndentedBlock(self, original, updated):
        if not updated.body:  # a function whose only statement was `import torch`
            return updated.with_changes(body=[cst.SimpleStatementLine([cst.Pass()])])
        return updated

    def leave_Module(self, original, updated):
        if self._carry:  # comments of a removed last statement
            return updated.with_changes(footer=[*self._carry, *updated.footer])
        return updated

    # -- modules ---------------------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._skip.add(id(node.name))
        for base in node.bases:
            self._bases.add(id(base.value))
        is_module = node.name.value in self.resolver.local_module_classes  # the binder ran first
        if is_module:
            self.ctx.facts.module_classes.add(node.name.value)
        self._class_stack.append(is_module)
        self._depth += 1

    def leave_ClassDef(self, original, updated):
        self._class_stack.pop()
        self._depth -= 1
        return updated

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth += 1
        self._skip.add(id(node.name))

    def leave_FunctionDef(self, original, updated):
        self._depth -= 1
        if self._class_stack and self._class_stack[-1] and self.resolver.scopes[-2].kind == "class":
            if updated.name.value == "forward":
                self.ctx.ok("torch.nn.Module.forward")
                return updated.with_changes(name=cst.Name("construct"))
            if updated.name.value == "__init__" and _FILLS_CONTAINER.search(code(updated.body)):
                return _rename_parameters_at_end(updated)
        return updated

    # -- API uses -------------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        self._skip.add(id(node.func))
        for a in node.args:  # layout=torch.strided: torch's default (dense), written out; dropped in _convert
            if a.keyword is not None and a.keyword.value == "layout" and canonical(
                    self.resolver.qualify(a.value) or "") == "torch.strided":
                self._skip.add(id(a.value))
                self._strided_layouts.add(id(node))
        probe = self._module_probe(node)
        if probe is not None:  # hasattr(torch, "compile"): the module itself is not a use, the probe is
            self._skip.add(id(node.args[0].value))
        if isinstance(node.func, cst.Name) and node.func.value in ("isinstance", "issubclass") and len(node.args) > 1:
            classes = node.args[1].value
            items = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
            self._class_refs.update(id(item) for item in items)

    def visit_Annotation(self, node: cst.Annotation) -> None:  # ``loader: DataLoader``, ``Union[torch.FloatTensor, ...]``
        ids = self._class_refs

        class Refs(cst.CSTVisitor):
            def visit_Name(self, n):
                ids.add(id(n))

            def visit_Attribute(self, n):
                ids.add(id(n))

        node.annotation.visit(Refs())

    def visit_Comparison(self, node: cst.Comparison) -> None:  # ``type(m) is nn.Conv2d``
        self._class_refs.update(id(e) for e in (node.left, *(c.comparator for c in node.comparisons)))

    # names that are bound here, not read: never references to a torch object
    def _store(self, target) -> None:
        if isinstance(target, cst.Name):
            self._skip.add(id(target))
        elif isinstance(target, (cst.Tuple, cst.List)):
            for el in target.elements:
                self._store(el.value)
        elif isinstance(target, cst.StarredElement):
            self._store(target.value)

    def visit_AssignTarget(self, node) -> None:
        self._store(node.target)

    def visit_AugAssign(self, node) -> None:
        self._store(node.target)

    def visit_AnnAssign(self, node) -> None:
        self._store(node.target)

    def visit_For(self, node) -> None:
        self._store(node.target)

    def visit_CompFor(self, node) -> None:
        self._store(node.target)

    def visit_AsName(self, node) -> None:
        self._store(node.name)

    def visit_NamedExpr(self, node) -> None:
        self._store(node.target)

    def visit_Param(self, node) -> None:
        self._store(node.name)

    def visit_Arg(self, node) -> None:
        if node.keyword is not None:
            self._skip.add(id(node.keyword))

    def visit_Global(self, node) -> bool:
        return False

    visit_Nonlocal = visit_Global

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.value))
        self._skip.add(id(node.attr))

    def _module_probe(self, node: cst.Call) -> tuple[str, str, str] | None:
        """``hasattr(torch, "name")`` / ``getattr(F, "name"[, default])``: (builtin, torch module, name) when the
        object is a torch module (not a tensor or a class) and the name a string literal."""
        if not (isinstance(node.func, cst.Name) and node.func.value in ("hasattr", "getattr")
                and self.resolver.lookup(node.func.value) is None and len(node.args) in (2, 3)
                and (len(node.args) == 2 or node.func.value == "getattr")
                and all(a.keyword is None and not a.star for a in node.args)
                and isinstance(node.args[1].value, cst.SimpleString)):
            return None
        q = self.resolver.qualify(node.args[0].value)
        if not _torch(q) or canonical(q) not in _TORCH_MODULES:
            return None
        return node.func.value, canonical(q), node.args[1].value.evaluated_value

    def _probe(self, builtin: str, module: str, name: str, original: cst.Call, updated: cst.Call):
        """hasattr: True when the table converts ``module.name`` (or names under it), so the code takes the branch
        whose torch calls convert; False otherwise (its fallback branch, written for a torch without it).
        getattr: the converted ``module.name``, the default when the table lacks it, else marked."""
        api = f"{module}.{name}"
        known = self.table.lookup(api) is not None or any(k.startswith(api + ".") for k in self.table.by_torch)
        if builtin == "hasattr":
            self._ok(module, cst.Name(str(known)))
            return cst.Name(str(known))
        value, reason = self._value_form(api)
        if value is None and len(updated.args) == 3 and not known:
            self._ok(module, updated.args[2].value)
            return updated.args[2].value
        if value is None:  # the torch module object stays: its import is kept (under the name the marker says)
            obj = self._fail(api, reason, original.args[0].value, updated.args[0].value)
            return updated.with_changes(args=[updated.args[0].with_changes(value=obj), *updated.args[1:]])
        new = expr(value)
        self._ok(api, new)
        return new

    def leave_Call(self, original: cst.Call, updated: cst.Call):
        updated = fix_call(updated)  # a callee a template wrote as an expression (Parens)
        probe = self._module_probe(original)
        if probe is not None:
            return self._probe(*probe, original, updated)
        written = self._inplace_layer_call(original, updated)
        if written is not None:
            return written
        updated = self._input_positional(original, updated)
        if (self.resolver.layer_of(original.func) == "torch.nn.ConvTranspose2d"
                and not self._built_with_output_padding(original.func)
                and (len(original.args) > 1 or any(a.keyword is not None and a.keyword.value == "output_size"
                                                   for a in original.args))):
            # built as nn.Conv2dTranspose, whose construct takes the input only (a TypeError when it runs)
            self._fail("torch.nn.ConvTranspose2d.forward(output_size=...)", "MindSpore's Conv2dTranspose takes no "
                       "output size when called: give the layer the output_padding that reaches it", original,
                       torch_rooted=False)
            return updated
        q = self.resolver.qualify(original.func)
        if q is not None:
            if not _torch(q):
                if (isinstance(original.func, cst.Attribute) and self.resolver.uses_torch()
                        and self.resolver.is_module_value(original.func.value)):
                    return self._method(original, updated)  # ``net.vgg.children()``: a project module's instance
                return updated
            return self._convert(canonical(q), updated, original)
        if isinstance(original.func, cst.Attribute) and self.resolver.uses_torch():
            return self._method(original, updated)
        return updated

    def _convert(self, api: str, updated: cst.Call, original: cst.Call):
        if id(original) in self._strided_layouts:
            updated = _without_keyword(updated, "layout")
        entry = self.table.lookup(api)
        if entry is None:
            method = self._value_method(api, updated)
            if method is not None:
                return method
            return self._fail(api, "no MindSpore mapping in msmigrate's table", original, updated)
        # torch.round(x, out=o): the call without out=, written into o as torch writes it (the helper _msm_out: o
        # takes the result's shape, as torch resizes it, and keeps its own dtype, as torch casts into it;
        # assign_value changes the tensor object itself, so aliases see it, and returns it, as torch returns out).
        # out=None is torch's default. Entries that list `out` decide themselves.
        out = next((a for a in updated.args if a.keyword is not None and a.keyword.value == "out"), None)
        if out is not None and "out" not in entry.args and entry.kind == "function":
            names = out.value.elements if isinstance(out.value, (cst.Tuple, cst.List)) else [out]
            if any(isinstance(e.value, cst.Subscript) for e in names):
                return self._fail(api, "out= a subscript (MindSpore's x[i] is a copy, not a view: the result would "
                                  "not reach x)", original, updated)
            rest = [a for a in updated.args if a is not out]
            if rest and updated.args[-1] is out:  # the argument before out= ends the call now
                rest[-1] = rest[-1].with_changes(comma=out.comma)
            updated = updated.with_changes(args=rest)
        else:
            out = None
        try:
            target, flag = self._inplace_target(updated, entry)
            call = Call(updated, entry)
            # the evidence is read on the source call without out= (the entry does not list it: binding failed)
            call.dtype_of = self._dtype_of(_without_keyword(original, "out") if out is not None else original, entry)
            call.torch_data = self._torch_data()
            call.is_int = self._is_int(original, entry)
            new = call.convert()
        except Unsupported as exc:
            if isinstance(exc, Misfit) and entry.kind == "class" and entry.base and any(a.star for a in updated.args):
                # ``nn.Conv2d(*args, **kwargs)``: the arguments are known only when it runs; the class with torch's
                # signature (the one a subclass gets) takes them all as torch does
                new = updated.with_changes(func=expr(entry.base))
                self._ok(api, new)
                return new
            return self._fail(api, str(exc), original, updated)
        if out is not None and not _is_none(out.value):
            self.ctx.msm_helpers = True
            new = expr(f"_msm_out({code(out.value)}, {code(new)})")
        elif target is not None:
            # F.relu(x, inplace=True): torch writes the result into x (the same tensor object, its dtype kept)
            written = cst.Call(func=cst.Attribute(value=target, attr=cst.Name("copy_")), args=[cst.Arg(new)])
            new = written if flag is True else cst.IfExp(
                test=flag, body=written, orelse=cst.parse_expression(code(new)),
                whitespace_before_if=cst.SimpleWhitespace(" "), whitespace_after_if=cst.SimpleWhitespace(" "),
                whitespace_before_else=cst.SimpleWhitespace(" "), whitespace_after_else=cst.SimpleWhitespace(" "))
        self._ok(api, new)
        return new

    def _is_int(self, original: cst.Call, entry):
        """Whether a source call's argument (by torch name) is shown to be a Python int (int_values.py)."""
        def of(name: str) -> bool:
            if self._int_evidence is None:
                from .int_values import IntEvidence

                self._int_evidence = IntEvidence(self.ctx.module, frozenset(self.ctx.reexported))
            try:
                bound = Call(original, entry).bound
            except Unsupported:
                return False
            return self._int_evidence.is_int(bound.get(name))
        return of

    def _built_with_output_padding(self, func: cst.BaseExpression) -> bool:
        """The layer ``func`` holds was built with a non-zero ``output_padding`` (6th positional or keyword): the
        table builds it as the generated ``_MsmigrateConvTranspose2d``, whose construct takes ``output_size``."""
        ctor = self.resolver.layer_ctor(func)
        if ctor is None:
            return False
        positional = [a for a in ctor.args if a.keyword is None and not a.star]
        value = next((a.value for a in ctor.args if a.keyword is not None and a.keyword.value == "output_padding"),
                     positional[5].value if len(positional) > 5 else None)
        return value is not None and code(value).replace(" ", "") not in ("0", "(0,0)")

    def _input_positional(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        """``self.unpool(input=x, indices=i)`` on a torch layer this file built: torch names a layer's first forward
        parameter ``input``, MindSpore's construct names it otherwise (``x``), so the argument goes first,
        positionally (a call with a positional argument already binds ``input`` to it: left alone)."""
        if not any(a.keyword is not None and a.keyword.value == "input" for a in updated.args) or any(
                a.keyword is None for a in updated.args) or self.resolver.layer_of(original.func) is None:
            return updated
        first = next(a for a in updated.args if a.keyword is not None and a.keyword.value == "input")
        rest = [a for a in updated.args if a is not first]
        first = first.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT,
                                   comma=cst.MaybeSentinel.DEFAULT if not rest else cst.Comma(
                                       whitespace_after=cst.SimpleWhitespace(" ")))
        if rest:
            rest[-1] = rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        self.ctx.ok(f"{self.resolver.layer_of(original.func)}.forward(input=...)")
        return updated.with_changes(args=[first, *rest])

    def _value_method(self, api: str, updated: cst.Call):
        """``torch.__version__.startswith('0')``: a method of a plain value the table maps (an ``attribute`` entry:
        a string, a number), called on its MindSpore form; None when ``api`` is not such a call."""
        head, _, name = api.rpartition(".")
        entry = self.table.lookup(head) if head else None
        if entry is None or entry.kind != "attribute" or not isinstance(updated.func, cst.Attribute):
            return None
        value, _ = self._value_form(head)
        if value is None:
            return None
        new = expr(value)
        self._ok(head, new)
        return updated.with_changes(func=updated.func.with_changes(value=new))

    def _dtype_of(self, original: cst.Call, entry, receiver=None):
        """The dtype evidence of the source call's arguments by torch name ("self": the receiver), judged on the
        source nodes (the converted ones no longer name torch)."""
        def of(name: str) -> str:
            if name == "self" and receiver is not None:
                return self.resolver.dtype(receiver)
            try:
                bound = Call(original, entry, receiver=receiver).bound
            except Unsupported:
                return UNKNOWN
            return self.resolver.dtype(bound.get(name))
        return of

    def _inplace_layer_call(self, original: cst.Call, updated: cst.Call):
        """``m = nn.Hardswish(inplace=True)`` then ``r = m(y)``: torch writes the result into y, so the call is
        ``y.copy_(m(y))`` (aliases of y see it). Left as is: ``x = m(x)`` (the name takes the result: what real code
        writes; other aliases of the old x keep its values) and a fresh input (``m(self.bn(x))``)."""
        if not isinstance(original.func, (cst.Name, cst.Attribute)) or id(original) in self._rebinding_calls:
            return None
        if len(original.args) != 1 or original.args[0].keyword is not None or original.args[0].star:
            return None
        b = self.resolver.layer_binding(original.func)
        entry = self.table.lookup(b.layer) if b is not None and isinstance(b.ctor, cst.Call) else None
        if entry is None or "inplace" not in entry.args or dotted(original.args[0].value) is None:
            return None
        try:
            if Call(b.ctor, entry).literal("inplace") is not True:
                return None
        except Unsupported:
            return None
        self._ok(f"{b.layer} (inplace=True: the result written into the input)")
        return cst.Call(func=cst.Attribute(value=updated.args[0].value, attr=cst.Name("copy_")),
                        args=[cst.Arg(updated.with_changes(lpar=[], rpar=[]))], lpar=updated.lpar, rpar=updated.rpar)

    @staticmethod
    def _inplace_target(updated: cst.Call, entry: Entry):
        """A functional call with ``inplace`` (``F.relu(x, inplace=True)``, ``F.relu6(x, flag)``): (x, True) when
        the call writes into the name or attribute x, (x, flag) when that is known only when it runs; (None, None)
        when it does not write, or writes into a fresh value nothing else sees (``F.relu(self.bn(x), True)``)."""
        if entry.kind != "function" or "inplace" not in entry.args:
            return None, None
        call = Call(updated, entry)
        flag, target = call.bound.get("inplace"), call.bound.get(entry.args[0])
        if flag is None or target is None or dotted(target) is None or call.literal("inplace") is False:
            return None, None
        return target, (True if call.literal("inplace") is True else flag)

    def _method(self, original: cst.Call, updated: cst.Call):
        if id(original) in self._strided_layouts:
            updated = _without_keyword(updated, "layout")
        name = original.func.attr.value
        if name in self.ctx.deferred_methods or self.resolver.is_module_value(original.func):
            return updated  # a later pass's method, or a call of a submodule (`self.relu(x)`)
        recv = original.func.value
        is_module = self.resolver.is_module_value(recv) or (
            isinstance(recv, cst.Name) and getattr(self.resolver.lookup(recv.value), "module", False))
        receiver = self.resolver.tensor(recv)
        entry = (self.table.module_methods.get(name) if is_module else None) or self.table.methods.get(name)
        if entry is not None and entry.torch.startswith("Module.") != is_module and (
                is_module or receiver != UNKNOWN):
            entry = None  # a Module method on a tensor, a Tensor method on a module
        if entry is None:
            if receiver == YES and name in self.table.tensor_method_names:
                self._fail(f"Tensor.{name}", "no MindSpore mapping in msmigrate's table", original,
                           torch_rooted=False)
            elif is_module and name in _CELL_LACKS:
                self._fail(f"Module.{name}", "MindSpore's Cell has no such method and msmigrate's table no mapping",
                           original, torch_rooted=False)
            return updated
        if receiver == NO and not is_module:
            return updated  # a string, a list, a numpy array, an object of a non-Module class
        if receiver != YES and not is_module and name not in _STR_ARG_METHODS and any(
                isinstance(a.value, (cst.SimpleString, cst.FormattedString, cst.ConcatenatedString))
                for a in original.args):
            return updated
        api = entry.torch
        if entry.is_identity:
            self.ctx.ok(api)
            return updated
        try:
            if entry.inplace:
                new, rebind = inplace.convert(original, updated, entry, self.table,
                                              id(original) in self._statement_calls,
                                              pure=id(original) in self._pure_links)
                if rebind is not False:
                    self._rebinds[id(original)] = updated.func.value if rebind is True else rebind
            else:
                call = Call(updated, entry, receiver=updated.func.value)
                call.is_device = self._is_device
                call.dtype_of = self._dtype_of(original, entry, receiver=original.func.value)
                call.receiver_is_tensor = receiver == YES
                call.is_statement = id(original) in self._statement_calls
                new = call.convert()
        except Unsupported as exc:
            if (isinstance(exc, Misfit) and is_module and entry.kind == "method" and (entry.ms or "").isidentifier()
                    and not _has_arg_rules(entry)):
                # a module method MindSpore only names otherwise (``self.attn.forward(q, k, v, mask=m)``): the
                # arguments go as they are, whatever the table's signature can bind
                new = updated.with_changes(func=updated.func.with_changes(attr=cst.Name(entry.ms)))
                self._ok(api, new)
                return new
            # a look-alike (a str / list / dict method of the same name) is left alone; on a tensor or a module the
            # call stays torch's and is marked
            if not (isinstance(exc, Misfit) and receiver != YES and not is_module):
                self._fail(api, str(exc), original, torch_rooted=False)
            return updated
        if not is_module and receiver == UNKNOWN:
            self.resolver.tensor_method_calls.add(id(original))  # its result is a tensor from here on
        self._ok(api, new)
        return new

    def visit_Expr(self, node: cst.Expr) -> None:
        if isinstance(node.value, cst.Call):
            self._statement_calls.add(id(node.value))
            self._pure_links |= inplace.subscript_chain(node.value, self.table)

    def leave_Assign(self, original: cst.Assign, updated: cst.Assign):
        """``m.stride = (1, 1)`` on a Conv2d (``isinstance(m, nn.Conv2d)``, or a conv the file built): torch reads
        the attribute at every call, MindSpore's kernel took it when the cell was built, so a generated helper sets
        it and builds the kernel again (smp's DeepLabV3 dilates its encoder this way)."""
        if len(original.targets) != 1:
            return updated
        t = original.targets[0].target
        if not (isinstance(t, cst.Attribute) and isinstance(t.value, cst.Name) and t.attr.value in _CONV_REBUILT):
            return updated
        layer = next((lay for name, lay, _, _ in reversed(self._narrowed) if name == t.value.value), None)
        if (layer or self.resolver.layer_of(t.value)) != "torch.nn.Conv2d":
            return updated
        self._ok(f"torch.nn.Conv2d.{t.attr.value} (set; the kernel is built again)")
        return cst.Expr(value=expr(f'_msmigrate_conv_set({t.value.value}, "{t.attr.value}", {code(updated.value)})'),
                        semicolon=updated.semicolon)

    def _class_name_assign(self, line: cst.SimpleStatementLine) -> None:
        """``classname = m.__class__.__name__`` (read by a later class-name test, ``_class_name_test``); seen even
        where the statement itself is not walked (it names no torch object)."""
        for small in line.body:
            if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target,
                                                                                         cst.Name):
                owner = self._class_name_of(small.value)
                if owner is not None:
                    self._class_names[small.targets[0].target.value] = owner
                else:
                    self._class_names.pop(small.targets[0].target.value, None)

    def visit_Assign(self, node: cst.Assign) -> None:
        if len(node.targets) == 1 and isinstance(node.value, cst.Call):
            self._pure_links |= inplace.subscript_chain(node.value, self.table, node.targets[0].target)
            first = node.value.args[0].value if node.value.args else None
            if first is not None and code(first) == code(node.targets[0].target):
                self._rebinding_calls.add(id(node.value))  # x = self.relu(x): the input's name takes the result

    def leave_Expr(self, original: cst.Expr, updated: cst.Expr):
        target = self._rebinds.pop(id(original.value), None)
        return updated if target is None else inplace.rebind_statement(updated, target)

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        updated = fix_attribute(updated)  # ``F.normalize(k).transpose``: the receiver a template wrote (Parens)
        field = _RESULT_FIELDS.get(original.attr.value)
        if field is not None and self._values_indices(original.value):
            # ``torch.max(x, 1).values``: torch's (values, indices) named tuple is a plain tuple in MindSpore
            return cst.Subscript(value=updated.value, slice=[cst.SubscriptElement(cst.Index(cst.Integer(str(field))))],
                                 lpar=updated.lpar, rpar=updated.rpar)
        if original.attr.value in ("real", "imag") and self.resolver.uses_torch() \
                and self.resolver.tensor(original.value) == YES:
            # ``x.imag``: an attribute in torch, a method in MindSpore (the bound method was the value: silent)
            self._ok(f"Tensor.{original.attr.value} (-> .{original.attr.value}())")
            return cst.Call(func=updated.with_changes(lpar=[], rpar=[]), lpar=updated.lpar, rpar=updated.rpar)
        if original.attr.value == "type" and self._device_value(original.value):
            self._ok("torch.device.type (-> torch's device type name)")
            return expr(f"_msmigrate_device_type({code(updated.value)})").with_changes(lpar=updated.lpar,
                                                                                      rpar=updated.rpar)
        if self._narrowed and isinstance(original.value, cst.Name):
            for name, layer, renames, _ in reversed(self._narrowed):
                if name == original.value.value:
                    if original.attr.value in renames and renames[original.attr.value] is None:
                        return self._fail(f"{layer}.{original.attr.value}", "the layers whose class name passes the "
                                          "test name this attribute differently in MindSpore: test isinstance "
                                          "for each", original, torch_rooted=False) or updated
                    if original.attr.value in renames:
                        new = expr(_attr_form(renames[original.attr.value], name))
                        self._ok(f"{layer}.{original.attr.value} (-> .{renames[original.attr.value]})")
                        return new.with_changes(lpar=updated.lpar, rpar=updated.rpar)
                    break
        if (original.attr.value in _MODULE_DICTS and self.resolver.uses_torch()
                and self.resolver.tensor(original.value) != YES):
            self._ok(f"Module.{original.attr.value} (-> .{_MODULE_DICTS[original.attr.value]})")
            return updated.with_changes(attr=cst.Name(_MODULE_DICTS[original.attr.value]))
        layer = self.resolver.layer_of(original.value)  # ``self.bn.weight`` after ``self.bn = nn.BatchNorm2d(c)``
        if layer is not None and original.attr.value in (renames := self._layer_renames(layer)):
            self._ok(f"{layer}.{original.attr.value} (-> .{renames[original.attr.value]})")
            if "{self}" in renames[original.attr.value]:  # an expression of the cell (the entry's attrs)
                return expr(_attr_form(renames[original.attr.value], code(updated.value))).with_changes(
                    lpar=updated.lpar, rpar=updated.rpar)
            return updated.with_changes(attr=cst.Name(renames[original.attr.value]))
        if id(original) in self._skip:
            return updated
        return self._reference(original, updated)

    def _values_indices(self, node) -> bool:
        """A call of a torch API or tensor method that returns torch's (values, indices) named tuple."""
        if not isinstance(node, cst.Call):
            return False
        q = self.resolver.qualify(node.func)
        if q is not None:
            return _torch(q) and canonical(q).rsplit(".", 1)[-1] in _VALUES_INDICES
        return (isinstance(node.func, cst.Attribute) and node.func.attr.value in _VALUES_INDICES
                and self.resolver.uses_torch() and self.resolver.tensor(node.func.value) != NO
                and not self.resolver.is_module_value(node.func.value))

    def _device_value(self, node) -> bool:
        """``x.device`` (a tensor's or a module's, not a torch module's attribute) or a device by the resolver's
        evidence: its ``.type`` is torch's device type name, which MindSpore's device string does not have."""
        if isinstance(node, cst.Attribute) and node.attr.value == "device":
            return not _torch(self.resolver.qualify(node))
        return self._is_device(node)

    def _is_device(self, node) -> bool:
        """A device value by the resolver's evidence; a converted ``torch.device(...)`` reads ``str(...)``."""
        return self.resolver.is_device(node) or (isinstance(node, cst.Call) and code(node.func) in ("str", "_MsmigrateDevice")
                                                 and self.resolver.is_device(node.args[0].value if node.args else None))

    # -- parameters by attribute -----------------------------------------------------------------------
    def _narrow(self, node: cst.If) -> None:
        """``if isinstance(m, nn.BatchNorm2d): m.weight...``: in that branch ``m`` is the MindSpore layer, whose
        parameters have other names (``gamma`` / ``beta``, from mappings/weights.toml), and some attributes
        too (``Linear.out_features`` is ``Dense.out_channels``: the entry's ``attrs``). A tuple of
        classes renames the parameters they all name alike."""
        t = node.test
        by_name = self._class_name_test(t)
        if by_name is not None:
            self._narrow_by_name(node, *by_name)
            return
        if not (isinstance(t, cst.Call) and isinstance(t.func, cst.Name) and t.func.value == "isinstance"
                and len(t.args) == 2 and isinstance(t.args[0].value, cst.Name)):
            return
        classes = t.args[1].value
        items = [e.value for e in classes.elements] if isinstance(classes, cst.Tuple) else [classes]
        maps = []
        for item in items:
            q = self.resolver.qualify(item)
            if not (_torch(q) and canonical(q).startswith("torch.nn.")):
                return
            maps.append(self._layer_renames(canonical(q)))
        renames = {k: v for k, v in maps[0].items() if all(m.get(k) == v for m in maps)} if maps else {}
        if renames:
            layer = canonical(self.resolver.qualify(items[0]))
            self._narrowing[id(node.body)] = (t.args[0].value.value, layer, renames, id(node.body))

    def _class_name_of(self, node) -> str | None:
        """``m.__class__.__name__`` / ``type(m).__name__`` / a local assigned one of them: the name ``m``."""
        if isinstance(node, cst.Name):
            return self._class_names.get(node.value)
        if not (isinstance(node, cst.Attribute) and node.attr.value == "__name__"):
            return None
        v = node.value
        if isinstance(v, cst.Attribute) and v.attr.value == "__class__" and isinstance(v.value, cst.Name):
            return v.value.value
        if (isinstance(v, cst.Call) and isinstance(v.func, cst.Name) and v.func.value == "type" and len(v.args) == 1
                and isinstance(v.args[0].value, cst.Name)):
            return v.args[0].value.value
        return None

    def _class_name_test(self, t):
        """An init function's test of a layer's class name (``classname.find("BatchNorm") != -1``, ``"Norm" in
        classname``, ``classname == "Linear"``, ``classname.startswith("Conv")`` / ``endswith``), where ``classname``
        is ``m.__class__.__name__`` (or ``type(m).__name__``, written there or assigned before): (``m``, a predicate
        on torch class names), else None."""
        receiver = self._class_name_of

        def text(e):
            return e.evaluated_value if isinstance(e, cst.SimpleString) else None

        if isinstance(t, cst.Comparison) and len(t.comparisons) == 1:
            op, right = t.comparisons[0].operator, t.comparisons[0].comparator
            left = t.left
            if (isinstance(left, cst.Call) and isinstance(left.func, cst.Attribute) and left.func.attr.value == "find"
                    and len(left.args) == 1 and isinstance(s := text(left.args[0].value), str)
                    and (m := receiver(left.func.value))):
                number = code(right).replace(" ", "")
                if ((isinstance(op, cst.NotEqual) and number == "-1") or (isinstance(op, cst.GreaterThan)
                        and number == "-1") or (isinstance(op, cst.GreaterThanEqual) and number == "0")):
                    return m, lambda c, s=s: s in c
                return None
            if isinstance(op, cst.In) and isinstance(s := text(left), str) and (m := receiver(right)):
                return m, lambda c, s=s: s in c
            if isinstance(op, cst.Equal):
                for a, b in ((left, right), (right, left)):
                    if isinstance(s := text(b), str) and (m := receiver(a)):
                        return m, lambda c, s=s: c == s
            return None
        if (isinstance(t, cst.Call) and isinstance(t.func, cst.Attribute) and t.func.attr.value in
                ("startswith", "endswith") and len(t.args) == 1 and isinstance(s := text(t.args[0].value), str)
                and (m := receiver(t.func.value))):
            return m, (lambda c, s=s: c.startswith(s)) if t.func.attr.value == "startswith" else (
                lambda c, s=s: c.endswith(s))
        return None

    def _torch_data(self) -> bool:
        """The file keeps a torch data pipeline: it imports torchvision (transforms, datasets), whose samples are
        torch tensors until the DataLoader's boundary."""
        if getattr(self, "_torchvision", None) is None:
            import ast

            self._torchvision = any(
                (isinstance(n, ast.Import) and any(a.name.split(".")[0] == "torchvision" for a in n.names))
                or (isinstance(n, ast.ImportFrom) and n.level == 0 and (n.module or "").split(".")[0] == "torchvision")
                for n in ast.walk(self.ctx.tree))
        return self._torchvision

    def _built_layers(self) -> list:
        """The torch.nn classes the file builds (``nn.BatchNorm2d(c)``), canonical, in order of first use."""
        if getattr(self, "_built", None) is None:
            found = []
            outer = self

            class V(cst.CSTVisitor):
                def visit_Call(self, n):
                    q = outer.resolver.qualify(n.func)
                    if q is not None and _torch(q) and canonical(q).startswith("torch.nn.") and canonical(q)[9:10].isupper():
                        if canonical(q) not in found:
                            found.append(canonical(q))

            self.ctx.module.visit(V())
            self._built = found
        return self._built

    def _narrow_by_name(self, node: cst.If, name: str, matches) -> None:
        """The branch of a class-name test: ``name`` is one of the torch layers whose class name passes it; their
        common MindSpore renames apply (``m.weight`` of a 'BatchNorm2d' is ``m.gamma``), and a Conv2d among them
        has its stride / padding / dilation set through the helper that builds the kernel again."""
        # the layers the file builds that pass (an init function applied with ``net.apply``), else every torch.nn
        # layer that passes (the init function's file builds none: a utils module)
        layers = [c for c in self._built_layers() if matches(c.rsplit(".", 1)[-1])] or sorted(
            e.torch for e in self.table.entries if e.kind == "class" and e.torch.startswith("torch.nn.")
            and e.torch.count(".") == 2 and matches(e.torch.rsplit(".", 1)[1]))
        if not layers:
            return
        maps = [self._layer_renames(lay) for lay in layers]
        renames = {k: v for k, v in maps[0].items() if all(m.get(k) == v for m in maps)}
        for k in {k for m in maps for k in m} - set(renames):
            renames[k] = None  # the layers that pass name it differently (BatchNorm2d's gamma, BatchNorm3d's
            # bn2d.gamma): no one spelling is right, a marker at its use
        conv = "torch.nn.Conv2d" in layers
        if renames or conv:
            self._narrowing[id(node.body)] = (name, "torch.nn.Conv2d" if conv else layers[0], renames, id(node.body))

    def _layer_renames(self, layer: str) -> dict:
        """torch attribute name -> MindSpore's for an instance of ``layer``: its parameters (weights.toml) and the
        entry's ``attrs``."""
        from ..weights import load_rules

        rule = load_rules().by_torch.get(layer.rsplit(".", 1)[-1])
        entry = self.table.lookup(layer)
        return {**(entry.attrs if entry is not None else {}), **(rule.params if rule is not None else {})}

    def leave_Subscript(self, original: cst.Subscript, updated: cst.Subscript):
        """``data.Dataset[T_co]``: a generic torch base whose MindSpore form is ``object`` takes no parameters."""
        updated = fix_subscript(updated)
        if (isinstance(updated.value, cst.Name) and updated.value.value == "object"
                and _torch(self.resolver.qualify(original.value))):
            return updated.value
        return updated

    def leave_Name(self, original: cst.Name, updated: cst.Name):
        if id(original) in self._skip:
            return updated
        return self._reference(original, updated)

    def _reference(self, original, updated):
        """A torch name used without being called: a base class, a dtype, an isinstance target..."""
        q = self.resolver.qualify(original)
        if not _torch(q):
            return updated
        api = canonical(q)
        value, reason = self._value_form(api, as_class=id(original) in self._bases or id(original) in self._class_refs)
        if value is None:
            return self._fail(api, reason, original, updated)
        entry = self.table.lookup(api)
        if value == entry.value and id(original) in self._plain_layer_values():  # every call agrees: the class
            value = short_name(entry.ms)
        if id(original) in self._bases and "subclass" in entry.unsupported:  # a base whose subclasses cannot work
            return self._fail(api, entry.unsupported["subclass"], original, updated)
        if id(original) in self._bases and entry.base:  # torch's signature and attribute names over the cell
            value = entry.base
        elif id(original) in self._bases and _has_arg_rules(entry) and not entry.value_class:
            return self._fail(api, "subclassing it passes torch constructor arguments through super().__init__, "
                                   "which cannot be adapted", original, updated)
        new = expr(value)
        self._ok(api, new)
        return new.with_changes(lpar=updated.lpar, rpar=updated.rpar) if hasattr(new, "lpar") else new


# torch modules that code probes with hasattr / getattr (``hasattr(torch, "compile")``, ``hasattr(F, "rms_norm")``)
_TORCH_MODULES = frozenset({"torch", "torch.nn", "torch.nn.functional", "torch.cuda", "torch.backends", "torch.jit",
                            "torch.compiler", "torch.linalg", "torch.fft", "torch.special", "torch.nn.init",
                            "torch.distributed", "torch.amp", "torch.utils", "torch.optim"})


_CONV_REBUILT = ("stride", "padding", "dilation")  # Conv2d attributes its MindSpore kernel takes when built
_RENAMED_ATTRS: dict[int, frozenset] = {}


def _generated(node) -> bool:
    """A helper definition msmigrate wrote (converting its output again): MindSpore code, never rewritten."""
    return type(node) in (cst.FunctionDef, cst.ClassDef) and node.name.value.startswith(
        ("_msm_", "_msmigrate_", "_Msmigrate"))


def _renamed_attrs(table) -> frozenset:
    """Attribute names some layer's MindSpore cell spells otherwise (weights.toml parameters, entries' ``attrs``),
    per table (the loaded table lives as long as the process)."""
    if id(table) not in _RENAMED_ATTRS:
        from ..weights import load_rules

        names = {k for rule in load_rules().by_torch.values() for k in rule.params}
        _RENAMED_ATTRS[id(table)] = frozenset(names | {k for e in table.entries if e.attrs for k in e.attrs}
                                              | set(_MODULE_DICTS))
    return _RENAMED_ATTRS[id(table)]


def _torch(q: str | None) -> bool:
    return bool(q) and (q == "torch" or q.startswith("torch."))


def _bound(node: cst.Import | cst.ImportFrom) -> list[tuple[str, str]]:
    """(local name, qualified name) bound by a torch import statement."""
    if isinstance(node, cst.ImportFrom):
        if isinstance(node.names, cst.ImportStar):
            return []
        module = dotted(node.module)
        return [((a.asname.name.value if a.asname else a.name.value), f"{module}.{a.name.value}")
                for a in node.names]
    out = []
    for a in node.names:
        full = dotted(a.name) or ""
        out.append((a.asname.name.value, full) if a.asname else (full.split(".")[0], full.split(".")[0]))
    return out


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


def _is_none(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


# torch functions and methods whose result is the named tuple (values, indices): ``.values`` / ``.indices`` of it
_VALUES_INDICES = frozenset({"max", "min", "topk", "sort", "cummax", "cummin", "kthvalue", "mode", "median",
                             "nanmedian"})
_RESULT_FIELDS = {"values": 0, "indices": 1}


def _without_keyword(call: cst.Call, name: str) -> cst.Call:
    """``call`` without its ``name=`` argument (the argument before it ends the call when it was the last)."""
    args = [a for a in call.args if not (a.keyword is not None and a.keyword.value == name)]
    if args and len(args) < len(call.args) and call.args[-1].keyword is not None and call.args[-1].keyword.value == name:
        args[-1] = args[-1].with_changes(comma=call.args[-1].comma)
    return call.with_changes(args=args)


def _attr_form(form: str, obj: str) -> str:
    """An entry's ``attrs`` value for a read of the attribute on ``obj``: a MindSpore attribute name, or an
    expression of the cell (``{self}``: ReflectionPad's padding read back in torch's order)."""
    return form.replace("{self}", obj) if "{self}" in form else f"{obj}.{form}"
