"""The training pass: PyTorch's implicit-autograd optimisation step -> MindSpore's functional step.

Runs after the table-driven pass (so the code is already MindSpore except for the step itself). It rewrites

    optimizer.zero_grad()                      def forward_fn(x, y):
    out = model(x)                                 out = model(x)
    loss = criterion(out, y)           ->          loss = criterion(out, y)
    loss.backward()                                return loss, out          # aux: used after the step
    clip_grad_norm_(..., 1.0)                  grad_fn = ms.value_and_grad(forward_fn, None,
    optimizer.step()                                                       optimizer.parameters, has_aux=True)
                                               ...
                                                   (loss, out), grads = grad_fn(x, y)
                                                   grads = ops.clip_by_global_norm(grads, 1.0)
                                                   optimizer(grads)

``forward_fn`` is the backward slice of the loss (the statements of the step's block the loss depends on); its
parameters are the names bound in the loop (targets, data preparation) that the slice reads; everything else
(model, criterion, helpers) is closed over. forward_fn and grad_fn are defined once, before the outermost loop of
the same scope. ``model.set_train(True)`` is injected before that loop when the scope never sets the mode
(torch modules start in training mode, Cells do not). ``with ms._no_grad():`` (the table's form of
``torch.no_grad()`` / ``inference_mode()``) is unwrapped and ``@ms._no_grad()`` dropped: PyNative MindSpore only
differentiates inside value_and_grad. Steps it cannot prove equivalent are marked unsupported, never guessed.
"""
from __future__ import annotations

import libcst as cst

from .calls import code
from .transformer import MARKER

NO_GRAD = "ms._no_grad()"
_SCOPES = (cst.FunctionDef, cst.ClassDef)


def applies(source: str) -> bool:
    return (".backward(" in source or "no_grad" in source or "inference_mode" in source
            or "manual_seed" in source)


# -- small helpers ---------------------------------------------------------------------------------------
def _expr_call(stmt, attr: str | None = None):
    """The Call of a one-expression statement line (``X.attr(...)`` when attr is given), else None."""
    if not (isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Expr)):
        return None
    call = stmt.body[0].value
    if not isinstance(call, cst.Call):
        return None
    if attr is not None and not (isinstance(call.func, cst.Attribute) and call.func.attr.value == attr):
        return None
    return call


def _names(node) -> set[str]:
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, n):
            found.add(n.value)

        def visit_Attribute(self, n):  # x.attr: only the root is a variable
            n.value.visit(self)
            return False

        def visit_Arg(self, n):
            n.value.visit(self)
            return False

    node.visit(V())
    return found


def _assigned(stmt) -> set[str]:
    out: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n):
            out.update(_target_names(n.target))

        def visit_AugAssign(self, n):
            out.update(_target_names(n.target))

        def visit_AnnAssign(self, n):
            out.update(_target_names(n.target))

        def visit_For(self, n):
            out.update(_target_names(n.target))

        def visit_WithItem(self, n):
            if n.asname:
                out.update(_target_names(n.asname.name))

        def visit_FunctionDef(self, n):
            out.add(n.name.value)
            return False

    stmt.visit(V())
    return out


def _target_names(t) -> set[str]:
    if isinstance(t, cst.Name):
        return {t.value}
    if isinstance(t, (cst.Tuple, cst.List)):
        return set().union(*(_target_names(e.value) for e in t.elements)) if t.elements else set()
    if isinstance(t, cst.StarredElement):
        return _target_names(t.value)
    return set()


def _ordered_names(nodes) -> list[str]:
    order: list[str] = []

    class V(cst.CSTVisitor):
        def visit_Name(self, n):
            if n.value not in order:
                order.append(n.value)

        def visit_Attribute(self, n):
            n.value.visit(self)
            return False

        def visit_Arg(self, n):
            n.value.visit(self)
            return False

    for node in nodes:
        node.visit(V())
    return order


def _stmt(src: str) -> cst.BaseStatement:
    return cst.parse_statement(src)


class _Step:
    """One rewritten optimisation step: the definitions to place before its loop."""

    def __init__(self, defs, optimizer, model_names):
        self.defs, self.optimizer, self.model_names = defs, optimizer, model_names


