"""Which argument expressions the source shows to be Python ``int`` values (``padding=kernel_size // 2``).

A rule whose MindSpore form differs from torch's only for some Python types of an argument (a Conv's ``padding``:
an int is the same in both, a pair or ``'same'`` needs MindSpore's own form) writes a helper that decides when the
code runs unless the argument is a literal. A MindSpore engineer writes the plain call where the code shows the
value is an int. This pass reads that evidence, never a guess:

- an int literal, ``len(...)`` / ``int(...)`` / ``round(x)``, ``max`` / ``min`` / ``abs`` of ints;
- ``a // b`` and ``a % b`` with ``b`` an int and ``a`` no float or string literal (Python refuses a tuple there;
  a float ``a`` gives a float, which torch's conv refuses as MindSpore does: measured), ``+ - *`` of two ints, ``-a``, ``a if c else b`` of two ints;
- a name bound in the function (or at module level) only by plain assignments of ints (``pad = (k - 1) // 2``);
- a parameter annotated ``int``;
- a parameter of a module-level function or of a class's ``__init__`` whose default (when a call may omit it) is an
  int and whose every call in this file passes an int (judged in the caller's scope, by the same rules); the
  function or class must be used in this file only by being called (not subclassed, passed on, returned) and not
  be imported by sibling modules (``reexported``): a call the pass cannot see could pass anything.

CAVEATS: names are matched by spelling within one function and the module level (a closure's enclosing function is
not read: no evidence); attributes (``self.padding``) are never evidence.
"""
from __future__ import annotations

import libcst as cst

_INT_CALLS = frozenset({"len", "int", "round"})  # round(x) with one argument gives an int
_INT_OF_INTS = frozenset({"max", "min", "abs"})


class _Index(cst.CSTVisitor):
    def __init__(self):
        self.parent: dict[int, cst.CSTNode] = {}
        self.stack: list[cst.CSTNode] = []
        self.names: dict[str, list[cst.Name]] = {}
        self.calls: list[cst.Call] = []

    def on_visit(self, node):
        if self.stack:
            self.parent[id(node)] = self.stack[-1]
        self.stack.append(node)
        if isinstance(node, cst.Name):
            self.names.setdefault(node.value, []).append(node)
        elif isinstance(node, cst.Call):
            self.calls.append(node)
        return True

    def on_leave(self, node):
        self.stack.pop()


