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

import functools
import re

import libcst as cst

from ..core import emit, relevance
from ..core.cst_util import STATEMENT_TYPES, Transformer

from .calls import code
from ..core.diagnostics import add_markers

NO_GRAD = "ms._no_grad()"
# torchrun's environment variables, read through launcher_env (a helper: msrun's names, measured under msrun 2.10)
TORCHRUN_ENV = ("LOCAL_RANK", "RANK", "WORLD_SIZE")
AUTOCAST = "ms.amp.autocast_O1()"  # the table's torch.autocast(float16): this pass unwraps it or marks it


def _autocast(item) -> str | None:
    """The condition of the table's autocast region ``ms.amp.autocast_O1(enabled=amp)`` ("True" when it has
    none), else None."""
    if not (isinstance(item, cst.Call) and code(item.func) == "ms.amp.autocast_O1"):
        return None
    if not item.args:
        return "True"
    if len(item.args) == 1 and item.args[0].keyword is not None and item.args[0].keyword.value == "enabled":
        return code(item.args[0].value)
    return None
_SCOPES = (cst.FunctionDef, cst.ClassDef)


def applies(source: str) -> bool:
    return (".backward(" in source or "no_grad" in source or "inference_mode" in source
            or "manual_seed" in source or "clip_grad" in source  # a clip outside any step must be marked
            or any(name in source for name in _HELPER_TRIGGERS))


# what the _NoGrad walk rewrites, as the torch source spells it (torch.no_grad / inference_mode become NO_GRAD,
# torch.autocast AUTOCAST; clip_grad_*; .to(memory_format=...); param_groups[i]['lr']; the dataset seed)
_WALK_TRIGGERS = ("no_grad", "inference_mode", "autocast", "clip_grad", "memory_format", "param_groups",
                  "seed")

_HELPER_TRIGGERS = ("CrossEntropyLoss", "save", "load", "DataLoader", "autocast", "memory_format", "random_split",
                    "Generator", "TensorDataset", "Subset", "Sampler", "DistributedDataParallel", "init_process_group",
                    "barrier")


def _helpers():
    from ..mapping.rules_training import HELPERS

    return HELPERS


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


def _self_path(node) -> str | None:
    """``self.attr`` (an attribute of the object a trainer's methods share) as one variable name."""
    if isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == "self":
        return f"self.{node.attr.value}"
    return None


def _names(node) -> set[str]:
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, n):
            found.add(n.value)

        def visit_Attribute(self, n):  # x.attr: only the root is a variable (and self.attr)
            if (p := _self_path(n)) is not None:
                found.add(p)
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
    if (p := _self_path(t)) is not None:
        return {p}
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
            p = _self_path(n)
            n.value.visit(self)
            if p is not None and p not in order:
                order.append(p)
            return False

        def visit_Arg(self, n):
            n.value.visit(self)
            return False

    for node in nodes:
        node.visit(V())
    return order


def _stmt(src: str) -> cst.BaseStatement:
    return emit.statement(src)


class _Step:
    """One rewritten optimisation step: the definitions to place before its loop."""

    def __init__(self, defs, optimizer, model_names):
        self.defs, self.optimizer, self.model_names = defs, optimizer, model_names