class TrainingPass:
    def __init__(self, module: cst.Module, rewriter) -> None:
        self.module, self.rw = module, rewriter
        self.counter = 0
        self.optimizers = self._optimizer_models(module)  # optimizer name -> model names in its params
        self.has_shuffle_dataset = "ds.GeneratorDataset(" in module.code and "shuffle=True" in module.code

    # -- reporting -----------------------------------------------------------------------------------
    def fail(self, stmt, api: str, reason: str):
        self.rw.uses += 1
        self.rw.records.append((api, reason, self.rw.origins.get(stmt, stmt)))
        text = f"{MARKER} {api}: {reason}"
        if any(ln.comment and ln.comment.value == text for ln in stmt.leading_lines):
            return stmt
        return stmt.with_changes(leading_lines=[*stmt.leading_lines, cst.EmptyLine(comment=cst.Comment(text))])

    def ok(self, api: str):
        self.rw.uses += 1
        self.rw.apis[api] += 1

    @staticmethod
    def _optimizer_models(module) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}

        class V(cst.CSTVisitor):
            def visit_Assign(self, n):
                v = n.value
                if (len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name) and isinstance(v, cst.Call)
                        and code(v.func).startswith("optim.") and "lr_scheduler" not in code(v.func)):
                    models = set()
                    for c in _calls(v, "trainable_params"):
                        root = c.func.value
                        while isinstance(root, cst.Attribute):
                            root = root.value
                        if isinstance(root, cst.Name):
                            models.add(root.value)
                    found[n.targets[0].target.value] = models

        module.visit(V())
        return found

    # -- driver --------------------------------------------------------------------------------------
    def run(self) -> cst.Module:
        body = self.scope_body(list(self.module.body))
        module = self.module.with_changes(body=body)
        module = module.visit(_NoGrad(self))
        return module

    def scope_body(self, stmts: list) -> list:
        """Rewrite the steps in one scope (module or function body); insert their definitions before the
        top-level statement (loop) that contains each."""
        out = []
        for stmt in stmts:
            if isinstance(stmt, cst.FunctionDef):
                out.append(stmt.with_changes(body=stmt.body.with_changes(
                    body=self.scope_body(list(stmt.body.body)))) if isinstance(stmt.body, cst.IndentedBlock)
                    else stmt)
                continue
            if isinstance(stmt, cst.ClassDef):
                out.append(stmt.with_changes(body=stmt.body.with_changes(body=self.scope_body(list(stmt.body.body))))
                           if isinstance(stmt.body, cst.IndentedBlock) else stmt)
                continue
            steps: list[_Step] = []
            if isinstance(stmt, cst.BaseCompoundStatement):
                stmt = self.compound(stmt, steps, loop_targets=set())
            defs = []
            for step in steps:
                mode_set = any(".set_train(" in code(s) for s in out) or ".set_train(" in code(stmt)
                if not mode_set:
                    for m in sorted(step.model_names):
                        defs.append(_stmt(f"{m}.set_train(True)  # torch modules start in training mode\n"))
                        self.ok("torch.nn.Module.train (implicit)")
                defs += step.defs
            if defs:
                defs[0] = defs[0].with_changes(leading_lines=stmt.leading_lines)
                stmt = stmt.with_changes(leading_lines=[])
            out += defs
            out.append(stmt)
        return self.block(out, steps_out=None, loop_targets=set(), top=True)

    def compound(self, stmt, steps, loop_targets):
        """Recurse into the blocks of a compound statement (not into nested functions or classes)."""
        targets = set(loop_targets)
        if isinstance(stmt, cst.For):
            targets |= _target_names(stmt.target)
        new = stmt
        for field in ("body", "orelse", "handlers", "finalbody"):
            part = getattr(stmt, field, None)
            if part is None:
                continue
            if isinstance(part, (list, tuple)):
                new = new.with_changes(**{field: [self.compound(h, steps, targets) for h in part]})
                continue
            if isinstance(part, (cst.Else, cst.If, cst.Finally, cst.ExceptHandler)):
                new = new.with_changes(**{field: self.compound(part, steps, targets)})
                continue
            if isinstance(part, cst.IndentedBlock):
                inner = [self.compound(s, steps, targets) if isinstance(s, cst.BaseCompoundStatement)
                         and not isinstance(s, _SCOPES) else s for s in part.body]
                inner = self.block(inner, steps, targets)
                new = new.with_changes(**{field: part.with_changes(body=inner)})
        return new

    # -- one block ---------------------------------------------------------------------------------
    def block(self, stmts: list, steps_out, loop_targets, top=False) -> list:
        i_bw = next((i for i, s in enumerate(stmts) if _expr_call(s, "backward") is not None), None)
        if i_bw is None:
            return stmts
        bw_stmt = stmts[i_bw]
        bw = _expr_call(bw_stmt, "backward")
        if bw.args:
            stmts[i_bw] = self.fail(bw_stmt, "torch.Tensor.backward",
                                    "arguments (gradient / retain_graph / create_graph) are not converted")
            return stmts
        # the optimizer: receiver of the first X.step() after backward that is not a scheduler
        zero_recv = {code(c.func.value) for s in stmts if (c := _expr_call(s, "zero_grad")) is not None}
        i_step = None
        for j in range(i_bw + 1, len(stmts)):
            c = _expr_call(stmts[j], "step")
            if c is not None and not c.args and (code(c.func.value) in zero_recv or code(c.func.value) in self.optimizers
                                                 or "sched" not in code(c.func.value).lower()):
                i_step = j
                break
        if i_step is None:
            stmts[i_bw] = self.fail(bw_stmt, "torch.Tensor.backward",
                                    "no optimizer.step() after it in the same block (gradient accumulation, "
                                    "several optimizers and torch.autograd idioms are not converted)")
            return stmts
        opt = code(_expr_call(stmts[i_step], "step").func.value)
        other_zero = zero_recv - {opt}
        if other_zero or sum(1 for s in stmts if _expr_call(s, "backward") is not None) > 1:
            stmts[i_bw] = self.fail(bw_stmt, "torch.Tensor.backward",
                                    "several backward passes or optimizers in one step are not converted")
            return stmts
        if steps_out is None and not top:
            return stmts
        # the loss and its backward slice
        recv = bw.func.value
        needed = _names(recv)
        in_slice: list[int] = []
        for j in range(i_bw - 1, -1, -1):
            s = stmts[j]
            if _expr_call(s, "zero_grad") is not None:
                continue
            if _assigned(s) & needed:
                in_slice.append(j)
                needed |= _names(s)
        in_slice.reverse()
        if not in_slice:
            stmts[i_bw] = self.fail(bw_stmt, "torch.Tensor.backward",
                                    "the loss is not computed in the same block as backward()")
            return stmts
        slice_stmts = [stmts[j] for j in in_slice]
        # parameters: names the slice reads that the loop binds before it (targets, data preparation)
        bound_before = set(loop_targets)
        for j in range(0, in_slice[0]):
            bound_before |= _assigned(stmts[j])
        for j in range(in_slice[0], i_bw):
            if j not in in_slice:
                bound_before |= _assigned(stmts[j])
        params, assigned_so_far = [], set()
        for s in slice_stmts:
            for n in _ordered_names([s]):
                if n in bound_before and n not in assigned_so_far and n not in params:
                    params.append(n)
            assigned_so_far |= _assigned(s)
        # the loss value and aux outputs (slice results used anywhere else in the scope)
        elsewhere = set()
        for j, s in enumerate(stmts):
            if j not in in_slice and j != i_bw:
                elsewhere |= _names(s)
        if isinstance(recv, cst.Name):
            loss_name, loss_expr = recv.value, recv.value
        else:
            loss_name, loss_expr = "loss", code(recv)
            if "loss" in assigned_so_far or "loss" in elsewhere:
                loss_name = "loss_value"
        aux = [n for n in _ordered_names(slice_stmts) if n in assigned_so_far and n != loss_name and n in elsewhere]
        self.counter += 1
        suffix = "" if self.counter == 1 else f"_{self.counter}"
        fwd, gfn = f"forward_fn{suffix}", f"grad_fn{suffix}"
        ret = ", ".join([loss_expr, *aux])
        body_src = "".join(code(s.with_changes(leading_lines=[ln for ln in s.leading_lines if ln.comment]))
                           for s in slice_stmts)
        fn_src = f"def {fwd}({', '.join(params)}):\n" + _indent(body_src) + f"    return {ret}\n"
        defs = [cst.parse_statement(fn_src),
                _stmt(f"{gfn} = ms.value_and_grad({fwd}, None, {opt}.parameters"
                      + (", has_aux=True)\n" if aux else ")\n"))]
        outputs = f"({loss_name}, {', '.join(aux)})" if aux else loss_name
        call_stmt = _stmt(f"{outputs}, grads = {gfn}({', '.join(params)})\n").with_changes(
            leading_lines=[ln for ln in slice_stmts[0].leading_lines if not ln.comment])
        new = []
        for j, s in enumerate(stmts):
            if j == in_slice[0]:
                new.append(call_stmt)
            if j in in_slice:
                continue
            if j == i_bw:
                continue
            c = _expr_call(s, "zero_grad")
            if c is not None and code(c.func.value) == opt:
                continue
            if i_bw < j < i_step:
                clip = _clip(s)
                if clip is not None:
                    new.append(s.with_changes(body=[cst.parse_statement(
                        f"grads = ops.clip_by_global_norm(grads, {clip})\n").body[0]]))
                    self.ok("torch.nn.utils.clip_grad_norm_ (on gradients)")
                    continue
            if j == i_step:
                new.append(s.with_changes(body=[cst.parse_statement(f"{opt}(grads)\n").body[0]]))
                continue
            new.append(s)
        self.ok("torch.Tensor.backward")
        self.ok("torch.optim.Optimizer.step")
        self.rw.ms_names |= {"ms"}
        models = self.optimizers.get(opt, set())
        if top:
            # a step outside any loop: define forward_fn right before it
            k = new.index(call_stmt)
            new[k:k] = [*self._mode(models, new[:k]), *defs]
            return new
        steps_out.append(_Step(defs, opt, models))
        return new

    def _mode(self, models, before):
        if any(".set_train(" in code(s) for s in before):
            return []
        return [_stmt(f"{m}.set_train(True)  # torch modules start in training mode\n") for m in sorted(models)]


