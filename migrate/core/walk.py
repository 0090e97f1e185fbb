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


class Binder:
    def __init__(self, resolver: Resolver) -> None:
        self.r = resolver
        self.module_classes: set[str] = set()  # classes of this file deriving from a torch module

    def enter(self, node: cst.CSTNode) -> None:
        r = self.r
        if isinstance(node, cst.Module):
            self._predeclare(node)
        elif isinstance(node, cst.ClassDef):
            is_module = r.class_is_module(node.bases)
            if is_module:
                r.local_module_classes.add(node.name.value)
                self.module_classes.add(node.name.value)
            r.push(Scope("class", module_class=is_module, qualname=node.name.value))
        elif isinstance(node, cst.FunctionDef):
            r.bind(node.name.value, Binding(qualname=node.name.value, tensor=NO))
            r.push(r.function_scope(node))
        elif isinstance(node, cst.Lambda):
            scope, p = Scope("lambda"), node.params
            for param in [*p.posonly_params, *p.params, *p.kwonly_params]:
                scope.names[param.name.value] = Binding()
            for star in (p.star_arg, p.star_kwarg):
                if isinstance(star, cst.Param):
                    scope.names[star.name.value] = Binding(tensor=NO)
            r.push(scope)
        elif isinstance(node, _COMPS):
            r.push(Scope("comp"))
            for target in _comp_targets(node):
                r.bind_target(target, None)
        elif isinstance(node, cst.For):  # iterating a tensor, or a list of tensors, gives tensors
            if r.element(node.iter) == YES and isinstance(node.target, cst.Name):
                r.bind(node.target.value, Binding(tensor=YES))
            else:
                r.bind_target(node.target, None)
        elif isinstance(node, cst.WithItem):
            if node.asname is not None:
                r.bind_target(node.asname.name, None)
        elif isinstance(node, cst.ExceptHandler):
            if node.name is not None and isinstance(node.name.name, cst.Name):
                r.bind(node.name.name.value, Binding(tensor=NO))
        elif isinstance(node, cst.NamedExpr):
            r.bind_target(node.target, node.value)
        elif isinstance(node, cst.Global):
            for item in node.names:
                r.scope.names[item.name.value] = Binding(is_global=True)
        elif isinstance(node, cst.Call):
            func = node.func
            if isinstance(func, cst.Attribute) and func.attr.value == "append" and len(node.args) == 1:
                r.appended(func.value, node.args[0].value)
            if (isinstance(func, cst.Attribute) and func.attr.value in ("register_buffer", "register_parameter")
                    and node.args and isinstance(node.args[0].value, cst.SimpleString)):
                fn = next((s for s in reversed(r.scopes) if s.kind == "function"), None)
                if fn is not None and isinstance(func.value, cst.Name) and func.value.value == fn.self_name:
                    r.bind_buffer(node.args[0].value.evaluated_value)

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
        r = self.r
        if isinstance(node, cst.ClassDef):
            r.pop()
            r.bind(node.name.value, Binding(qualname=node.name.value, tensor=NO,
                                            module_class=node.name.value in r.local_module_classes))
        elif isinstance(node, (cst.FunctionDef, cst.Lambda, *_COMPS)):
            r.pop()
        elif isinstance(node, (cst.Import, cst.ImportFrom)):
            r.record_import(node)
        elif isinstance(node, cst.Assign):
            for target in node.targets:
                r.bind_target(target.target, node.value)
        elif isinstance(node, cst.AnnAssign):
            if node.value is not None:
                r.bind_target(node.target, node.value)
        elif isinstance(node, cst.AugAssign):
            t = node.target
            if isinstance(t, cst.Name):
                b = r.lookup(t.value)
                if YES in (r.tensor(node.value), b.tensor if b else None):
                    r.bind(t.value, Binding(tensor=YES))


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
