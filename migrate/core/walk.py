"""The binding side of a walk: what each node binds, in the resolver, as a walk reaches it.

``Binder.enter(node)`` / ``Binder.exit(node)`` are called with the *original* nodes from a visitor's or a
transformer's ``on_visit`` / ``on_leave``: the converter's table pass and the linter share this one
implementation of scopes (module, class, function, lambda, comprehension) and bindings (imports, parameters,
assignments, ``for`` / ``with`` / ``except`` targets, ``global``, ``self.<attr>`` in methods, buffers).
"""
from __future__ import annotations

import libcst as cst

from . import cst_util
from .resolve import NO, YES, Binding, Resolver, Scope

_COMPS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)


def _comp_targets(node) -> list[cst.BaseExpression]:
    out, comp = [], node.for_in
    while comp is not None:
        out.append(comp.target)
        comp = comp.inner_for_in
    return out


def _statement_children(stmt) -> list:
    """The statements directly inside a compound statement (bodies, else, handlers, finally, cases)."""
    out = []
    for part in (getattr(stmt, "body", None), getattr(stmt, "orelse", None), getattr(stmt, "finalbody", None)):
        if isinstance(part, (cst.If,)):
            out.append(part)
        elif part is not None:
            block = part.body if isinstance(part, (cst.Else, cst.Finally)) else part
            if isinstance(block, cst.IndentedBlock):
                out.extend(block.body)
            elif isinstance(block, cst.SimpleStatementSuite):
                out.append(cst.SimpleStatementLine(body=block.body))
    for h in getattr(stmt, "handlers", ()) or ():
        out.extend(_statement_children(h))
    for c in getattr(stmt, "cases", ()) or ():
        out.extend(_statement_children(c))
    return out