def _clip(stmt):
    """The max_norm source of a statement ``ops.clip_by_global_norm(<params>, max_norm)``, else None."""
    c = _expr_call(stmt)
    if c is not None and code(c.func) == "ops.clip_by_global_norm" and len(c.args) == 2:
        return code(c.args[1].value)
    return None


def _calls(node, attr):
    found = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n):
            if isinstance(n.func, cst.Attribute) and n.func.attr.value == attr:
                found.append(n)

    node.visit(V())
    return found


def _indent(src: str) -> str:
    return "".join(("    " + ln if ln.strip() else ln) for ln in src.splitlines(keepends=True))


class _NoGrad(cst.CSTTransformer):
    """Unwrap ``with ms._no_grad():`` and drop ``@ms._no_grad()``; add the dataset seed next to ms.set_seed;
    mark clipping calls the step rewrite did not consume."""

    def __init__(self, tp: TrainingPass):
        super().__init__()
        self.tp = tp

    def leave_FunctionDef(self, original, updated):
        decorators = [d for d in updated.decorators if code(d.decorator) != NO_GRAD]
        if len(decorators) != len(updated.decorators):
            self.tp.ok("torch.no_grad (decorator dropped)")
            return updated.with_changes(decorators=decorators)
        return updated

    def _flatten(self, body):
        out = []
        for s in body:
            if (isinstance(s, cst.With) and len(s.items) == 1 and code(s.items[0].item) == NO_GRAD
                    and isinstance(s.body, cst.IndentedBlock)):
                inner = list(s.body.body)
                comments = [ln for ln in s.leading_lines]
                if inner:
                    inner[0] = inner[0].with_changes(leading_lines=[*comments, *inner[0].leading_lines])
                out += inner
                self.tp.ok("torch.no_grad (context dropped)")
            elif _clip(s) is not None:
                out.append(self.tp.fail(s, "torch.nn.utils.clip_grad_norm_",
                                        "only converted between backward() and optimizer.step() of a step"))
            elif self.tp.has_shuffle_dataset and (c := _expr_call(s)) is not None and code(c.func) == "ms.set_seed":
                out.append(s)
                out.append(_stmt(f"ds.config.set_seed({code(c.args[0].value)})  # the dataset shuffles\n"))
            else:
                out.append(s)
        return out

    def leave_IndentedBlock(self, original, updated):
        return updated.with_changes(body=self._flatten(updated.body))

    def leave_Module(self, original, updated):
        return updated.with_changes(body=self._flatten(updated.body))


def run(module: cst.Module, rewriter) -> cst.Module:
    new = TrainingPass(module, rewriter).run()
    if "ms." in new.code and not any(code(s).lstrip().startswith("import mindspore as ms") for s in new.body):
        from .transformer import _after_preamble

        body = list(new.body)
        at = next((i for i, s in enumerate(body) if code(s).lstrip().startswith(("import mindspore", "from mindspore"))),
                  _after_preamble(body))
        body.insert(at, _stmt("import mindspore as ms\n"))
        new = new.with_changes(body=body)
    return new