class TrainingPass:
    def __init__(self, module: cst.Module, ctx) -> None:
        self.module, self.ctx = module, ctx
        self.counter = 0
        self.accums: dict[str, str] = {}  # optimizer -> its gradient buffer, in the scope being rewritten
        # optimizer name -> model names in its params; each a walk of the module, so only where the facts say so
        self.optimizers = (self._optimizer_models(module)
                           if any(api.startswith("torch.optim.") for api in ctx.apis) else {})
        self.scalers = ({n.value for n in _scaler_names(module)}  # GradScaler -> ms.amp.DynamicLossScaler
                        if "GradScaler" in ctx.source else set())
        # DistributedDataParallel (the table's helper Cell): its gradients are averaged over the processes
        self.data_parallel = any(api.endswith(".DistributedDataParallel") for api in ctx.apis)
        self.torchrun = any(api.endswith(".init_process_group") for api in ctx.apis)  # torchrun's env -> msrun's
        self.clip_helpers = {st.name.value: st for st in module.body if _is_clip_helper(st)}
        self.zero_helpers = _zero_helpers(module) if "zero_grad" in ctx.source else {}
        self.kept_zero: set[str] = set()  # zero_grad() of another optimizer than a step's, kept in its block
        self.scaler_branches = ".scale(" in ctx.source and "else" in ctx.source
        self.clip_inlined: dict[str, int] = {}
        # optimizer -> the sources of its parameters (receivers of trainable_params() / parameters_and_names(), or
        # the params expression itself): a clip between backward and step must clip exactly these
        self.opt_params: dict[str, tuple] = (_optimizer_param_sources(module) if self.optimizers else {})

    @functools.cached_property
    def has_shuffle_dataset(self) -> bool:  # a converted DataLoader that shuffles (asked at ``ms.set_seed`` lines)
        return any(api.endswith(".DataLoader") for api in self.ctx.apis) and "shuffle=True" in self.ctx.source

    # -- reporting -----------------------------------------------------------------------------------
    def fail(self, stmt, api: str, reason: str):
        return add_markers(stmt, [self.ctx.unsupported(api, reason, self.ctx.origins.get(stmt, stmt))])

    def ok(self, api: str):
        self.ctx.ok(api)

    @staticmethod
    def _optimizer_models(module) -> dict[str, set[str]]:
        found: dict[str, set[str]] = {}
        imported = set()  # names bound by imports: ``net.decoder.trainable_params()``'s model is net.decoder
        for st in module.body:
            for small in (st.body if isinstance(st, cst.SimpleStatementLine) else ()):
                if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                    for a in small.names:
                        imported.add(code(a.asname.name) if a.asname else code(a.name).split(".")[0])

        class V(cst.CSTVisitor):
            def visit_Assign(self, n):
                v = n.value
                t = n.targets[0].target if len(n.targets) == 1 else None
                key = t.value if isinstance(t, cst.Name) else _self_path(t)
                if (key is not None and isinstance(v, cst.Call)
                        and code(v.func).startswith("optim.") and "lr_scheduler" not in code(v.func)):
                    models = set()
                    for c in _calls(v, "trainable_params"):
                        root = c.func.value
                        while (isinstance(root, cst.Attribute) and _self_path(root) is None
                               and not (isinstance(root.value, cst.Name) and root.value.value in imported)):
                            root = root.value
                        if isinstance(root, cst.Attribute) and _self_path(root) is None:
                            models.add(code(root))  # an instance a module of the project holds
                        elif isinstance(root, cst.Name):
                            models.add(root.value)
                        elif _self_path(root) is not None:
                            models.add(_self_path(root))
                    found[key] = models

        module.visit(V())
        return found

    # -- driver --------------------------------------------------------------------------------------
    def run(self) -> cst.Module:
        module = self.module
        if ".backward(" in self.ctx.source or self.clip_helpers:  # steps (and trainer classes) need a backward
            body = self.scope_body(list(module.body))
            body = [st for st in body if not (isinstance(st, cst.FunctionDef) and st.name.value in self.clip_inlined
                                              and _calls_of(st.name.value, self.ctx.source)
                                              <= self.clip_inlined[st.name.value])]
            module = module.with_changes(body=body)
        if self._needs_walk():
            module = module.visit(_NoGrad(self))
        return module

    def _needs_walk(self) -> bool:
        """Whether the file has anything ``_NoGrad`` rewrites (a walk of the whole tree: most model files have
        nothing, and are here only for a helper their converted calls use)."""
        src = self.ctx.source
        return bool(self.optimizers or self.torchrun or any(t in src for t in _WALK_TRIGGERS))

    def scope_body(self, stmts: list) -> list:
        """Rewrite the steps in one scope (module or function body); insert their definitions before the
        top-level statement (loop) that contains each."""
        saved, self.accums = self.accums, {}
        saved_zero, self.kept_zero = self.kept_zero, set()
        try:
            out = self._scope_body(stmts)
            if self.accums:
                out = list(cst.Module(body=out).visit(_Accumulators(self)).body)
            drop = {r for r in self.kept_zero if not any(self._zeroes(r, o) for o in self.accums)}
            if drop:  # a converted optimizer keeps no .grad: zeroing it is nothing to do
                out = list(cst.Module(body=out).visit(_DropZeroGrad(drop)).body)
            return out
        finally:
            self.accums, self.kept_zero = saved, saved_zero

    def _scope_body(self, stmts: list) -> list:
        out = []
        for stmt in stmts:
            if isinstance(stmt, cst.FunctionDef):
                out.append(stmt.with_changes(body=stmt.body.with_changes(
                    body=self.scope_body(list(stmt.body.body)))) if isinstance(stmt.body, cst.IndentedBlock)
                    else stmt)
                continue
            if isinstance(stmt, cst.ClassDef):
                if isinstance(stmt.body, cst.IndentedBlock):
                    stmt = _inline_trainer_methods(stmt, self.ctx.source)
                out.append(stmt.with_changes(body=stmt.body.with_changes(body=self.scope_body(list(stmt.body.body))))
                           if isinstance(stmt.body, cst.IndentedBlock) else stmt)
                continue
            steps: list[_Step] = []
            if isinstance(stmt, cst.BaseCompoundStatement):
                stmt = self.compound(stmt, steps, loop_targets=set())
            defs = []
            for step in steps:
                mode_set = any(_sets_mode(code(s)) for s in out) or _sets_mode(code(stmt))
                if not mode_set:
                    for m in sorted(step.model_names - self._mode_settled(out)):
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
                body = self._merge_scaler_branches(list(part.body)) if self.scaler_branches else part.body
                inner = [self.compound(s, steps, targets) if isinstance(s, cst.BaseCompoundStatement)
                         and not isinstance(s, _SCOPES) else s for s in body]
                inner = self.block(inner, steps, targets)
                new = new.with_changes(**{field: part.with_changes(body=inner)})
        return new

    # -- one block ---------------------------------------------------------------------------------
    def block(self, stmts: list, steps_out, loop_targets, top=False) -> list:
        """Rewrite the backward passes of one block. Backward calls are grouped by the next ``X.step()`` of the
        block: one group per step (GAN-style D and G steps become several forward/grad functions), and several
        backward calls before one step (DCGAN's ``errD_real.backward(); ...; errD_fake.backward(); opt.step()``)
        sum their losses in one forward function (torch adds their gradients). A group is converted to
        ``optimizer(grads)`` only when X's gradients were zeroed since the previous backward pass (walking back
        cyclically through the loop body), so the step sees exactly this group's gradients. Otherwise, or when the
        step is elsewhere (gradient accumulation: ``if (i + 1) % k == 0: optimizer.step()``), a single backward
        becomes an explicit gradient buffer: backward adds, zero_grad resets, step consumes it - torch's ``.grad``
        semantics."""
        bws = [i for i, s in enumerate(stmts) if _expr_call(s, "backward") is not None]
        if not bws:
            return stmts
        stmts = self._inline_clip_helpers(stmts)
        stmts = self._inline_zero_helpers(stmts)
        stmts, amp_models = self._unwrap_autocast(stmts)
        if amp_models is None:
            return stmts
        bws = [i for i, s in enumerate(stmts) if _expr_call(s, "backward") is not None]
        for i in bws:
            bad = [a for a in _expr_call(stmts[i], "backward").args
                   if not (a.keyword is not None and a.keyword.value == "retain_graph")]
            if bad:
                stmts[i] = self.fail(stmts[i], "torch.Tensor.backward",
                                     "arguments (gradient / create_graph / inputs) are not converted")
                return stmts
        zero_recv = {code(c.func.value) for s in stmts if (c := _expr_call(s, "zero_grad")) is not None}
        groups, pending = [], []
        for k, i_bw in enumerate(bws):
            end = bws[k + 1] if k + 1 < len(bws) else len(stmts)
            i_step = None
            for j in range(i_bw + 1, end):
                c = _expr_call(stmts[j], "step")
                if c is not None and not c.args and (code(c.func.value) in zero_recv
                                                     or code(c.func.value) in self.optimizers
                                                     or "sched" not in code(c.func.value).lower()):
                    i_step = j
                    break
                if self._scaler_step(stmts[j]) is not None:
                    i_step = j
                    break
            pending.append(i_bw)
            if i_step is not None or k + 1 == len(bws):
                groups.append((pending, i_step))
                pending = []
        if len(groups) == 1 and len(groups[0][0]) == 1:
            (i_bw,), i_step = groups[0]
            opt = self._step_opt(stmts[i_step]) if i_step is not None else None
            if opt is None or not self._zeroed_before(stmts, i_bw, opt, bws):
                opt = opt or self._accum_optimizer(stmts, i_bw)
                if opt is None:
                    stmts[i_bw] = self.fail(stmts[i_bw], "torch.Tensor.backward",
                                            "no optimizer.step() found for it (several optimizers, or a "
                                            "torch.autograd idiom): not converted")
                    return stmts
                return self._accumulate(stmts, i_bw, opt, steps_out, loop_targets, top)
        opts = [self._step_opt(stmts[s]) if s is not None else None for _, s in groups]
        if None in opts or len(set(opts)) != len(opts):
            stmts[bws[0]] = self.fail(stmts[bws[0]], "torch.Tensor.backward",
                                      "several backward passes that are not each followed by the step of "
                                      "a different optimizer are not converted")
            return stmts
        for (group, _), opt in zip(groups, opts):
            if not self._zeroed_before(stmts, group[0], opt, bws):
                stmts[group[0]] = self.fail(stmts[group[0]], "torch.Tensor.backward",
                                            f"{opt}'s gradients are not zeroed between the other backward pass "
                                            "and this one (they would accumulate): not converted")
                return stmts
            for j in range(group[0] + 1, group[-1]):
                c = _expr_call(stmts[j], "zero_grad")
                if c is not None and self._zeroes(code(c.func.value), opt):
                    stmts[group[0]] = self.fail(stmts[group[0]], "torch.Tensor.backward",
                                                f"{opt}'s gradients are zeroed between two backward passes of "
                                                "one step (the first is discarded): not converted")
                    return stmts
        for s in stmts:
            c = _expr_call(s, "zero_grad")
            if c is not None and not any(self._zeroes(code(c.func.value), o) for o in opts) and not self._known_zero(
                    code(c.func.value)):
                return [self.fail(s, "torch.Tensor.backward", "zero_grad() of something that is not the "
                                  "stepped optimizer or its model: not converted") if t is s else t for t in stmts]
        built, owned, prev_step = [], {}, -1
        for (group, i_step), opt in zip(groups, opts):
            step = self._build(stmts, group, opt, loop_targets, bws, prev_step)
            if isinstance(step, str):
                stmts[group[0]] = self.fail(stmts[group[0]], "torch.Tensor.backward", step)
                return stmts
            for j in step["region"]:
                owned[j] = True
            step["i_step"], step["opt"], step["i_bw"] = i_step, opt, group[-1]
            built.append(step)
            prev_step = i_step
        new = []
        for j, s in enumerate(stmts):
            for step in built:
                if j == step["at"]:
                    new += self._grad_lines(step)
            if j in owned or j in bws:
                continue
            c = _expr_call(s, "zero_grad")
            if c is not None:
                if not any(self._zeroes(code(c.func.value), o) for o in opts):
                    # another optimizer's (stargan's reset_grad zeroes G's and D's before each step): kept for the
                    # gradient buffer it may reset; scope_body drops it otherwise
                    self.kept_zero.add(code(c.func.value))
                    new.append(s)
                continue
            clip = _clip(s)
            owner = next((st for st in built if st["i_bw"] < j < st["i_step"]), None)
            if clip is not None and owner is not None:
                new += self.clip_lines(s, "grads", owner["opt"])
                continue
            if isinstance(s, cst.BaseCompoundStatement) and owner is not None:
                s = s.visit(_NestedClip(self, owner["opt"]))  # `if args.clip: clip_grad_norm_(...)` between backward and step
            step = next((st for st in built if st["i_step"] == j), None)
            if step is not None and self._scaler_step(s) is not None:
                scaler = self._scaler_step(s)
                lines = [] if step.get("unscaled") else [f"grads = {scaler}.unscale(grads)\n"]
                lines += ["grads_finite = ms.amp.all_finite(grads)\n",
                          f"if grads_finite:  # GradScaler.step skips the update on inf/nan gradients\n"
                          f"    {step['opt']}(grads)\n"]
                stmts_new = [_stmt(ln) for ln in lines]
                stmts_new[0] = stmts_new[0].with_changes(leading_lines=s.leading_lines)
                new += stmts_new
                self.ok("torch.amp.GradScaler.step")
                continue
            if step is not None:
                new.append(s.with_changes(body=[emit.statement(f"{step['opt']}(grads)\n").body[0]]))
                continue
            c = _expr_call(s)
            recv = code(c.func.value) if c is not None and isinstance(c.func, cst.Attribute) else None
            if recv in self.scalers and c.func.attr.value == "unscale_" and any(
                    st["i_bw"] < j < st["i_step"] for st in built):
                for st in built:
                    if st["i_bw"] < j < st["i_step"]:
                        st["unscaled"] = True
                new.append(s.with_changes(body=[_stmt(f"grads = {recv}.unscale(grads)\n").body[0]]))
                self.ok("torch.amp.GradScaler.unscale_")
                continue
            if recv in self.scalers and c.func.attr.value == "update" and not c.args:
                new.append(s.with_changes(body=[_stmt(f"{recv}.adjust(grads_finite)\n").body[0]]))
                self.ok("torch.amp.GradScaler.update")
                continue
            new.append(s)
        for step in built:
            self.ok("torch.Tensor.backward")
            self.ok("torch.optim.Optimizer.step")
            if step["n_losses"] > 1:
                self.ok("torch.Tensor.backward (several losses, one step)")
        if len(built) > 1:
            self.ok("torch.Tensor.backward (several optimizers)")
        if amp_models:
            built[0]["defs"][0:0] = [_stmt(
                f'{m} = ms.amp.auto_mixed_precision({m}, "O1")  # the float16 autocast region\n' if cond == "True"
                else f'if {cond}:  # the float16 autocast region, when enabled\n'
                     f'    {m} = ms.amp.auto_mixed_precision({m}, "O1")\n')
                for m, cond in sorted(amp_models.items())]
        return self._place(new, built, steps_out, top)

    def _inline_clip_helpers(self, stmts):
        """``clip_gradients(model, 0.5)`` between backward() and step(), a function of the module whose body is
        expression statements that clip (``torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm)``): its body
        replaces the call, the arguments substituted for the parameters, so the clip applies to the gradients. A
        helper left with no other call is removed."""
        out = []
        for st in stmts:
            c = _expr_call(st)
            fn = self.clip_helpers.get(c.func.value) if c is not None and isinstance(c.func, cst.Name) else None
            body = _substitute_call(fn, c) if fn is not None else None
            if body is None:
                out.append(st)
                continue
            body[0] = body[0].with_changes(leading_lines=[*st.leading_lines, *body[0].leading_lines])
            out += body
            self.clip_inlined[fn.name.value] = self.clip_inlined.get(fn.name.value, 0) + 1
        return out

    def clip_lines(self, stmt, buf: str, opt: str) -> list:
        """``[norm =] clip_grad_norm_(params, max_norm)`` between backward() and ``opt``'s step: clip the gradient
        buffer ``buf`` (``grads``, or an accumulation buffer), and compute torch's return value (the total norm
        before clipping) when it is kept. Marked when ``params`` are not exactly the parameters ``opt`` steps: the
        gradients value_and_grad returns are those of ``opt.parameters`` only, and torch's norm covers ``params``."""
        params = _clip_params(stmt)
        if not self._clips_opt_params(params, opt):
            return [self.fail(stmt, "torch.nn.utils.clip_grad_norm_",
                              f"clips {code(params)}, not provably the parameters {opt} steps (the gradients "
                              f"MindSpore computes are those of {opt}.parameters): not converted")]
        target = _clip_target(stmt)
        lines = []
        if target is not None:
            lines.append(f"{target} = ops.norm(ops.stack([ops.norm(g) for g in {buf}]))\n")
        lines.append(f"{buf} = ops.clip_by_global_norm({buf}, {_clip(stmt)})\n")
        out = [_stmt(ln) for ln in lines]
        out[0] = stmt.with_changes(body=[out[0].body[0]])
        self.ok("torch.nn.utils.clip_grad_norm_ (on gradients)")
        return out

    def _clips_opt_params(self, params, opt: str) -> bool:
        src = code(params)
        if opt not in self.opt_params:
            # an optimizer built elsewhere (a function's parameter): whole modules' parameters are taken to be its
            # own, as scripts build it (CAVEAT: one over a part of the model clips with a smaller norm in MindSpore)
            return src in (f"{opt}.parameters", f"list({opt}.parameters)") or _param_receivers(params) is not None
        expr, known = self.opt_params[opt]
        if src in (f"{opt}.parameters", f"list({opt}.parameters)", expr):
            return True
        recvs = _param_receivers(params)
        return recvs is not None and bool(recvs) and recvs == known

    def _inline_zero_helpers(self, stmts):
        """``self.reset_grad()`` (stargan) / ``zero_all()``: a method or function whose body only zeroes gradients
        (``self.g_optimizer.zero_grad(); self.d_optimizer.zero_grad()``) is replaced by those calls, so the step
        rewrite sees which optimizers are zeroed (otherwise each backward would look like gradient accumulation)."""
        if not self.zero_helpers:
            return stmts
        out = []
        for st in stmts:
            c = _expr_call(st)
            fn = self.zero_helpers.get(code(c.func)) if c is not None else None
            if fn is None:
                out.append(st)
                continue
            body = (_substitute_call(fn, c) if isinstance(c.func, cst.Name)
                    else [b.with_changes(leading_lines=[]) for b in fn.body.body if _expr_call(b) is not None]
                    if not c.args else None)
            if not body:
                out.append(st)
                continue
            body[0] = body[0].with_changes(leading_lines=[*st.leading_lines, *body[0].leading_lines])
            for b in body:  # markers on them point at the call
                self.ctx.origins[b] = self.ctx.origins.get(st, st)
            out += body
        return out

    def _merge_scaler_branches(self, stmts):
        """``if scaler is not None: scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
        else: loss.backward(); opt.step()`` (torchvision's reference scripts, CrackSegFormer): the plain branch is
        the scaled one with a scaler that does nothing, so the two become one step with
        ``step_scaler = scaler if <cond> else ms.amp.StaticLossScaler(1.0)`` (scaling by 1.0 is exact). Only when
        the branches are the same statements apart from the scaler's."""
        out, head = [], []
        for k, st in enumerate(stmts):
            m = _scaler_if(st)
            if m is None:
                out.append(st)
                continue
            scaler, cond, scaled = m
            if any((_names(st.test) | {scaler}) & _assigned(t) for t in stmts[:k]):
                out.append(st)  # the condition is not known at the top of the block
                continue
            name = "step_scaler"
            self.scalers.add(name)
            # at the top of the block: the forward function (the loss, computed before the if) takes it in
            head.append(_stmt(f"{name} = {scaler} if {cond} else ms.amp.StaticLossScaler(1.0)  "
                              "# the scaled and the plain step in one\n"))
            scaled = [b.visit(_Rename(scaler, name)) for b in scaled]
            scaled[0] = scaled[0].with_changes(leading_lines=[*st.leading_lines, *scaled[0].leading_lines])
            out += scaled
            self.ok("torch.amp.GradScaler (optional: scaled or plain step)")
        return head + out

    def _grad_lines(self, step) -> list:
        """The grad_fn call of a step, then (data parallel) the averaging of its gradients over the processes:
        PyTorch's DDP all-reduces them during backward(), before clipping or the step read them."""
        lines = [step["call"]]
        if self.data_parallel:
            lines.append(_stmt(f"grads = all_reduce_gradients({step['opt']}.parameters, grads)  "
                               "# DistributedDataParallel averages the gradients\n"))
            self.ok("torch.nn.parallel.DistributedDataParallel (gradient averaging)")
        return lines

    def _place(self, new, built, steps_out, top, extra_defs=()):
        if top:
            # a step outside any loop: define forward_fn right before it
            for step in built:
                k = new.index(step["call"])
                models = self.optimizers.get(step["opt"], set())
                new[k:k] = [*self._mode(models, new[:k]), *step["defs"], *extra_defs]
                extra_defs = ()
            return new
        for n, step in enumerate(built):
            steps_out.append(_Step([*step["defs"], *(extra_defs if n == 0 else ())], step["opt"],
                                   self.optimizers.get(step["opt"], set())))
        return new

    def _scaler_step(self, stmt) -> str | None:
        """The scaler of ``scaler.step(optimizer)``, else None."""
        c = _expr_call(stmt, "step")
        if c is not None and len(c.args) == 1 and code(c.func.value) in self.scalers:
            return code(c.func.value)
        return None

    def _step_opt(self, stmt) -> str:
        if self._scaler_step(stmt) is not None:
            return code(_expr_call(stmt, "step").args[0].value)
        return code(_expr_call(stmt, "step").func.value)

    def _unwrap_autocast(self, stmts):
        """``with torch.autocast(..., dtype=float16):`` around the loss (the table's ``ms.amp.autocast_O1()``):
        the body stays, the networks it calls (models of a known optimizer) get ``amp.auto_mixed_precision(net,
        "O1")`` once before the step: MindSpore casts per network, not per region. (None, None) after a marker."""
        out, models = [], {}  # network -> the condition of its region ("True", or enabled=amp's source)
        known = set().union(*self.optimizers.values()) if self.optimizers else set()
        for st in stmts:
            if (isinstance(st, cst.With) and len(st.items) == 1 and _autocast(st.items[0].item) is not None
                    and isinstance(st.body, cst.IndentedBlock)):
                cond = _autocast(st.items[0].item)
                body_src = code(st.body)
                called = {m for m in known if f"{m}(" in body_src} or self._called_network(st.body)
                if not called:
                    return [self.fail(t, "torch.autocast", "the network called in the autocast region is not the "
                                      "model of a known optimizer: not converted") if t is st else t
                            for t in stmts], None
                if any(models.get(m, cond) != cond for m in called):
                    return [self.fail(t, "torch.autocast", "regions enabled by different conditions: not "
                                      "converted") if t is st else t for t in stmts], None
                models.update(dict.fromkeys(called, cond))
                inner = list(st.body.body)
                inner[0] = inner[0].with_changes(leading_lines=[*st.leading_lines, *inner[0].leading_lines])
                out += inner
                self.ok("torch.autocast (region -> amp.auto_mixed_precision O1)")
                continue
            out.append(st)
        return out, models

    def _called_network(self, body) -> set[str]:
        """The network an autocast region calls when no known optimizer's model is called (``model`` passed to
        ``train_one_epoch(model, optimizer, ...)``): the one plain name called there that the module does not define
        or import (a loss function of the file, ``F.x`` and builtins are not networks); else none."""
        import builtins

        module_names = set()
        for st in self.module.body:
            if isinstance(st, (cst.FunctionDef, cst.ClassDef)):
                module_names.add(st.name.value)
            elif isinstance(st, cst.SimpleStatementLine):
                for small in st.body:
                    if isinstance(small, (cst.Import, cst.ImportFrom)) and not isinstance(small.names, cst.ImportStar):
                        module_names |= {(a.asname.name.value if a.asname else code(a.name).split(".")[0])
                                         for a in small.names}
        found = set()

        class V(cst.CSTVisitor):
            def visit_Call(self, n):
                if isinstance(n.func, cst.Name) and n.func.value not in module_names and not hasattr(
                        builtins, n.func.value):
                    found.add(n.func.value)

        body.visit(V())
        return found if len(found) == 1 else set()

    def _known_zero(self, recv: str) -> bool:
        """``recv.zero_grad()`` zeroes a known optimizer's gradients (the optimizer, or a model it optimises)."""
        return any(self._zeroes(recv, o) for o in self.optimizers)

    def _zeroes(self, recv: str, opt: str) -> bool:
        """``recv.zero_grad()`` clears the gradients ``opt`` steps with (the optimizer, or a model it optimises)."""
        return recv == opt or recv in self.optimizers.get(opt, set())

    def _zeroed_before(self, stmts, i_bw, opt, bws) -> bool:
        order = list(range(i_bw - 1, -1, -1)) + list(range(len(stmts) - 1, i_bw, -1))
        for j in order:
            if j in bws:
                return False
            c = _expr_call(stmts[j], "zero_grad")
            if c is not None and self._zeroes(code(c.func.value), opt):
                return True
        return False

    def _accum_optimizer(self, stmts, i_bw):
        """The optimizer a lone backward feeds: the one stepped later in the block (inside an ``if``), else the
        only optimizer of the file."""
        found = set()
        for s in stmts[i_bw + 1:]:
            for c in _calls(s, "step"):
                r = code(c.func.value)
                if not c.args and (r in self.optimizers or "sched" not in r.lower()):
                    found.add(r)
        if len(found) == 1:
            return found.pop()
        if not found and len(self.optimizers) == 1:
            return next(iter(self.optimizers))
        return None

    def _accumulate(self, stmts, i_bw, opt, steps_out, loop_targets, top):
        step = self._build(stmts, [i_bw], opt, loop_targets, [i_bw])
        if isinstance(step, str):
            stmts[i_bw] = self.fail(stmts[i_bw], "torch.Tensor.backward", step)
            return stmts
        acc = self.accums.setdefault(opt, "accum_grads" if not self.accums else f"accum_grads_{len(self.accums) + 1}")
        step["opt"] = opt
        new = []
        for j, s in enumerate(stmts):
            if j == step["at"]:
                new += self._grad_lines(step)
            if j in step["region"]:
                continue
            if j == i_bw:
                new.append(_stmt(f"{acc} = tuple(a + g for a, g in zip({acc}, grads))  # backward() accumulates\n"))
                continue
            new.append(s)
        self.ok("torch.Tensor.backward (gradient accumulation)")
        init = _stmt(f"{acc} = tuple(ms.ops.zeros_like(p) for p in {opt}.parameters)  # gradient buffers (.grad)\n")
        return self._place(new, [step], steps_out, top, extra_defs=(init,))

    def _build(self, stmts, group, opt, loop_targets, bws, prev_step=-1):
        """forward_fn / grad_fn for the backward calls at ``group`` (one step) and the call line. forward_fn runs,
        in their order, the statements from the first one the losses depend on (after the previous step) to the
        last backward (zero_grad and backward calls left out), plus the earlier statements the losses depend on
        (recomputed: e.g. a GAN's ``fake = G(z)``); several losses are summed."""
        recvs = [_expr_call(stmts[i], "backward").func.value for i in group]
        needed = set().union(*(_names(r) for r in recvs))
        skip = set(bws) | {j for j, s in enumerate(stmts) if _expr_call(s, "zero_grad") is not None}
        # the scaler of the step (step_scaler = scaler if ... else StaticLossScaler(1.0)) is passed in, not recomputed
        skip |= {j for j, s in enumerate(stmts) if self.scalers and _assigned(s) and _assigned(s) <= self.scalers}
        dep: list[int] = []
        for j in range(group[-1] - 1, -1, -1):
            if j in skip:
                continue
            bound = _assigned(stmts[j])
            if bound & needed:
                dep.append(j)
                st = stmts[j]
                if isinstance(st, cst.SimpleStatementLine) and len(st.body) == 1 and isinstance(st.body[0], cst.Assign):
                    # an unconditional binding: earlier ones of the same names are dead
                    needed -= bound
                    needed |= _names(st.body[0].value) | (set().union(
                        *(_names(t.target) for t in st.body[0].targets)) - bound)
                else:
                    needed |= _names(st)
        dep.reverse()
        if not dep:
            return "the loss is not computed in the same block as backward()"
        # the optimizer built between the forward pass and backward() (`out = net(x); opt = SGD(net.parameters());
        # loss = out.mean()`): the forward function starts after it (grad_fn reads opt.parameters), and the
        # forward statements before it are recomputed inside, as after a previous step
        built = [j for j in range(prev_step + 1, group[0]) if opt in _assigned(stmts[j])]
        if built and any(j < built[-1] for j in dep):
            prev_step = built[-1]
        at = next((j for j in dep if j > prev_step), group[0])
        # before the previous step: recompute only what depends on this optimizer's models (a GAN's fake = G(z),
        # for G's gradients); other values are passed in as they are now (after any in-place edits since)
        models, earlier = self.optimizers.get(opt, set()), [j for j in dep if j < at]
        if models:
            live, keep = set(models), []
            for j in earlier:
                if _assigned(stmts[j]) & (set(models) | {opt}):
                    continue  # the statement that builds a model (or the optimizer) is never recomputed
                if _names(stmts[j]) & live:
                    keep.append(j)
                    live |= _assigned(stmts[j])
            earlier = keep
        region, hoisted, written = [], [], set()
        for j in range(at, group[-1]):
            if j in skip:
                continue
            if j not in dep and not (_names(stmts[j]) & written) and not _assigned(stmts[j]) & needed_later(
                    stmts, j, group[-1]):
                hoisted.append(j)  # e.g. set_requires_grad(netD, True): runs before the forward function
                continue
            region.append(j)
            written |= _assigned(stmts[j])
        in_slice = sorted({*earlier, *region})
        if hoisted:
            at = next((j for j in region if j > hoisted[-1]), group[-1])
        for j in in_slice:
            if j >= at and _exits(stmts[j]):
                return "a return / break / continue / yield between the loss and backward() is not converted"
        if len(group) > 1:
            names = [code(r) for r in recvs]
            if len(set(names)) != len(names):
                return "the same loss name is given to several backward() calls of one step: not converted"
            for i, r in zip(group, recvs):  # a loss rebound after its backward would be summed with its new value
                if any(_assigned(stmts[j]) & _names(r) for j in in_slice if j > i):
                    return f"{code(r)} is rebound after its backward(): not converted"
        bound_before = set(loop_targets)
        for j in range(0, in_slice[0]):
            bound_before |= _assigned(stmts[j])
        for j in range(in_slice[0], group[-1]):
            if j not in in_slice:
                bound_before |= _assigned(stmts[j])
        slice_stmts, local = [], set(bound_before)
        for j in in_slice:
            s = stmts[j]
            c = _expr_call(s, "copy_")
            if c is not None and isinstance(c.func.value, cst.Name) and c.func.value.value in local and len(c.args) == 1:
                # `label.copy_(v)` (the in-place pass's form of label.fill_(...)) inside the forward function:
                # PyNative refuses a tensor edited in place after the graph used it (DCGAN's label between the
                # real and fake losses); torch had run backward in between. A rebinding computes the same.
                s = s.with_changes(body=[cst.Assign(targets=[cst.AssignTarget(c.func.value)], value=c.args[0].value)])
            slice_stmts.append(s)
            local |= _assigned(s)
        rebound = _read_before_bound(slice_stmts, set(bound_before))
        if rebound:
            return (f"the forward function would rebind {', '.join(sorted(rebound))}, read before it is bound there "
                    "(a name of the enclosing scope: Python makes it local to the function): not converted")
        params, assigned_so_far = [], set()
        for s in slice_stmts:
            for n in _reads(s):
                if n in bound_before and n not in assigned_so_far and n not in params and "." not in n:
                    params.append(n)
            assigned_so_far |= _assigned(s)
        for r in recvs:  # a loss computed before the slice (passed in)
            for n in _ordered_names([r]):
                if n in bound_before and n not in assigned_so_far and n not in params and "." not in n:
                    params.append(n)
        elsewhere = set()
        for j, s in enumerate(stmts):
            if j not in in_slice and j not in group:
                elsewhere |= _names(s)
        loss_exprs = [atom(r) for r in recvs] if len(recvs) > 1 else [code(recvs[0])]
        scaled = (len(recvs) == 1 and isinstance(recvs[0], cst.Call) and isinstance(recvs[0].func, cst.Attribute)
                  and recvs[0].func.attr.value == "scale" and code(recvs[0].func.value) in self.scalers)
        if scaled:
            loss_name = "scaled_loss"  # scaler.scale(loss).backward(): differentiate the scaled loss
        elif len(recvs) == 1 and (isinstance(recvs[0], cst.Name) or _self_path(recvs[0]) is not None):
            loss_name = code(recvs[0])  # self.loss: an attribute set by the step is assigned back
        else:
            loss_name = "loss" if len(recvs) == 1 else "loss_sum"
            if loss_name in assigned_so_far or loss_name in elsewhere:
                loss_name = f"{loss_name}_value"
        # attributes the step sets (self.pred, self.loss_G) are read anywhere: always assigned back
        aux = [n for n in _ordered_names(slice_stmts)
               if n in assigned_so_far and n != loss_name and (n in elsewhere or "." in n)]
        self.counter += 1
        suffix = "" if self.counter == 1 else f"_{self.counter}"
        fwd, gfn = f"forward_fn{suffix}", f"grad_fn{suffix}"
        ret = ", ".join([" + ".join(loss_exprs), *aux])
        body_src = "".join(code(s.with_changes(leading_lines=[ln for ln in s.leading_lines if ln.comment]))
                           for s in slice_stmts)
        fn_src = f"def {fwd}({', '.join(params)}):\n" + _indent(body_src) + f"    return {ret}\n"
        defs = [emit.statement(fn_src),
                _stmt(f"{gfn} = ms.value_and_grad({fwd}, None, {opt}.parameters"
                      + (", has_aux=True)\n" if aux else ")\n"))]
        outputs = f"({loss_name}, {', '.join(aux)})" if aux else loss_name
        call_stmt = _stmt(f"{outputs}, grads = {gfn}({', '.join(params)})\n").with_changes(
            leading_lines=[ln for ln in stmts[at].leading_lines if not ln.comment])
        return {"slice": in_slice, "region": region, "defs": defs, "call": call_stmt, "at": at,
                "n_losses": len(recvs)}

    def _mode_settled(self, before) -> set[str]:
        """Models built in ``before`` whose mode the mode pass settled (a Cell whose result does not depend on it)."""
        settled = self.ctx.facts.mode_settled
        return {settled[id(s)] for s in before if id(s) in settled}

    def _mode(self, models, before):
        models = set(models) - self._mode_settled(before)
        text = "".join(code(s) for s in before)
        if any(_sets_mode(code(s)) and not _self_path_in(code(s)) for s in before):
            return []  # the script sets the mode itself (model.train() / model.eval())
        return [_stmt(f"{m}.set_train(True)  # torch modules start in training mode\n") for m in sorted(models)
                if f"{m}.set_train(" not in text]