class IntEvidence:
    """``is_int(node)``: whether an expression of ``module`` is shown to be a Python int (see the module text)."""

    def __init__(self, module: cst.Module, reexported=frozenset()):
        self.module = module
        self.reexported = reexported
        self.ix = _Index()
        module.visit(self.ix)
        self.top = {s.name.value: s for s in module.body if isinstance(s, (cst.FunctionDef, cst.ClassDef))}
        self._busy: set = set()

    def is_int(self, node, depth: int = 0) -> bool:
        if node is None or depth > 12:
            return False
        key = id(node)
        if key in self._busy:
            return False  # a cycle (p = p // 2 through a call of itself): no evidence
        self._busy.add(key)
        try:
            return self._is_int(node, depth + 1)
        finally:
            self._busy.discard(key)

    def _is_int(self, node, depth) -> bool:
        if isinstance(node, cst.Integer):
            return True
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            return self.is_int(node.expression, depth)
        if isinstance(node, cst.BinaryOperation):
            if isinstance(node.operator, (cst.FloorDivide, cst.Modulo)):
                return self.is_int(node.right, depth) and not isinstance(node.left, (cst.Float, cst.BaseString))
            if isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply)):
                return self.is_int(node.left, depth) and self.is_int(node.right, depth)
            return False
        if isinstance(node, cst.IfExp):
            return self.is_int(node.body, depth) and self.is_int(node.orelse, depth)
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Name) and not self._shadowed(node.func.value):
            args = node.args
            if any(a.star or a.keyword is not None for a in args):
                return False
            if node.func.value in _INT_CALLS and len(args) == 1:
                return True
            if node.func.value in _INT_OF_INTS and args:
                return all(self.is_int(a.value, depth) for a in args)
            return False
        if isinstance(node, cst.Name):
            return self._name_is_int(node, depth)
        return False

    def _shadowed(self, name: str) -> bool:
        return any(isinstance(self.ix.parent.get(id(n)), (cst.FunctionDef, cst.ClassDef, cst.AssignTarget,
                                                            cst.Param, cst.ImportAlias))
                   for n in self.ix.names.get(name, []))

    # ------------------------------------------------------------------ names
    def _scope(self, node):
        """The innermost function holding ``node`` (None: module level)."""
        up = self.ix.parent.get(id(node))
        while up is not None:
            if isinstance(up, (cst.FunctionDef, cst.Lambda)):
                return up
            up = self.ix.parent.get(id(up))
        return None

    def _name_is_int(self, name: cst.Name, depth) -> bool:
        scope = self._scope(name)
        if isinstance(scope, cst.Lambda):
            return False
        if scope is not None:
            params = [p for p in (*scope.params.params, *scope.params.kwonly_params, *scope.params.posonly_params)]
            param = next((p for p in params if p.name.value == name.value), None)
            if param is not None:
                rebound = self._bindings(scope, name.value)  # padding = (padding, padding) in the body
                if rebound is None or not all(self.is_int(v, depth) for v in rebound):
                    return False
                annotation = param.annotation.annotation if param.annotation else None
                if isinstance(annotation, cst.Name) and annotation.value == "int":
                    return True  # declared (a wrong declaration: MindSpore refuses the layer when it is built)
                return self._param_is_int(scope, name.value, depth)
            for star in (scope.params.star_arg, scope.params.star_kwarg):
                if isinstance(star, cst.Param) and star.name.value == name.value:
                    return False
        bindings = self._bindings(scope, name.value)
        if bindings is None:
            return False
        if not bindings:
            if scope is None:
                return False
            bindings = self._bindings(None, name.value)  # a module-level constant
            if not bindings:
                return False
        return all(self.is_int(v, depth) for v in bindings)

    def _bindings(self, scope, name: str):
        """The values assigned to ``name`` directly in ``scope`` (None: the module); None when some binding is not a
        plain assignment of one value (a for target, an unpacking, a with, an import, a global statement)."""
        values = []
        for n in self.ix.names.get(name, []):
            if self._scope(n) is not scope:
                continue
            up = self.ix.parent.get(id(n))
            if isinstance(up, cst.AssignTarget):
                assign = self.ix.parent.get(id(up))
                if not isinstance(assign, cst.Assign) or len(assign.targets) != 1:
                    return None
                values.append(assign.value)
            elif isinstance(up, (cst.AnnAssign, cst.AugAssign)) and up.target is n:
                if up.value is None:
                    continue
                if isinstance(up, cst.AugAssign) and not isinstance(
                        up.operator, (cst.AddAssign, cst.SubtractAssign, cst.MultiplyAssign, cst.FloorDivideAssign)):
                    return None
                values.append(up.value)
            elif isinstance(up, (cst.Element, cst.StarredElement, cst.For, cst.CompFor, cst.AsName, cst.NamedExpr,
                                 cst.Global, cst.Nonlocal, cst.NameItem, cst.ImportAlias, cst.Del)):
                if isinstance(up, cst.Element) and not self._in_target(up):
                    continue  # an element of a tuple that is read, not assigned
                return None
            elif isinstance(up, (cst.FunctionDef, cst.ClassDef)) and up.name is n:
                return None
        return values

    def _in_target(self, node) -> bool:
        up = self.ix.parent.get(id(node))
        while isinstance(up, (cst.Tuple, cst.List, cst.Element, cst.StarredElement)):
            node, up = up, self.ix.parent.get(id(up))
        return isinstance(up, (cst.AssignTarget, cst.For, cst.CompFor, cst.AsName)) or (
            isinstance(up, (cst.AnnAssign, cst.AugAssign)) and up.target is node)

    # ------------------------------------------------------------------ parameters and their call sites
    def _param_is_int(self, func: cst.FunctionDef, pname: str, depth) -> bool:
        owner = self.ix.parent.get(id(func))
        owner = self.ix.parent.get(id(owner)) if isinstance(owner, cst.IndentedBlock) else owner
        if isinstance(owner, cst.ClassDef) and func.name.value == "__init__":
            callee, skip = owner, 1
        elif isinstance(owner, cst.Module):
            callee, skip = func, 0
        else:
            return False  # a method or a nested function: its callers are not followed
        cname = callee.name.value
        if self.top.get(cname) is not callee or {cname, "*"} & self.reexported:
            return False
        if isinstance(callee, cst.ClassDef) and any(
                isinstance(s, cst.FunctionDef) and s.name.value == "__init__" and s is not func
                for s in callee.body.body):
            return False  # two __init__ definitions
        positional = [p.name.value for p in (*func.params.posonly_params, *func.params.params)][skip:]
        param = next(p for p in (*func.params.posonly_params, *func.params.params, *func.params.kwonly_params)
                     if p.name.value == pname)
        sites = []
        for n in self.ix.names.get(cname, []):
            up = self.ix.parent.get(id(n))
            if up is callee:
                continue  # the definition's own name
            if isinstance(up, cst.Call) and up.func is n:
                sites.append(up)
                continue
            return False  # subclassed, passed on, returned: calls the pass cannot see
        if not sites:
            return False
        for site in sites:
            value, given = None, False
            for i, arg in enumerate(site.args):
                if arg.star:
                    return False
                if arg.keyword is not None:
                    if arg.keyword.value == pname:
                        value, given = arg.value, True
                elif i < len(positional) and positional[i] == pname:
                    value, given = arg.value, True
            if not given:
                if param.default is None:
                    return False  # torch raises; nothing to judge
                value = param.default
            if not self.is_int(value, depth):
                return False
        return True
