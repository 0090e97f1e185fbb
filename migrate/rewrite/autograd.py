"""The autograd pass: torch.autograd.Function subclasses and torch.autograd.grad calls.

Runs after the table-driven pass and before the training pass (which then slices losses that use the gradients).

* ``class F(torch.autograd.Function)`` with ``@staticmethod forward(ctx, *inputs)`` / ``backward(ctx, grad)``
  becomes an ``nn.Cell`` (the table maps the base) with ``construct(self, *inputs)`` (forward without its ``ctx``
  lines) and ``bprop(self, *inputs, out, grad)`` (measured on MindSpore 2.10 PyNative: bprop replaces the
  gradient). ``ctx.saved_tensors`` and ``ctx.<attr>`` are recomputed in bprop: the forward statements before its
  last ``ctx`` line are repeated there (bprop receives the same inputs). ``None`` gradients become zeros, a single
  gradient a 1-tuple. ``F.apply(...)`` becomes ``F()(...)``, ``F().apply`` ``F()``.
* ``g = torch.autograd.grad(out, x, grad_outputs=v, create_graph=...)`` becomes a function of ``x`` made of the
  statements that compute ``out`` from ``x`` (moved from the block) and ``ms.grad(fn, grad_position=(0, ...))(x)``:
  nested inside the training pass's ``value_and_grad`` it gives the second-order terms create_graph=True needs;
  create_graph=False gradients are wrapped in ``ops.stop_gradient``. ``x.requires_grad_(True)`` on the inputs is
  dropped (MindSpore differentiates by argument position).
What cannot be extracted safely is marked unsupported, never guessed.
"""
from __future__ import annotations

import libcst as cst

from ..core import emit

from ..names import canonical
from .calls import code
from .training import _assigned, _names, _target_names
from ..core.cst_util import root as _root
from ..core.diagnostics import MARKER, add_markers, marker_text

GRAD_API = "torch.autograd.grad"
FN_API = "torch.autograd.Function"


def applies(source: str) -> bool:
    return "autograd" in source or "Function" in source


def _stmt(src):
    return emit.statement(src)


class _Fail(Exception):
    pass


def _ctx_lines(body, ctx):
    """Indices of forward statements that touch ctx (save_for_backward / attribute stores)."""
    out = []
    for i, s in enumerate(body):
        if ctx in _names(s) or f"{ctx}." in code(s):
            out.append(i)
    return out