class _Rename(cst.CSTTransformer):
    def __init__(self, old, new):
        super().__init__()
        self.old, self.new = old, new

    def leave_Name(self, original, updated):
        return updated.with_changes(value=self.new) if updated.value == self.old else updated

    def leave_Attribute(self, original, updated):  # x.attr: only the root is a variable
        return updated.with_changes(attr=original.attr)


def _scaler_if(st):
    """(scaler name, condition under which it scales, the scaled branch's statements) of an if / else whose one
    branch is a GradScaler step and the other the same step without it; else None."""
    if not (isinstance(st, cst.If) and isinstance(st.orelse, cst.Else) and isinstance(st.body, cst.IndentedBlock)
            and isinstance(st.orelse.body, cst.IndentedBlock)):
        return None
    branches = [list(st.body.body), list(st.orelse.body.body)]
    for k in (0, 1):
        scaled, plain = branches[k], branches[1 - k]
        scaler = None
        for b in scaled:
            c = _expr_call(b, "backward")
            if c is not None and isinstance(c.func.value, cst.Call) and isinstance(c.func.value.func, cst.Attribute) \
                    and c.func.value.func.attr.value == "scale" and isinstance(c.func.value.func.value, cst.Name):
                scaler = c.func.value.func.value.value
        if scaler is None:
            continue
        norm = []
        for b in scaled:
            c = _expr_call(b)
            f = c.func if c is not None else None
            if isinstance(f, cst.Attribute) and isinstance(f.value, cst.Name) and f.value.value == scaler:
                if f.attr.value == "step" and len(c.args) == 1:
                    norm.append(f"{code(c.args[0].value)}.step()")
                elif f.attr.value not in ("unscale_", "update"):
                    return None
                continue
            if (isinstance(f, cst.Attribute) and f.attr.value == "backward" and isinstance(f.value, cst.Call)
                    and code(f.value.func) == f"{scaler}.scale" and len(f.value.args) == 1 and not c.args):
                norm.append(f"{code(f.value.args[0].value)}.backward()")
                continue
            if scaler in _names(b):
                return None
            norm.append(code(b.with_changes(leading_lines=[])).strip())
        if norm != [code(b.with_changes(leading_lines=[])).strip() for b in plain]:
            return None
        cond = code(st.test)
        return scaler, (cond if k == 0 else f"not ({cond})"), scaled
    return None