class Binder:
    def __init__(self, resolver: Resolver) -> None:
        self.r = resolver

    def enter(self, node: cst.CSTNode) -> None:
        handler = _ENTER.get(type(node))  # one dict lookup per node: this runs for every node of the walk
        if handler is not None:
            handler(self, node)

    def _enter_module(self, node: cst.Module) -> None:
        self._predeclare(node)

    def _enter_class(self, node: cst.ClassDef) -> None:
        r = self.r
        is_module = r.class_is_module(node.bases)
        if is_module:
            r.local_module_classes.add(node.name.value)
        r.push(Scope("class", module_class=is_module, qualname=node.name.value))

    def _enter_function(self, node: cst.FunctionDef) -> None:
        self.r.bind(node.name.value, Binding(qualname=node.name.value, tensor=NO))
        self.r.push(self.r.function_scope(node))

    def _enter_lambda(self, node: cst.Lambda) -> None:
        scope, p = Scope("lambda"), node.params
        for param in [*p.posonly_params, *p.params, *p.kwonly_params]:
            scope.names[param.name.value] = Binding()
        for star in (p.star_arg, p.star_kwarg):
            if isinstance(star, cst.Param):
                scope.names[star.name.value] = Binding(tensor=NO)
        self.r.push(scope)

    def _enter_comp(self, node) -> None:
        self.r.push(Scope("comp"))
        for target in _comp_targets(node):
            self.r.bind_target(target, None)

    def _enter_for(self, node: cst.For) -> None:  # iterating a tensor, or a list of tensors, gives tensors
        if self.r.element(node.iter) == YES and isinstance(node.target, cst.Name):
            self.r.bind(node.target.value, Binding(tensor=YES))
        else:
            self.r.bind_target(node.target, None)

    def _enter_with_item(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self.r.bind_target(node.asname.name, None)

    def _enter_except(self, node: cst.ExceptHandler) -> None:
        if node.name is not None and isinstance(node.name.name, cst.Name):
            self.r.bind(node.name.name.value, Binding(tensor=NO))

    def _enter_walrus(self, node: cst.NamedExpr) -> None:
        self.r.bind_target(node.target, node.value)

    def _enter_global(self, node: cst.Global) -> None:
        for item in node.names:
            self.r.scope.names[item.name.value] = Binding(is_global=True)

    def _enter_call(self, node: cst.Call) -> None:
        r, func = self.r, node.func
        if not isinstance(func, cst.Attribute):
            return
        if func.attr.value == "append" and len(node.args) == 1:
            r.appended(func.value, node.args[0].value)
        elif (func.attr.value in ("register_buffer", "register_parameter") and node.args
              and isinstance(node.args[0].value, cst.SimpleString)):
            fn = next((s for s in reversed(r.scopes) if s.kind == "function"), None)
            if fn is not None and isinstance(func.value, cst.Name) and func.value.value == fn.self_name:
                r.bind_buffer(node.args[0].value.evaluated_value)

    def bind_only(self, stmt: cst.CSTNode, enter: bool = True) -> None:
        """Record the bindings of a statement that is not walked (its nested statements too, not expressions);
        ``enter=False`` when the walk already entered ``stmt`` itself (it still leaves it)."""
        if enter:
            self.enter(stmt)
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                self.enter(small)
                self.exit(small)
        else:
            for child in _statement_children(stmt):
                self.bind_only(child)
        if enter:
            self.exit(stmt)

    def _predeclare(self, module: cst.Module) -> None:
        """Module-level classes are visible to every function body, also to those written above them (a
        function runs after the module is loaded): bind them before the walk, unless an import binds the name."""
        imported = set()
        for stmt in module.body:
            if isinstance(stmt, cst.SimpleStatementLine):
                for s in stmt.body:
                    if isinstance(s, (cst.Import, cst.ImportFrom)) and not isinstance(s.names, cst.ImportStar):
                        imported.update((a.asname.name.value if a.asname else (cst_util.dotted(a.name) or "")
                                         .split(".")[0]) for a in s.names)
        for stmt in module.body:
            if isinstance(stmt, cst.ClassDef) and stmt.name.value not in imported:
                self.r.bind(stmt.name.value, Binding(qualname=stmt.name.value, tensor=NO))

    def exit(self, node: cst.CSTNode) -> None:
        handler = _EXIT.get(type(node))
        if handler is not None:
            handler(self, node)

    def _exit_class(self, node: cst.ClassDef) -> None:
        self.r.pop()
        self.r.bind(node.name.value, Binding(qualname=node.name.value, tensor=NO,
                                             module_class=node.name.value in self.r.local_module_classes))

    def _exit_scope(self, node) -> None:
        self.r.pop()

    def _exit_import(self, node) -> None:
        self.r.record_import(node)

    def _exit_assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self.r.bind_target(target.target, node.value)

    def _exit_annassign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self.r.bind_target(node.target, node.value)

    def _exit_augassign(self, node: cst.AugAssign) -> None:
        t = node.target
        if isinstance(t, cst.Name):
            b = self.r.lookup(t.value)
            if YES in (self.r.tensor(node.value), b.tensor if b else None):
                self.r.bind(t.value, Binding(tensor=YES))


_ENTER = {cst.Module: Binder._enter_module, cst.ClassDef: Binder._enter_class,
          cst.FunctionDef: Binder._enter_function, cst.Lambda: Binder._enter_lambda,
          **{c: Binder._enter_comp for c in _COMPS}, cst.For: Binder._enter_for,
          cst.WithItem: Binder._enter_with_item, cst.ExceptHandler: Binder._enter_except,
          cst.NamedExpr: Binder._enter_walrus, cst.Global: Binder._enter_global, cst.Call: Binder._enter_call}
_EXIT = {cst.ClassDef: Binder._exit_class, cst.FunctionDef: Binder._exit_scope, cst.Lambda: Binder._exit_scope,
         **{c: Binder._exit_scope for c in _COMPS}, cst.Import: Binder._exit_import,
         cst.ImportFrom: Binder._exit_import, cst.Assign: Binder._exit_assign,
         cst.AnnAssign: Binder._exit_annassign, cst.AugAssign: Binder._exit_augassign}


class ScopedVisitor(cst.CSTVisitor):
    """A read-only visitor whose ``self.resolver`` knows, at every node, the scopes and bindings around it."""

    def __init__(self, resolver: Resolver | None = None) -> None:
        super().__init__()
        self.resolver = resolver or Resolver()
        self.binder = Binder(self.resolver)

    def on_visit(self, node: cst.CSTNode) -> bool:
        self.binder.enter(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        super().on_leave(original_node)
        self.binder.exit(original_node)