class AutogradPass:
    def __init__(self, module, ctx):
        self.module, self.ctx = module, ctx
        self.fn_classes: set[str] = set()
        self.counter = 0

    # -- reporting -----------------------------------------------------------------------------------------
    def mark(self, stmt, api, reason, origin=None, torch_root=None):
        node = origin if origin is not None else self.ctx.origins.get(stmt, stmt)
        return add_markers(stmt, [self.ctx.unsupported(api, reason, node, torch_root)])

    def ok(self, api):
        self.ctx.ok(api)

    # -- Function classes ------------------------------------------------------------------------------------
    def convert_class(self, cls: cst.ClassDef, before: cst.ClassDef):
        origin = self.ctx.origins.get(before)
        if origin is None or not any(self._is_fn_base(b.value) for b in origin.bases):
            return cls
        try:
            new = self._function_cell(cls)
        except _Fail as exc:
            # undo the base conversion: the class stays a torch Function, marked
            self.ctx.apis[FN_API] -= 1
            self.ctx.uses -= 1
            root = next(((code(_root(b.value)).split(".")[0]) for b in origin.bases if self._is_fn_base(b.value)),
                        None)
            binding = self.ctx.resolver.lookup(root) if root else None
            if binding is not None and binding.qualname is not None:
                self.ctx.imports.torch_name(root, binding.qualname)
            return self.mark(cls.with_changes(bases=origin.bases), FN_API, str(exc), origin, torch_root=root)
        self.fn_classes.add(cls.name.value)
        self.ok("torch.autograd.Function (forward/backward -> construct/bprop)")
        return new

    def _is_fn_base(self, node):
        q = self.ctx.resolver.qualify(node)
        return q is not None and canonical(q) == FN_API

    def _function_cell(self, cls):
        methods = {}
        for s in cls.body.body:
            if isinstance(s, cst.FunctionDef):
                methods[s.name.value] = s
            elif not (isinstance(s, cst.SimpleStatementLine) and all(
                    isinstance(x, (cst.Pass, cst.Expr)) for x in s.body)):
                raise _Fail("class attributes besides forward/backward are not converted")
        if set(methods) != {"forward", "backward"}:
            raise _Fail("only forward(ctx, ...) + backward(ctx, grad) are converted (not setup_context, jvp, "
                        f"vmap): found {', '.join(sorted(methods))}")
        fwd, bwd = methods["forward"], methods["backward"]
        fp, bp = [p for p in fwd.params.params], [p for p in bwd.params.params]
        if fwd.params.star_arg not in (None, cst.MaybeSentinel.DEFAULT) or fwd.params.kwonly_params or \
                fwd.params.star_kwarg or len(fp) < 2:
            raise _Fail("forward must take (ctx, inputs...) without *args/**kwargs")
        if len(bp) != 2 or bwd.params.star_arg not in (None, cst.MaybeSentinel.DEFAULT):
            raise _Fail("backward must take (ctx, grad_output): one forward output")
        if any(p.default is not None for p in fp):
            raise _Fail("forward inputs with defaults are not converted")
        ctx, inputs = fp[0].name.value, [p.name.value for p in fp[1:]]
        bctx, grad = bp[0].name.value, bp[1].name.value
        fbody, bbody = list(fwd.body.body), list(bwd.body.body)
        idx = _ctx_lines(fbody, ctx)
        saved, attrs = None, {}
        for i in idx:
            s = fbody[i]
            if not isinstance(s, cst.SimpleStatementLine) or len(s.body) != 1:
                raise _Fail(f"{ctx} used inside a compound statement of forward")
            small = s.body[0]
            if (isinstance(small, cst.Expr) and isinstance(small.value, cst.Call)
                    and code(small.value.func) == f"{ctx}.save_for_backward" and saved is None
                    and all(not a.keyword and not a.star for a in small.value.args)):
                saved = [code(a.value) for a in small.value.args]
            elif (isinstance(small, cst.Assign) and len(small.targets) == 1
                  and isinstance(small.targets[0].target, cst.Attribute)
                  and code(small.targets[0].target.value) == ctx and ctx not in _names(small.value)):
                attr = small.targets[0].target.attr.value
                if attr in attrs:
                    raise _Fail(f"{ctx}.{attr} assigned twice")
                attrs[attr] = small.value
            else:
                raise _Fail(f"unsupported use of {ctx} in forward: {code(s).strip()}")
        last = idx[-1] if idx else -1
        prefix = [s for i, s in enumerate(fbody[:last + 1]) if i not in idx]
        for s in prefix:
            if "return" in code(s).split() or not isinstance(s, (cst.SimpleStatementLine, cst.If, cst.For)):
                raise _Fail("forward returns or branches before its last ctx line")
        construct_body = [s for i, s in enumerate(fbody) if i not in idx] or [_stmt("pass\n")]
        # backward: ctx.saved_tensors -> tuple, ctx.attr -> its expression, None gradients -> zeros
        fail = []

        class B(cst.CSTTransformer):
            def leave_Attribute(self, o, u):
                if isinstance(o.value, cst.Name) and o.value.value == bctx:
                    a = o.attr.value
                    if a == "saved_tensors":
                        if saved is None:
                            fail.append("saved_tensors without save_for_backward")
                            return u
                        return emit.expression("(" + ", ".join(saved) + ("," if len(saved) == 1 else "") + ")")
                    if a in attrs:
                        return emit.expression(f"({code(attrs[a])})")
                    fail.append(f"{bctx}.{a} is not converted (needs_input_grad, saved_variables...)")
                return u

            def leave_Name(self, o, u):
                return u

            def leave_Return(self, o, u):
                v = u.value
                elems = list(v.elements) if isinstance(v, cst.Tuple) else [cst.Element(v)] if v is not None else []
                if not isinstance(v, cst.Tuple) and len(inputs) > 1:
                    fail.append("backward returns one value for several inputs")
                    return u
                if len(elems) < len(inputs):
                    fail.append("backward returns fewer gradients than forward has inputs")
                    return u
                out = []
                for k, e in enumerate(elems[:len(inputs)]):
                    if isinstance(e.value, cst.Name) and e.value.value == "None":
                        x = inputs[k]
                        out.append(f"ops.zeros_like({x}) if isinstance({x}, ms.Tensor) else 0")
                    else:
                        out.append(code(e.value))
                return u.with_changes(value=emit.expression("(" + ", ".join(
                    f"({o})" if " if " in o else o for o in out) + ",)"))

        new_bbody = [s.visit(B()) for s in bbody]
        if fail:
            raise _Fail(fail[0])
        if any(bctx in _names(s) for s in new_bbody):
            raise _Fail(f"backward uses {bctx} in a way that is not converted")
        if grad in inputs or "out" in inputs or "out" in _names_all(new_bbody) or any(
                "out" in _assigned(s) for s in prefix):
            raise _Fail("name clash with bprop's 'out' argument")
        if prefix:
            prefix = [prefix[0].with_changes(leading_lines=[cst.EmptyLine(comment=cst.Comment(
                "# recomputed from the inputs (forward saved them in ctx)"))]), *prefix[1:]]
        construct = fwd.with_changes(decorators=[], name=cst.Name("construct"),
                                     params=fwd.params.with_changes(params=[cst.Param(cst.Name("self")), *fp[1:]]),
                                     body=fwd.body.with_changes(body=construct_body))
        bprop = bwd.with_changes(decorators=[], name=cst.Name("bprop"), params=bwd.params.with_changes(params=[
            cst.Param(cst.Name("self")), *fp[1:], cst.Param(cst.Name("out")), bp[1]]),
            body=bwd.body.with_changes(body=[*prefix, *new_bbody]))
        body = [s for s in cls.body.body if not isinstance(s, cst.FunctionDef)]
        body = [s for s in body if not (isinstance(s, cst.SimpleStatementLine) and all(
            isinstance(x, cst.Pass) for x in s.body))]
        return cls.with_changes(body=cls.body.with_changes(body=[*body, construct, bprop]))

    # -- autograd.grad -----------------------------------------------------------------------------------------
    def _grad_call(self, node):
        if isinstance(node, cst.Subscript):
            node = node.value
        if isinstance(node, cst.Call):
            q = self.ctx.resolver.qualify(node.func)
            if q is not None and canonical(q) == GRAD_API:
                return node
        return None

    def block(self, stmts, before):
        # libcst rebuilds visited nodes: find the table pass's statements (keys of ctx.origins) by position
        self._before = {id(a): b for a, b in zip(stmts, before)} if len(stmts) == len(before) else {}
        out = list(stmts)
        i = 0
        while i < len(out):
            s = out[i]
            call = None
            if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1 and isinstance(s.body[0], cst.Assign) \
                    and len(s.body[0].targets) == 1:
                call = self._grad_call(s.body[0].value)
            if call is None:
                i += 1
                continue
            try:
                out, i = self._grad(out, i, call)
            except _Fail as exc:
                out[i] = self._remark(out[i], str(exc))
                i += 1
        return out

    def _remark(self, stmt, reason):
        """Replace the table's generic marker of this statement by a precise reason."""
        lines = [ln for ln in stmt.leading_lines if not (ln.comment and ln.comment.value.startswith(
            f"{MARKER} {GRAD_API}:"))]
        text = None
        for record in self.ctx.diagnostics.records:
            if record.api == GRAD_API and self._in_origin(stmt, record.node):
                record.reason = reason
                text = marker_text(GRAD_API, reason)
        return add_markers(stmt.with_changes(leading_lines=lines), [text or marker_text(GRAD_API, reason)])

    def _in_origin(self, stmt, node):
        origin = self.ctx.origins.get(self._before.get(id(stmt), stmt))
        if origin is None:
            return False
        found = []

        class V(cst.CSTVisitor):
            def on_visit(self, n):
                if n is node:
                    found.append(n)
                return not found

        origin.visit(V())
        return bool(found)

    def _grad(self, stmts, i, call):
        names = ["outputs", "inputs", "grad_outputs", "retain_graph", "create_graph", "only_inputs",
                 "allow_unused", "is_grads_batched", "materialize_grads"]
        bound = {}
        for k, a in enumerate(call.args):
            if a.star:
                raise _Fail("*args are not converted")
            key = a.keyword.value if a.keyword else names[k]
            bound[key] = a.value
        for key, ok in (("allow_unused", ("False", "None")), ("is_grads_batched", ("False",)),
                        ("materialize_grads", ("False",)), ("only_inputs", ("True",))):
            if key in bound and code(bound[key]) not in ok:
                raise _Fail(f"{key}={code(bound[key])} is not converted")
        create = code(bound["create_graph"]) if "create_graph" in bound else "False"
        if create not in ("True", "False"):
            raise _Fail("create_graph must be a literal True/False")
        outputs, inputs = bound["outputs"], bound["inputs"]
        if isinstance(inputs, (cst.Tuple, cst.List)):
            in_nodes = [e.value for e in inputs.elements]
        else:
            in_nodes = [inputs]
        if not all(isinstance(n, cst.Name) for n in in_nodes):
            raise _Fail("inputs must be names of tensors (the gradient is taken by argument position)")
        if isinstance(outputs, (cst.Tuple, cst.List)):
            raise _Fail("several outputs are not converted")
        in_names = [n.value for n in in_nodes]
        go = bound.get("grad_outputs")
        if isinstance(go, (cst.Tuple, cst.List)):
            if len(go.elements) != 1:
                raise _Fail("grad_outputs for several outputs")
            go = go.elements[0].value
        # statements computing the outputs from the inputs: forward-tainted by the inputs and in the backward
        # slice of the outputs; the others (models, constants) stay where they are and are closed over
        tainted, dependent = set(), set()
        for j in range(i):
            s = stmts[j]
            if _names(s) & tainted and not (_assigned(s) & set(in_names)):
                dependent.add(j)
                tainted |= _assigned(s)
            elif _assigned(s) & set(in_names):
                tainted |= _assigned(s) & set(in_names)
                tainted -= _assigned(s) - set(in_names)
            else:
                tainted -= _assigned(s)
        needed = _names(outputs) | (_names(go) if go is not None else set())
        slice_idx = []
        for j in range(i - 1, -1, -1):
            s = stmts[j]
            hit = _assigned(s) & needed
            if not hit or j not in dependent:
                needed -= hit
                continue
            if not isinstance(s, cst.SimpleStatementLine):
                raise _Fail("the outputs are computed inside a compound statement")
            slice_idx.append(j)
            needed = (needed - _assigned(s)) | _names(s)
        slice_idx.reverse()
        if not slice_idx and not (_names(outputs) & set(in_names)) or not set(in_names) <= tainted | set(in_names):
            raise _Fail("the outputs are not computed from the inputs in the same block")
        body_assigned = set().union(*(_assigned(stmts[j]) for j in slice_idx)) if slice_idx else set()
        if body_assigned & set(in_names):
            raise _Fail("an input is reassigned while computing the outputs")
        lo = slice_idx[0] if slice_idx else i
        for j in range(lo, len(stmts)):
            if j in slice_idx or j == i:
                continue
            s = stmts[j]
            if _names(s) & body_assigned:
                raise _Fail("values computed for the gradient are also used elsewhere: not extracted "
                            f"({', '.join(sorted(_names(s) & body_assigned))})")
            if j < i and _assigned(s) & set().union(*(_names(stmts[k]) for k in slice_idx)):
                raise _Fail("a value read while computing the outputs is reassigned before the grad call")
        self.counter += 1
        fn = "grad_input_fn" + ("" if self.counter == 1 else f"_{self.counter}")
        out_src = code(outputs)
        if go is not None and not _is_ones_like(go, out_src):
            ret = f"({out_src} * ops.stop_gradient({code(go)})).sum()"
        else:
            ret = out_src
        body_src = "".join(code(stmts[j].with_changes(leading_lines=[])) for j in slice_idx)
        fn_src = f"def {fn}({', '.join(in_names)}):\n" + "".join(
            "    " + ln + "\n" for ln in body_src.splitlines() if ln.strip()) + f"    return {ret}\n"
        # ms.grad returns a bare tensor for one position (even grad_position=(0,), measured) and a tuple for
        # several: torch's autograd.grad always returns a tuple
        if len(in_names) == 1:
            g = f"ms.grad({fn})({in_names[0]})"
            grad_expr = f"({g},)" if create == "True" else f"(ops.stop_gradient({g}),)"
        else:
            g = f"ms.grad({fn}, grad_position=({', '.join(str(k) for k in range(len(in_names)))}))({', '.join(in_names)})"
            grad_expr = g if create == "True" else f"tuple(ops.stop_gradient(t) for t in {g})"
        assign = stmts[i].body[0]
        new_value = _replace(assign.value, call, emit.expression(grad_expr))
        keep_lines = [ln for ln in stmts[i].leading_lines if not (ln.comment and ln.comment.value.startswith(
            f"{MARKER} {GRAD_API}:"))]
        new_stmt = stmts[i].with_changes(body=[assign.with_changes(value=new_value)], leading_lines=[])
        fn_def = emit.statement(fn_src).with_changes(leading_lines=keep_lines)
        # the table pass already reported this call as unsupported: turn the record into a conversion
        # (its torch import is kept only if another unconverted use still needs that name)
        self.ctx.diagnostics.withdraw(lambda r: not (r.api == GRAD_API and self._in_origin(stmts[i], r.node)))
        self.ctx.apis[GRAD_API] += 1
        result = []
        for j, s in enumerate(stmts):
            if j in slice_idx:
                continue
            if j == i:
                result += [fn_def, new_stmt]
                continue
            result.append(self._drop_requires_grad(s, in_names))
        result = [s for s in result if s is not None]
        return result, result.index(new_stmt) + 1

    def _drop_requires_grad(self, s, in_names):
        """``setattr(x, 'requires_grad', True)`` (the converted ``x.requires_grad_(True)``) for an input x: not
        needed in MindSpore; ``x = setattr(E, 'requires_grad', True)`` (the converted value form) -> ``x = E``."""
        if not isinstance(s, cst.SimpleStatementLine) or len(s.body) != 1:
            return s
        small = s.body[0]
        val = small.value if isinstance(small, (cst.Expr, cst.Assign)) else None
        if not (isinstance(val, cst.Call) and code(val.func) == "setattr" and len(val.args) == 3
                and code(val.args[1].value) in ("'requires_grad'", '"requires_grad"')
                and code(val.args[2].value) == "True"):
            return s
        if isinstance(small, cst.Expr) and code(val.args[0].value) in in_names:
            return None
        if isinstance(small, cst.Assign) and len(small.targets) == 1 and \
                _target_names(small.targets[0].target) & set(in_names):
            return s.with_changes(body=[small.with_changes(value=val.args[0].value)])
        return s

    # -- driver ---------------------------------------------------------------------------------------------
    def run(self):
        pass_ = self

        class T(cst.CSTTransformer):
            def leave_ClassDef(self, o, u):
                return pass_.convert_class(u, o)

            def leave_IndentedBlock(self, o, u):
                body = pass_.block(list(u.body), list(o.body))
                return u if all(a is b for a, b in zip(body, u.body)) and len(body) == len(u.body) else \
                    u.with_changes(body=body)

            def leave_Module(self, o, u):
                return u.with_changes(body=pass_.block(list(u.body), list(o.body)))

        # origins are keyed by the converted statements: transform with identity-preserving leaves
        module = self.module.visit(T())
        if self.fn_classes:
            module = module.visit(_Apply(self.fn_classes, self))
        return module