def _zero_helpers(module) -> dict:
    """Functions of the module (``name``) and methods of its classes taking only self (``self.name``) whose body,
    after a docstring, is only ``X.zero_grad()`` calls."""
    def only_zero(fn) -> bool:
        if fn.decorators or not isinstance(fn.body, cst.IndentedBlock):
            return False
        body = [b for b in fn.body.body if not (isinstance(b, cst.SimpleStatementLine) and isinstance(
            b.body[0], cst.Expr) and isinstance(b.body[0].value, cst.SimpleString))]
        return bool(body) and all(_expr_call(b, "zero_grad") is not None for b in body)

    found, twice = {}, set()
    for st in module.body:
        if isinstance(st, cst.FunctionDef) and only_zero(st) and _is_clip_helper_params(st):
            found[st.name.value] = st
        elif isinstance(st, cst.ClassDef) and isinstance(st.body, cst.IndentedBlock):
            for m in st.body.body:
                if (isinstance(m, cst.FunctionDef) and only_zero(m) and len(m.params.params) == 1
                        and m.params.params[0].name.value == "self" and _is_clip_helper_params(m)):
                    key = f"self.{m.name.value}"
                    if key in found and code(found[key].body) != code(m.body):
                        twice.add(key)  # classes zeroing different optimizers under one method name: not followed
                    found[key] = m
    return {k: v for k, v in found.items() if k not in twice}


def _is_clip_helper_params(st) -> bool:
    p = st.params
    return not ((p.star_arg is not cst.MaybeSentinel.DEFAULT and p.star_arg is not None) or p.star_kwarg
                or p.kwonly_params or p.posonly_params)


def _is_clip_helper(st) -> bool:
    """A module-level function whose body (after a docstring) is expression statements, one at least a clip."""
    if not (isinstance(st, cst.FunctionDef) and not st.decorators and isinstance(st.body, cst.IndentedBlock)):
        return False
    p = st.params
    if p.star_arg is not cst.MaybeSentinel.DEFAULT and p.star_arg is not None or p.star_kwarg or p.kwonly_params \
            or p.posonly_params:
        return False
    body = list(st.body.body)
    if body and _expr_call(body[0]) is None and isinstance(body[0], cst.SimpleStatementLine) and isinstance(
            body[0].body[0], cst.Expr) and isinstance(body[0].body[0].value, cst.SimpleString):
        body = body[1:]
    return bool(body) and all(_expr_call(b) is not None for b in body) and any(_clip(b) is not None for b in body)


def _substitute_call(fn: cst.FunctionDef, call: cst.Call):
    """The body of ``fn`` (docstring left out) with ``call``'s arguments in place of its parameters, or None."""
    names = [p.name.value for p in fn.params.params]
    bound = {}
    for i, arg in enumerate(call.args):
        if arg.star:
            return None
        key = arg.keyword.value if arg.keyword is not None else (names[i] if i < len(names) else None)
        if key is None or key not in names or key in bound:
            return None
        bound[key] = arg.value
    for p in fn.params.params:
        if p.name.value not in bound:
            if p.default is None:
                return None
            bound[p.name.value] = p.default

    class Sub(cst.CSTTransformer):
        def leave_Name(self, original, updated):
            value = bound.get(updated.value)
            return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) if value is not None and not \
                isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float)) else \
                (value if value is not None else updated)

        def leave_Attribute(self, original, updated):  # x.attr: only the root is a variable
            return updated.with_changes(attr=original.attr)

        def leave_Arg(self, original, updated):  # keyword names stay
            return updated.with_changes(keyword=original.keyword)

    body = [b for b in fn.body.body if _expr_call(b) is not None]
    return [b.visit(Sub()).with_changes(leading_lines=[]) for b in body]


def _calls_of(name: str, text: str) -> int:
    """Calls of the module-level function ``name`` in ``text`` (its ``def`` line left out)."""
    return len(re.findall(rf"(?<![\w.]){name}\(", text)) - len(re.findall(rf"\bdef {name}\(", text))


def _clip_call(stmt):
    """The call of a statement ``[name =] ops.clip_by_global_norm(<params>, max_norm)`` (the table's form of torch's
    clip_grad_norm_), else None."""
    c = _expr_call(stmt)
    if c is None and isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(
            stmt.body[0], cst.Assign) and len(stmt.body[0].targets) == 1 and isinstance(
            stmt.body[0].targets[0].target, cst.Name):
        c = stmt.body[0].value
    if isinstance(c, cst.Call) and code(c.func) == "ops.clip_by_global_norm" and len(c.args) == 2:
        return c
    return None


def _clip(stmt):
    """The max_norm source of a statement ``[name =] ops.clip_by_global_norm(<params>, max_norm)``, else None."""
    c = _clip_call(stmt)
    return code(c.args[1].value) if c is not None else None


def _clip_params(stmt):
    return _clip_call(stmt).args[0].value


def _clip_target(stmt) -> str | None:
    """``norm`` of ``norm = clip_grad_norm_(...)`` (torch returns the total norm), else None."""
    small = stmt.body[0]
    return small.targets[0].target.value if isinstance(small, cst.Assign) else None