def _names_all(stmts):
    return set().union(*(_names(s) for s in stmts)) if stmts else set()


def _is_ones_like(go, out_src):
    return (isinstance(go, cst.Call) and code(go.func) in ("ops.ones_like", "torch.ones_like")
            and len(go.args) == 1 and code(go.args[0].value) == out_src)


def _replace(tree, old, new):
    class R(cst.CSTTransformer):
        def leave_Call(self, o, u):
            return new if o is old else u

    if tree is old:
        return new
    return tree.visit(R())


class _Apply(cst.CSTTransformer):
    """``F.apply`` -> ``F()`` for converted Function classes (a Cell instance is called like apply)."""

    def __init__(self, classes, p):
        super().__init__()
        self.classes, self.p = classes, p

    def leave_Attribute(self, o, u):
        if isinstance(u.value, cst.Name) and u.value.value in self.classes and u.attr.value == "apply":
            self.p.ok("torch.autograd.Function.apply")
            return cst.Call(func=u.value)
        if (u.attr.value == "apply" and isinstance(u.value, cst.Call) and not u.value.args
                and isinstance(u.value.func, cst.Name) and u.value.func.value in self.classes):
            # ``F().apply``: apply through an instance (the methods are static): the Cell instance itself
            # (``Cell.apply`` is MindSpore's apply-to-every-cell, a different method)
            self.p.ok("torch.autograd.Function.apply")
            return u.value
        return u


def run(module: cst.Module, ctx) -> cst.Module:
    return AutogradPass(module, ctx).run()