_PARAM_CALLS = ("trainable_params", "get_parameters", "parameters_and_names")
_PARAM_HELPERS = ("_msmigrate_parameters", "_msmigrate_named_parameters")  # torch's parameters() (templates/)


def _param_receivers(node) -> set[str] | None:
    """The modules whose whole parameter lists ``node`` is (``m.get_parameters()``, ``list(m.trainable_params())``,
    ``[*a.get_parameters(), *b.get_parameters()]``, ``chain(...)``), else None."""
    if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and node.func.attr.value in _PARAM_CALLS:
        return {code(node.func.value)} if not node.args else None
    if isinstance(node, cst.Call) and code(node.func) in _PARAM_HELPERS:  # _msmigrate_parameters(model)
        return {code(node.args[0].value)} if len(node.args) == 1 and node.args[0].keyword is None else None
    if isinstance(node, cst.Call) and code(node.func) in ("list", "tuple", "itertools.chain", "chain") and node.args:
        parts = [_param_receivers(a.value) for a in node.args if not a.keyword]
        return set().union(*parts) if parts and None not in parts else None
    if isinstance(node, (cst.List, cst.Tuple)) and node.elements:
        parts = [_param_receivers(e.value) if isinstance(e, cst.StarredElement) else None for e in node.elements]
        return set().union(*parts) if None not in parts else None
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add):
        a, b = _param_receivers(node.left), _param_receivers(node.right)
        return a | b if a is not None and b is not None else None
    return None


def _optimizer_param_sources(module) -> dict[str, tuple]:
    """optimizer -> what its parameters come from: the modules whose trainable_params() / parameters_and_names()
    its params expression reads (through a name assigned in the module, for parameter groups built beforehand:
    ``groups = [{"params": [p for n, p in model.named_parameters() if ...]}, ...]``), with the expression itself:
    ``(expression source, {module sources})``."""
    assigned: dict[str, list] = {}
    ctors: list[tuple[str, cst.Call]] = []

    class V(cst.CSTVisitor):
        def visit_Assign(self, n):
            t = n.targets[0].target if len(n.targets) == 1 else None
            key = t.value if isinstance(t, cst.Name) else _self_path(t)
            if key is None:
                return
            v = n.value
            if isinstance(v, cst.Call) and code(v.func).startswith("optim.") and "lr_scheduler" not in code(v.func):
                ctors.append((key, v))
            else:
                assigned.setdefault(key, []).append(v)

    module.visit(V())
    found: dict[str, set[str]] = {}
    for key, ctor in ctors:
        params = next((a.value for a in ctor.args if a.keyword is None or a.keyword.value == "params"), None)
        if params is None:
            continue
        sources = set()
        todo, seen = [params], set()
        while todo:
            node = todo.pop()
            for name in _names(node):
                if name in assigned and name not in seen:
                    seen.add(name)
                    todo += assigned[name]
            for attr in _PARAM_CALLS:
                sources |= {code(c.func.value) for c in _calls(node, attr)}
            sources |= {code(c.args[0].value) for c in _name_calls(node, _PARAM_HELPERS) if c.args}
        found[key] = (code(params), sources)
    return found


class _NestedClip(cst.CSTTransformer):
    """Clipping calls inside a compound statement between backward() and step(): clip the gradients."""

    def __init__(self, tp, opt):
        super().__init__()
        self.tp, self.opt = tp, opt

    def visit_FunctionDef(self, node):
        return False

    def leave_SimpleStatementLine(self, original, updated):
        if _clip(updated) is None:
            return updated
        return cst.FlattenSentinel(self.tp.clip_lines(updated, "grads", self.opt))


# -- trainer classes: a step spread over methods of one object -------------------------------------------------------
def _inline_trainer_methods(cls: cst.ClassDef, source: str) -> cst.ClassDef:
    """pix2pix / CycleGAN style: ``optimize_parameters()`` calls ``self.forward(); opt.zero_grad(); self.backward();
    opt.step()``. In a method that calls such methods of its own class, the calls are replaced by the methods' bodies
    (arguments bound to the parameters, ``x = self.m(...)`` taking the returned value) when the result holds a
    backward and a step, so the block rewrite sees the whole step; attributes the step sets (``self.loss``) are then
    returned as aux and assigned back. An inlined method holding a backward that nothing else calls is removed.
    CAVEATS: only statement-level calls (``self.m(...)`` or ``x = self.m(...)``) at the top of the calling method are
    followed, into methods with one final ``return`` at most; a call is left alone when a local name of the method
    (parameters included) is also used by the caller."""
    methods = {s.name.value: s for s in cls.body.body if isinstance(s, cst.FunctionDef)
               and isinstance(s.body, cst.IndentedBlock) and not s.decorators}
    inlined_count: dict[str, int] = {}
    new_body = []
    changed = False
    for stmt in cls.body.body:
        if isinstance(stmt, cst.FunctionDef) and stmt.name.value in methods:
            counts: dict[str, int] = {}
            body = _inline_body(list(stmt.body.body), methods, {stmt.name.value}, _names(stmt), counts, 0)
            if (body is not None and counts and any(_expr_call(s, "backward") for s in body)
                    and any(_expr_call(s, "step") for s in body)):
                stmt = stmt.with_changes(body=stmt.body.with_changes(body=body))
                for k, v in counts.items():
                    inlined_count[k] = inlined_count.get(k, 0) + v
                changed = True
        new_body.append(stmt)
    if not changed:
        return cls
    import re

    def dead(s) -> bool:  # an inlined method holding a backward or a clip, called nowhere else
        if not (isinstance(s, cst.FunctionDef) and s.name.value in inlined_count and (
                ".backward(" in code(s) or any(_clip(st) is not None for st in s.body.body))):
            return False
        calls = re.findall(rf"(?<![\w.])\w+\.{s.name.value}\(", source)  # method names survive conversion
        return len(calls) <= inlined_count[s.name.value]

    return cls.with_changes(body=cls.body.with_changes(body=[s for s in new_body if not dead(s)]))


def _inline_body(body, methods, stack, caller_names, counts, depth):
    out = []
    for s in body:
        call, target = None, None
        if isinstance(s, cst.SimpleStatementLine) and len(s.body) == 1:
            small = s.body[0]
            if isinstance(small, cst.Expr) and isinstance(small.value, cst.Call):
                call = small.value
            elif (isinstance(small, cst.Assign) and len(small.targets) == 1
                  and isinstance(small.value, cst.Call)):
                call, target = small.value, small.targets[0].target
        name = (call.func.attr.value if call is not None and isinstance(call.func, cst.Attribute)
                and isinstance(call.func.value, cst.Name) and call.func.value.value == "self" else None)
        if name == "construct" and "construct" not in methods:  # the table pass renames self.forward() calls
            name = "forward"
        if name in methods and name not in stack and depth < 4 and _step_part(methods[name]):
            inlined = _inline_call(methods[name], call, target, caller_names)
            if inlined is not None:
                inner = _inline_body(inlined, methods, stack | {name}, caller_names, counts, depth + 1)
                if inner is not None:
                    counts[name] = counts.get(name, 0) + 1
                    if inner:
                        inner[0] = inner[0].with_changes(leading_lines=[*s.leading_lines, *inner[0].leading_lines])
                    out += inner
                    continue
        out.append(s)
    return out


def _step_part(fn: cst.FunctionDef) -> bool:
    """A method worth following: it calls backward(), clips the gradients or sets attributes of self (forward()'s
    self.pred = ...); others (a loss helper, set_requires_grad) stay calls."""
    return ".backward(" in code(fn) or any(_clip(st) is not None for st in fn.body.body) or any(
        "." in n for st in fn.body.body for n in _assigned(st))


def _inline_call(fn: cst.FunctionDef, call: cst.Call, target, caller_names):
    """The statements replacing ``[target =] self.fn(args)``, or None when it cannot be inlined as written."""
    params = fn.params
    if params.star_arg is not cst.MaybeSentinel.DEFAULT and params.star_arg is not None or params.star_kwarg:
        return None
    if params.kwonly_params or params.posonly_params:
        return None
    names = [p.name.value for p in params.params]
    if not names or names[0] != "self":
        return None
    names = names[1:]
    defaults = {p.name.value: p.default for p in params.params[1:] if p.default is not None}
    bound: dict[str, cst.BaseExpression] = {}
    for i, arg in enumerate(call.args):
        if arg.star:
            return None
        key = arg.keyword.value if arg.keyword is not None else (names[i] if i < len(names) else None)
        if key is None or key not in names or key in bound:
            return None
        bound[key] = arg.value
    for n in names:
        if n not in bound:
            if n not in defaults:
                return None
            bound[n] = defaults[n]
    stmts = list(fn.body.body)
    ret = None
    if stmts and isinstance(stmts[-1], cst.SimpleStatementLine) and isinstance(stmts[-1].body[0], cst.Return):
        ret = stmts[-1].body[0].value
        stmts = stmts[:-1]
    if any(_exits(st) for st in stmts):
        return None
    local = set(names)
    for st in stmts:
        local |= {n for n in _assigned(st) if "." not in n}
    if local & (caller_names - {"self"}):
        return None
    out = [_stmt(f"{n} = {code(v)}\n") for n, v in bound.items()
           if not (isinstance(v, cst.Name) and v.value == n)]
    out += stmts
    if target is not None:
        if ret is None:
            return None
        out.append(_stmt(f"{code(target)} = {code(ret)}\n"))
    return out


def _read_before_bound(stmts, known: set) -> set[str]:
    """Names the statements read before binding them and bind later (in order, into compound statements' blocks),
    other than ``known`` ones (passed in): as a function's body, they would be unbound locals."""
    bound_later = set().union(*(_assigned(s) for s in stmts)) if stmts else set()
    seen, found = set(known), set()

    def reads(nodes):
        for n in _ordered_names([x for x in nodes if x is not None]):
            if n in bound_later and n not in seen and "." not in n:
                found.add(n)

    def walk(block):
        for st in block:
            if isinstance(st, cst.SimpleStatementLine):
                reads([st] if not (len(st.body) == 1 and isinstance(st.body[0], cst.Assign))
                      else [st.body[0].value])
                seen.update(_assigned(st))
            elif isinstance(st, (cst.FunctionDef, cst.ClassDef)):
                seen.update(_assigned(st))
            else:
                reads([getattr(st, "test", None), getattr(st, "iter", None)]
                      + [i.item for i in getattr(st, "items", ())])
                if isinstance(st, cst.For):
                    seen.update(_target_names(st.target))
                for part in (st.body, getattr(st, "orelse", None), *getattr(st, "handlers", ()),
                             getattr(st, "finalbody", None)):
                    inner = getattr(part, "body", None)
                    if isinstance(inner, cst.IndentedBlock):
                        inner = inner.body
                    if isinstance(part, cst.If):  # elif
                        walk([part])
                    elif inner is not None:
                        walk(list(inner))
                seen.update(_assigned(st))

    walk(list(stmts))
    return found


def _reads(stmt) -> list[str]:
    """The names ``stmt`` reads, in order (a plain assignment's targets are not read)."""
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 and isinstance(stmt.body[0], cst.Assign):
        a = stmt.body[0]
        bound = _assigned(stmt)
        return [n for n in _ordered_names([*(t.target for t in a.targets), a.value])
                if n not in bound or n in _names(a.value)]
    return _ordered_names([stmt])


def _scaler_names(module):
    found = []

    class V(cst.CSTVisitor):
        def visit_Assign(self, n):
            v = n.value.body if isinstance(n.value, cst.IfExp) else n.value  # GradScaler(enabled=amp)
            if (len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name) and isinstance(v, cst.Call)
                    and code(v.func) == "ms.amp.DynamicLossScaler"):
                found.append(n.targets[0].target)

    module.visit(V())
    return found


def _self_path_in(src: str) -> bool:
    """A set_train line this pass wrote (``m.set_train(True)  # torch modules start...``)."""
    return "# torch modules start in training mode" in src


def needed_later(stmts, j, end) -> set[str]:
    """Names read by the statements after ``j`` up to ``end`` (a hoisted statement must not bind one)."""
    out: set[str] = set()
    for s in stmts[j + 1:end + 1]:
        out |= _names(s)
    return out


def atom(node) -> str:
    src = code(node)
    return src if isinstance(node, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) else f"({src})"


def _exits(stmt) -> bool:
    """``stmt`` contains a return / yield, or a break / continue outside its own loops."""
    found = []

    class V(cst.CSTVisitor):
        def __init__(self):
            super().__init__()
            self.loops = 0

        def visit_FunctionDef(self, n):
            return False

        def visit_ClassDef(self, n):
            return False

        def visit_Lambda(self, n):
            return False

        def visit_For(self, n):
            self.loops += 1

        def leave_For(self, n):
            self.loops -= 1

        def visit_While(self, n):
            self.loops += 1

        def leave_While(self, n):
            self.loops -= 1

        def visit_Return(self, n):
            found.append(n)

        def visit_Yield(self, n):
            found.append(n)

        def visit_Break(self, n):
            if not self.loops:
                found.append(n)

        def visit_Continue(self, n):
            if not self.loops:
                found.append(n)

    stmt.visit(V())
    return bool(found)


def _calls(node, attr):
    found = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n):
            if isinstance(n.func, cst.Attribute) and n.func.attr.value == attr:
                found.append(n)

    node.visit(V())
    return found


def _name_calls(node, names):
    found = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n):
            if isinstance(n.func, cst.Name) and n.func.value in names:
                found.append(n)

    node.visit(V())
    return found


def _indent(src: str) -> str:
    return "".join(("    " + ln if ln.strip() else ln) for ln in src.splitlines(keepends=True))


class _Accumulators(cst.CSTTransformer):
    """In a scope with gradient buffers: ``opt.step()`` -> ``opt(buffer)``, ``opt.zero_grad()`` (or the model's)
    -> a fresh zero buffer, and a clip before the step in the same block -> a clip of the buffer."""

    def __init__(self, tp: TrainingPass):
        super().__init__()
        self.tp = tp

    def visit_FunctionDef(self, node):
        return False

    def visit_ClassDef(self, node):
        return False

    def _flatten(self, body):
        out = []
        for k, s in enumerate(body):
            c = _expr_call(s)
            recv = code(c.func.value) if c is not None and isinstance(c.func, cst.Attribute) else None
            if recv in self.tp.accums and c.func.attr.value == "step" and not c.args:
                out.append(s.with_changes(body=[_stmt(f"{recv}({self.tp.accums[recv]})\n").body[0]]))
                continue
            if c is not None and isinstance(c.func, cst.Attribute) and c.func.attr.value == "zero_grad":
                opts = [o for o in self.tp.accums if self.tp._zeroes(recv, o)]
                if opts:
                    for i, o in enumerate(opts):
                        reset = _stmt(f"{self.tp.accums[o]} = tuple(ms.ops.zeros_like(p) for p in {o}.parameters)\n")
                        out.append(reset.with_changes(leading_lines=s.leading_lines) if i == 0 else reset)
                    self.tp.ok("torch.optim.Optimizer.zero_grad (gradient buffer)")
                    continue
            clip = _clip(s)
            if clip is not None:
                later = next((r for t in body[k + 1:] if (r := _step_recv(t)) in self.tp.accums), None)
                if later is not None:
                    out += self.tp.clip_lines(s, self.tp.accums[later], later)
                    continue
            out.append(s)
        return out

    def leave_IndentedBlock(self, original, updated):
        return updated.with_changes(body=self._flatten(updated.body))

    def leave_Module(self, original, updated):
        return updated.with_changes(body=self._flatten(updated.body))


class _DropZeroGrad(cst.CSTTransformer):
    """Remove ``X.zero_grad()`` statements of the given receivers (not in nested functions or classes)."""

    def __init__(self, recvs):
        super().__init__()
        self.recvs = recvs

    def visit_FunctionDef(self, node):
        return False

    def visit_ClassDef(self, node):
        return False

    def _flatten(self, body):
        out = [s for s in body if not ((c := _expr_call(s, "zero_grad")) is not None and code(c.func.value)
                                       in self.recvs)]
        return out or [cst.SimpleStatementLine([cst.Pass()])]

    def leave_IndentedBlock(self, original, updated):
        return updated.with_changes(body=self._flatten(updated.body))

    def leave_Module(self, original, updated):
        return updated.with_changes(body=self._flatten(updated.body))


def _step_recv(stmt):
    c = _expr_call(stmt, "step")
    return code(c.func.value) if c is not None and not c.args else None


class _NoGrad(Transformer):
    """Unwrap ``with ms._no_grad():`` and drop ``@ms._no_grad()``; add the dataset seed next to ms.set_seed;
    mark clipping calls the step rewrite did not consume; read ``opt.param_groups[i]['lr']`` as a float (MindSpore
    keeps the lr in a Parameter that later steps update in place: a logged value would change with it)."""

    def __init__(self, tp: TrainingPass):
        super().__init__()
        self.tp = tp
        self.targets: set[int] = set()
        # a model file (no optimizer, no launcher) walks only what the table pass rewrote, and param_groups reads
        self._skip = not (tp.optimizers or tp.torchrun)

    def on_visit(self, node: cst.CSTNode) -> bool:
        if (self._skip and type(node) in STATEMENT_TYPES
                and self.tp.ctx.relevance.skip(node, relevance.PARAM_GROUPS)):
            return False  # untouched by the table pass: no torch name, no param_groups (core/relevance.py)
        return super().on_visit(node)

    def visit_AssignTarget(self, node):
        self.targets.add(id(node.target))

    def visit_AugAssign(self, node):
        self.targets.add(id(node.target))

    def leave_Call(self, original, updated):
        """``optimizer.state_dict()`` / ``optimizer.load_state_dict(sd)`` of a known optimizer: its Parameters
        (moments, step count), loaded by copying in place (the table converts them on modules only)."""
        f = updated.func
        if (code(f) in ("os.environ.get", "os.getenv") and 1 <= len(updated.args) <= 2
                and all(a.keyword is None and not a.star for a in updated.args) and self._env_name(updated.args[0].value)):
            self.tp.ok("torchrun environment variable (-> msrun's)")
            args = [code(a.value) for a in updated.args]
            return emit.expression(f"launcher_env({', '.join(args if len(args) == 2 else [*args, 'None'])})")
        if isinstance(f, cst.Attribute) and f.attr.value == "to" and any(
                a.keyword is not None and a.keyword.value == "memory_format" for a in updated.args):
            # model.to(memory_format=torch.channels_last): a layout hint; MindSpore has no memory formats
            rest = [a for a in updated.args if not (a.keyword is not None and a.keyword.value == "memory_format")]
            self.tp.ok("torch.nn.Module.to (memory_format dropped)")
            if not rest:
                return f.value.with_changes(lpar=updated.lpar, rpar=updated.rpar) if updated.lpar else f.value
            return updated.with_changes(args=[*rest[:-1], rest[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)])
        if not (isinstance(f, cst.Attribute) and code(f.value) in self.tp.optimizers):
            return updated
        if f.attr.value == "state_dict" and not updated.args:
            self.tp.ok("torch.optim.Optimizer.state_dict")
            return updated.with_changes(func=f.with_changes(attr=cst.Name("parameters_dict")))
        if f.attr.value == "load_state_dict" and len(updated.args) == 1 and updated.args[0].keyword is None:
            self.tp.ok("torch.optim.Optimizer.load_state_dict")
            return emit.expression(f"load_params({code(f.value)}, {code(updated.args[0].value)})")
        return updated

    def clips_parameters(self, stmt) -> bool:
        """A simple statement still holding the table's form of torch's clip_grad_norm_ (on parameters, not on a
        gradient buffer the step rewrite made): anywhere in it, assigned, returned or passed on."""
        if not isinstance(stmt, cst.SimpleStatementLine) or "clip_grad_norm" not in self.tp.ctx.source:
            return False
        if any(ln.comment is not None and "unsupported torch.nn.utils.clip_grad_norm_" in ln.comment.value
               for ln in stmt.leading_lines):
            return False  # marked by the step rewrite already
        found = []

        class V(cst.CSTVisitor):
            def visit_Call(self, n):
                if code(n.func) == "ops.clip_by_global_norm" and n.args and not (
                        isinstance(n.args[0].value, cst.Name)
                        and re.fullmatch(r"(accum_)?grads(_\d+)?", n.args[0].value.value)):
                    found.append(n)

        stmt.visit(V())
        return bool(found)

    def _env_name(self, node) -> bool:
        return self.tp.torchrun and isinstance(node, cst.SimpleString) and node.evaluated_value in TORCHRUN_ENV

    def leave_Comparison(self, original, updated):
        """``"LOCAL_RANK" in os.environ`` (launched by torchrun?) -> ``"MS_WORKER_NUM" in os.environ``: msrun sets it
        in its workers and in the scheduler process it also runs the script as (which has no rank variables)."""
        if (len(updated.comparisons) == 1 and isinstance(updated.comparisons[0].operator, (cst.In, cst.NotIn))
                and code(updated.comparisons[0].comparator) == "os.environ" and self._env_name(updated.left)):
            self.tp.ok("torchrun environment variable (-> msrun's)")
            left = updated.left
            return updated.with_changes(left=left.with_changes(value=left.prefix + left.quote + "MS_WORKER_NUM"
                                                               + left.quote))
        return updated

    def leave_Subscript(self, original, updated):
        if (code(updated.value) == "os.environ" and len(updated.slice) == 1
                and isinstance(updated.slice[0].slice, cst.Index) and self._env_name(updated.slice[0].slice.value)
                and id(original) not in self.targets):
            self.tp.ok("torchrun environment variable (-> msrun's)")
            return emit.expression(f"launcher_env({code(updated.slice[0].slice.value)})").with_changes(
                lpar=updated.lpar, rpar=updated.rpar)
        inner = updated.value
        if (id(original) not in self.targets and isinstance(inner, cst.Subscript)
                and isinstance(inner.value, cst.Attribute) and inner.value.attr.value == "param_groups"
                and len(updated.slice) == 1 and isinstance(updated.slice[0].slice, cst.Index)
                and code(updated.slice[0].slice.value) in ("'lr'", '"lr"')):
            self.tp.ok("torch.optim.Optimizer.param_groups lr (read as float)")
            return cst.Call(func=cst.Name("float"), args=[cst.Arg(updated.with_changes(lpar=[], rpar=[]))],
                            lpar=updated.lpar, rpar=updated.rpar)
        return updated

    def leave_FunctionDef(self, original, updated):
        decorators = [d for d in updated.decorators if code(d.decorator) != NO_GRAD]
        if len(decorators) != len(updated.decorators):
            self.tp.ok("torch.no_grad (decorator dropped)")
            return updated.with_changes(decorators=decorators)
        return updated

    def _flatten(self, body, before=()):
        out = []
        before = list(before) if len(before) == len(body) else [None] * len(body)
        for s, orig in zip(body, before):
            if (isinstance(s, cst.With) and len(s.items) == 1 and code(s.items[0].item) == NO_GRAD
                    and isinstance(s.body, cst.IndentedBlock)):
                inner = list(s.body.body)
                comments = [ln for ln in s.leading_lines]
                if inner:
                    inner[0] = inner[0].with_changes(leading_lines=[*comments, *inner[0].leading_lines])
                out += inner
                self.tp.ok("torch.no_grad (context dropped)")
            elif isinstance(s, cst.With) and any(_autocast(i.item) is not None for i in s.items):
                out.append(self.tp.fail(s, "torch.autocast", "only converted around the loss of a training step "
                                        "(MindSpore casts whole networks: amp.auto_mixed_precision(net, 'O1'))"))
            elif self.clips_parameters(s):
                if orig is not None and orig in self.tp.ctx.origins:
                    self.tp.ctx.origins[s] = self.tp.ctx.origins[orig]
                out.append(self.tp.fail(s, "torch.nn.utils.clip_grad_norm_",
                                        "only converted between backward() and optimizer.step() of a recognised "
                                        "step (MindSpore has no .grad: outside one, ops.clip_by_global_norm would "
                                        "clip the parameters, not their gradients)"))
            elif self.tp.has_shuffle_dataset and (c := _expr_call(s)) is not None and code(c.func) == "ms.set_seed":
                out.append(s)
                out.append(_stmt(f"ds.config.set_seed({code(c.args[0].value)})  # the dataset shuffles\n"))
            else:
                out.append(s)
        return out

    def leave_IndentedBlock(self, original, updated):
        return updated.with_changes(body=self._flatten(updated.body, original.body))

    def leave_Module(self, original, updated):
        return updated.with_changes(body=self._flatten(updated.body, original.body))


def run(module: cst.Module, ctx) -> cst.Module:
    """Rewrite the training steps of ``module`` and write the helper definitions its conversion uses (imports are
    applied after every pass, by the import plan)."""
    new = TrainingPass(module, ctx).run()
    return _add_helpers(new, ctx)


def _is_import(stmt) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(isinstance(s, (cst.Import, cst.ImportFrom))
                                                             for s in stmt.body)


def _add_helpers(module: cst.Module, ctx) -> cst.Module:
    """The definitions (``rules_training.HELPERS``) of the helpers this file's conversion calls, each once, none
    whose name the file binds itself: after the top-level imports, where the import plan puts MindSpore's (its
    anchor), so the helpers come after the imports they use."""
    import re

    from ..core.imports import after_preamble

    candidates = [(name, src) for name, (apis, src) in _helpers().items()
                  if any(ctx.apis.get(api) for api in ((apis,) if isinstance(apis, str) else apis))]
    if not candidates:  # the usual case: no code generated to find out
        return module
    text = module.code
    defined = {s.name.value for s in module.body if isinstance(s, (cst.ClassDef, cst.FunctionDef))}
    helpers = _helpers()
    chosen = [name for name, _ in candidates if name not in defined and re.search(rf"(?<![\w.]){name}\(", text)
              and not re.search(rf"^\s*(from .* )?import .*\b{name}\b", text, re.M)]
    while True:  # the helpers the chosen ones call (random_split makes Subsets from a SeededGenerator's permutation)
        used = "".join(helpers[n][1] for n in chosen)
        more = [name for name in helpers if name not in chosen and name not in defined
                and re.search(rf"(?<![\w.]){name}[(.]", used)]
        if not more:
            break
        chosen += more
    wanted = [helpers[name][1] for name in helpers if name in chosen]
    if not wanted:
        return module
    body = list(module.body)
    anchor = ctx.imports.anchor
    at = anchor if anchor is not None else after_preamble(body)
    at = min(at, len(body))
    while at < len(body) and _is_import(body[at]):
        at += 1
    blank = [cst.EmptyLine(), cst.EmptyLine()]
    newline = module.default_newline  # also inside the helpers' docstrings (CRLF files stay CRLF)
    defs = [_stmt(src.lstrip("\n").replace("\n", newline)).with_changes(leading_lines=blank) for src in wanted]
    if at < len(body):
        body[at] = body[at].with_changes(leading_lines=[*blank, *[ln for ln in body[at].leading_lines
                                                                  if ln.comment]])
    body[at:at] = defs
    return module.with_changes(body=body)


_MODE_CALL = re.compile(r"(?<!\))\.set_train\(")


def _sets_mode(text: str) -> bool:
    """The code sets a model's mode (``model.set_train(...)``); a layer built in training mode by the table
    (``nn.BatchNorm2d(8).set_train(True)``, torch's default at construction) does not count."""
    return bool(_MODE_CALL.search(text))
