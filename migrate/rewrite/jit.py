"""The jit pass (``msmigrate convert --jit``): compile the converted training step with ``ms.jit``.

Runs on the final MindSpore text of a file (after the training pass and the imports). Where the training pass
produced

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters[, has_aux=True])
    ...
        loss, grads = grad_fn(x, y)
        [grads = ops.clip_by_global_norm(grads, c)]
        optimizer(grads)

it emits, once, right after ``grad_fn``

    @ms.jit
    def train_step(x, y):
        loss, grads = grad_fn(x, y)
        [grads = ops.clip_by_global_norm(grads, c)]
        optimizer(grads)
        return loss                      # (loss, aux...) with has_aux

and replaces the step lines with ``loss = train_step(x, y)``. Measured on MindSpore 2.10 CPU: ms.jit over a
function that calls the value_and_grad closure and a ``mindspore.experimental.optim`` optimizer compiles, updates
the parameters (BatchNorm moving statistics included), follows ``lr_scheduler`` steps taken outside it, and gives
bit-identical losses and weights to the eager step (SGD with momentum/nesterov/weight decay, Adam, clipping, aux).

A step stays eager, with the reason recorded, when
- ``migrate.lint`` finds MS001 (list accumulation), MS002 (tensor-dependent control flow), MS003 (print / debug
  branches), MS007 (construct without self), MS008 (data-dependent shapes) or MS009 (reversed() over a
  list the pass could not rewrite to [::-1]) in ``forward_fn``, in a function of
  the file that ``forward_fn`` calls, or in a ``construct`` of the file (and of local modules the file imports,
  when the caller passes them);
- ``forward_fn`` or the clipping bound reads a Python name (or sets an attribute of one) that the code after
  ``grad_fn`` reassigns: ms.jit freezes closed-over and global values at the first compilation (measured: a
  closure float changed in the loop kept its first value under jit);
- the step is not the canonical shape: gradient accumulation buffers, several grad functions (several optimizers)
  in one scope, grad_fn called more than once, statements between the gradients and ``optimizer(grads)``,
  ``grads`` read elsewhere.
"""
from __future__ import annotations

from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from .calls import code

REVERSED = "MS009"  # lint: reversed() over a Python list in compiled code
JIT_RULES = ("MS001", "MS002", "MS003", "MS007", "MS008", REVERSED)


@dataclass
class JitStep:
    """One training step and what ``--jit`` did with it (``line``: of the step in the converted file)."""

    file: str
    line: int
    wrapped: bool
    reason: str


# -- helpers ------------------------------------------------------------------------------------------
def _single(stmt):
    if isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1:
        return stmt.body[0]
    return None


def _grad_def(stmt):
    """(grad_fn, forward_fn, optimizer, has_aux) of ``G = ms.value_and_grad(F, None, O.parameters[, has_aux=True])``."""
    s = _single(stmt)
    if not (isinstance(s, cst.Assign) and len(s.targets) == 1 and isinstance(s.targets[0].target, cst.Name)
            and isinstance(s.value, cst.Call) and code(s.value.func) == "ms.value_and_grad"):
        return None
    args = s.value.args
    pos = [a for a in args if a.keyword is None]
    if len(pos) != 3 or not isinstance(pos[0].value, cst.Name) or code(pos[1].value) != "None":
        return None
    weights = pos[2].value
    if not (isinstance(weights, cst.Attribute) and weights.attr.value == "parameters"):
        return None
    aux = any(a.keyword is not None and a.keyword.value == "has_aux" and code(a.value) == "True" for a in args)
    return s.targets[0].target.value, pos[0].value.value, code(weights.value), aux


def _grad_call(stmt, gname):
    """(outputs target, args) of ``OUT, grads = G(args)``."""
    s = _single(stmt)
    if not (isinstance(s, cst.Assign) and len(s.targets) == 1 and isinstance(s.value, cst.Call)
            and isinstance(s.value.func, cst.Name) and s.value.func.value == gname):
        return None
    t = s.targets[0].target
    if not (isinstance(t, cst.Tuple) and len(t.elements) == 2 and isinstance(t.elements[1].value, cst.Name)
            and t.elements[1].value.value == "grads"):
        return None
    return t.elements[0].value, s.value.args


def _clip_expr(stmt):
    s = _single(stmt)
    if (isinstance(s, cst.Assign) and len(s.targets) == 1 and code(s.targets[0].target) == "grads"
            and isinstance(s.value, cst.Call) and code(s.value.func) == "ops.clip_by_global_norm"
            and len(s.value.args) == 2 and code(s.value.args[0].value) == "grads"):
        return s.value.args[1].value
    return None


def _is_opt_call(stmt, opt):
    s = _single(stmt)
    return (isinstance(s, cst.Expr) and isinstance(s.value, cst.Call) and code(s.value.func) == opt
            and len(s.value.args) == 1 and code(s.value.args[0].value) == "grads")


def _names_read(node) -> set[str]:
    found: set[str] = set()

    class V(cst.CSTVisitor):
        def visit_Name(self, n):
            found.add(n.value)

        def visit_Attribute(self, n):
            n.value.visit(self)
            return False

        def visit_Arg(self, n):  # keyword names are not reads
            n.value.visit(self)
            return False

    node.visit(V())
    return found


def _assigned(node, attrs=False) -> set[str]:
    """Names bound by ``node`` (attrs: also roots of attribute targets ``x.a = ...``), not inside nested defs."""
    out: set[str] = set()

    def target(t):
        if isinstance(t, cst.Name):
            out.add(t.value)
        elif isinstance(t, (cst.Tuple, cst.List)):
            for e in t.elements:
                target(e.value)
        elif isinstance(t, cst.StarredElement):
            target(t.value)
        elif attrs and isinstance(t, (cst.Attribute, cst.Subscript)):
            root = t.value
            while isinstance(root, (cst.Attribute, cst.Subscript)):
                root = root.value
            if isinstance(root, cst.Name):
                out.add(root.value)

    class V(cst.CSTVisitor):
        def visit_AssignTarget(self, n):
            target(n.target)

        def visit_AugAssign(self, n):
            target(n.target)

        def visit_AnnAssign(self, n):
            target(n.target)

        def visit_For(self, n):
            target(n.target)

        def visit_WithItem(self, n):
            if n.asname:
                target(n.asname.name)

        def visit_NamedExpr(self, n):
            target(n.target)

        def visit_FunctionDef(self, n):
            out.add(n.name.value)
            return False

        def visit_ClassDef(self, n):
            out.add(n.name.value)
            return False

    node.visit(V())
    return out


def _free_names(func: cst.FunctionDef) -> set[str]:
    p = func.params
    params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
    for star in (p.star_arg, p.star_kwarg):
        if isinstance(star, cst.Param):
            params.add(star.name.value)
    return _names_read(func.body) - params - _assigned(func.body)


def _blocks(owner):
    """(key, statements) of every statement block under ``owner`` (a Module or a compound statement), without
    entering a def or class; ``owner``'s own block first. The key is the id of the block node (stable: the pass
    reads and rewrites the same tree)."""
    if isinstance(owner, cst.Module):
        yield id(owner), list(owner.body)
        stmts = list(owner.body)
    elif isinstance(owner, cst.IndentedBlock):
        yield id(owner), list(owner.body)
        stmts = list(owner.body)
    else:
        return
    for s in stmts:
        if isinstance(s, (cst.FunctionDef, cst.ClassDef)) or not isinstance(s, cst.BaseCompoundStatement):
            continue
        for part in _suites(s):
            yield from _blocks(part)


def _suites(s):
    """The IndentedBlocks directly under compound statement ``s`` (else / elif / except / finally included)."""
    out = []
    body = getattr(s, "body", None)
    if isinstance(body, cst.IndentedBlock):
        out.append(body)
    for field in ("orelse", "finalbody"):
        part = getattr(s, field, None)
        if isinstance(part, cst.If):
            out += _suites(part)
        elif part is not None and isinstance(getattr(part, "body", None), cst.IndentedBlock):
            out.append(part.body)
    for h in getattr(s, "handlers", ()) or ():
        if isinstance(h.body, cst.IndentedBlock):
            out.append(h.body)
    return out


def _indent(src: str) -> str:
    return "".join(("    " + ln if ln.strip() else ln) for ln in src.splitlines(keepends=True))


class _Candidate:
    def __init__(self, scope_key, scope, index, gname, fname, opt, aux):
        self.scope_key, self.scope, self.index = scope_key, scope, index
        self.gname, self.fname, self.opt, self.aux = gname, fname, opt, aux
        self.reason = ""
        self.call = None        # (block key, block, index of the grad call, index of optimizer(grads), clip expr)
        self.train_step = ""


def _all_funcs(module) -> dict[str, list[cst.FunctionDef]]:
    """Every function (and method) of the module by name."""
    funcs: dict[str, list] = {}

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, n):
            funcs.setdefault(n.name.value, []).append(n)

    module.visit(V())
    return funcs


def _scopes(module):
    """(key, statements) of the module body and of every function body."""
    yield id(module), list(module.body)
    found = []

    class V(cst.CSTVisitor):
        def visit_FunctionDef(self, n):
            if isinstance(n.body, cst.IndentedBlock):
                found.append((id(n.body), list(n.body.body)))

    module.visit(V())
    yield from found


# -- preparing compiled code ------------------------------------------------------------------------------
def prepare(source: str) -> tuple[str, int]:
    """The jit-only rewrite of ``construct`` methods: ``for ... in reversed(xs)`` (also inside ``zip`` /
    ``enumerate``) -> ``xs[::-1]`` when ``xs`` is a local list (only ever bound to a list display, a list
    comprehension or ``list(...)``) that the loop body does not touch - the same iteration, and a form ms.jit
    compiles (``reversed`` of a list does not, on MindSpore 2.10). Returns the text and the number of rewrites."""
    if "reversed(" not in source or "def construct" not in source:
        return source, 0
    module = cst.parse_module(source)
    t = _Reversed()
    new = module.visit(t)
    return (new.code, t.count) if t.count else (source, 0)


class _Reversed(cst.CSTTransformer):
    def __init__(self):
        super().__init__()
        self.count, self.lists = 0, [set()]
        self.loop_ok: list[set] = []

    def visit_FunctionDef(self, node):
        lists = set()
        if node.name.value == "construct":
            kinds: dict[str, bool] = {}

            class V(cst.CSTVisitor):
                def visit_Assign(self, n):
                    for t in n.targets:
                        if isinstance(t.target, cst.Name):
                            v = n.value
                            ok = isinstance(v, (cst.List, cst.ListComp)) or (
                                isinstance(v, cst.Call) and code(v.func) == "list")
                            kinds[t.target.value] = kinds.get(t.target.value, True) and ok
                        else:
                            for name in _assigned(t):
                                kinds[name] = False

                def visit_AugAssign(self, n):
                    for name in _assigned(n):
                        kinds[name] = False

                def visit_For(self, n):
                    for name in _assigned(cst.Assign(targets=[cst.AssignTarget(n.target)], value=cst.Name("_"))):
                        kinds[name] = False

            node.body.visit(V())
            p = node.params
            params = {x.name.value for x in (*p.posonly_params, *p.params, *p.kwonly_params)}
            lists = {n for n, ok in kinds.items() if ok and n not in params}
        self.lists.append(lists)
        return True

    def leave_FunctionDef(self, original, updated):
        self.lists.pop()
        return updated

    def visit_For(self, node):
        body_names = _names_read(node.body) | _assigned(node.body, attrs=True)
        self.loop_ok.append({n for n in self.lists[-1] if n not in body_names})
        return True

    def leave_For(self, original, updated):
        ok = self.loop_ok.pop()
        if not ok:
            return updated
        count = [0]

        class R(cst.CSTTransformer):
            def leave_Call(self, o, u):
                if (code(u.func) == "reversed" and len(u.args) == 1 and isinstance(u.args[0].value, cst.Name)
                        and u.args[0].value.value in ok and u.args[0].keyword is None and not u.args[0].star):
                    count[0] += 1
                    return cst.parse_expression(f"{u.args[0].value.value}[::-1]")
                return u

        new_iter = updated.iter.visit(R())
        self.count += count[0]
        return updated.with_changes(iter=new_iter) if count[0] else updated


# -- the pass -------------------------------------------------------------------------------------------
def run(source: str, filename: str = "<string>", imported: dict[str, str] | None = None) -> tuple[str, list[JitStep]]:
    """Wrap the canonical training steps of converted ``source`` in ``ms.jit``; returns the new text and one
    :class:`JitStep` per step. ``imported`` maps display names of local modules the file imports to their
    converted text: their ``construct`` methods are linted too."""
    if "ms.value_and_grad(" not in source:
        return source, []
    module = cst.parse_module(source)
    funcs = _all_funcs(module)
    cands: list[_Candidate] = []
    for key, stmts in _scopes(module):
        for i, s in enumerate(stmts):
            g = _grad_def(s)
            if g is not None:
                cands.append(_Candidate(key, stmts, i, *g))
    if not cands:
        return source, []
    used = set(_names_read(module)) | set(funcs) | _assigned(module)
    per_scope: dict[int, int] = {}
    for c in cands:
        per_scope[c.scope_key] = per_scope.get(c.scope_key, 0) + 1
    findings = _lint(source, cands, funcs, imported or {})
    for c in cands:
        c.reason = _check(c, per_scope[c.scope_key], funcs, findings.get(c.fname, []))
        if not c.reason:
            name, k = "train_step", 1
            while name in used:
                k += 1
                name = f"train_step_{k}"
            used.add(name)
            c.train_step = name
    new_code = module.visit(_Wrap(cands)).code
    steps = []
    if any(not c.call and c.reason.startswith("lint ") for c in cands):  # report lines of the final text
        new_module = cst.parse_module(new_code)
        findings = _lint(new_code, cands, _all_funcs(new_module), imported or {})
        for c in cands:
            if not c.call and c.reason.startswith("lint "):
                c.reason = _lint_reason(findings.get(c.fname, []))
    lines = _call_lines(new_code)
    for c in cands:
        if c.reason.startswith("already compiled"):
            steps.append(JitStep(filename, lines.get(c.gname, 0), True, c.reason))
        elif c.call is not None:
            steps.append(JitStep(filename, lines.get(c.train_step, 0), True, (f"lint clean ({', '.join(JIT_RULES)}) in {c.fname}, the "
                                                                          f"functions it calls and the constructs: compiled as {c.train_step}")))
        else:
            steps.append(JitStep(filename, lines.get(c.gname, 0), False, c.reason.replace("@:", f"{filename}:")))
    return new_code, sorted(steps, key=lambda s: s.line)


def _lint_reason(found) -> str:
    f = found[0]
    more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
    where = f"line {f.line}" if f.path == "@" else f"{f.path}:{f.line}"
    hint = ""
    if f.rule == REVERSED and f.path != "@":
        hint = " (converting that module in the same run with --jit rewrites it to xs[::-1])"
    return f"lint {f.rule} at {where}: {f.message}{hint}{more}: left eager"


def _check(c: _Candidate, n_in_scope: int, funcs, lint_findings) -> str:
    if n_in_scope > 1:
        return f"{n_in_scope} grad functions (several optimizers) in one scope: left eager"
    owner = cst.IndentedBlock(body=c.scope[c.index + 1:])
    calls = []
    for key, block in _blocks(owner):
        for i, s in enumerate(block):
            if _grad_call(s, c.gname) is not None:
                calls.append((key, block, i))
    if not calls:
        for f in funcs.values():
            for fn in f:
                if any(code(d.decorator) in ("ms.jit", "jit", "ms.jit()") for d in fn.decorators) and \
                        any(_grad_call(s, c.gname) for s in fn.body.body):
                    return f"already compiled: {c.gname} is called in @ms.jit {fn.name.value}"
    if len(calls) != 1:
        return f"{c.gname} is called {len(calls)} times (not once): left eager"
    key, block, i = calls[0]
    if key == id(owner):
        key = c.scope_key  # the step is directly in the scope's body
    j, clip = i + 1, None
    if j < len(block) and (clip := _clip_expr(block[j])) is not None:
        j += 1
    if not (j < len(block) and _is_opt_call(block[j], c.opt)):
        if any("accum_grads" in code(s) for s in block[i + 1:]):
            return "gradient accumulation buffer (backward() accumulates into accum_grads): left eager"
        return f"the gradients are not passed straight to {c.opt}(grads) after {c.gname}(...): left eager"
    step_lines = {id(s) for s in block[i:j + 1]}
    for _, b in _blocks(owner):
        for s in b:
            if id(s) not in step_lines and not isinstance(s, cst.BaseCompoundStatement) \
                    and "grads" in _names_read(s):
                return "the gradients (grads) are read outside the step: left eager"
    outs, args = _grad_call(block[i], c.gname)
    if any(a.star or a.keyword is not None for a in args):
        return f"{c.gname} is called with * / keyword arguments: left eager"
    if lint_findings:
        return _lint_reason(lint_findings)
    # closed-over Python values that change after compilation would be frozen by ms.jit
    fwd = _nearest_def(c.scope, c.index, c.fname, funcs)
    free = _free_names(fwd) if fwd is not None else set()
    for helper in _helpers(fwd, funcs):
        free |= _free_names(helper)
    if clip is not None:
        free |= _names_read(clip)
    later = set()
    for s in c.scope[c.index + 1:]:
        later |= _assigned(s, attrs=True)
    frozen = sorted(free & later - {c.gname, c.fname})
    if frozen:
        return (f"{c.fname} reads {', '.join(frozen)}, reassigned after {c.gname} is defined: ms.jit would "
                "freeze the first value: left eager")
    c.call = (key, block, i, j, clip)
    return ""


def _nearest_def(scope, index, fname, funcs):
    for s in reversed(scope[:index]):
        if isinstance(s, cst.FunctionDef) and s.name.value == fname:
            return s
    found = funcs.get(fname, [])
    return found[0] if len(found) == 1 else None


def _helpers(fwd, funcs) -> list[cst.FunctionDef]:
    """Functions of the file that ``fwd`` calls by name, transitively (traced into the graph by ms.jit)."""
    out, todo, seen = [], [fwd] if fwd is not None else [], set()
    while todo:
        f = todo.pop()
        calls = set()

        class V(cst.CSTVisitor):
            def visit_Call(self, n):
                if isinstance(n.func, cst.Name):
                    calls.add(n.func.value)

        f.body.visit(V())
        for name in sorted(calls):
            if name in funcs and name not in seen and len(funcs[name]) == 1:
                seen.add(name)
                out.append(funcs[name][0])
                todo.append(funcs[name][0])
    return out


def _lint(source: str, cands, funcs, imported: dict[str, str]) -> dict[str, list]:
    """forward_fn name -> the blocking lint findings of its compiled code (itself, the functions it calls, the
    constructs of this file and of ``imported``). Findings in this file have path "@"."""
    from ..lint import lint_source

    def blocking(text, path):
        try:
            return [f for f in lint_source(text, path) if f.rule in JIT_RULES]
        except Exception:  # an unparsable imported module: nothing to say about it
            return []

    shared = []
    for path, text in sorted(imported.items()):  # constructs of local modules
        shared += blocking(text, path)
    wrapper = MetadataWrapper(cst.parse_module(source))
    pos = wrapper.resolve(PositionProvider)
    defs = [(n.name.value, p.start.line, p.end.line) for n, p in pos.items() if isinstance(n, cst.FunctionDef)]
    out = {}
    for c in cands:
        fwd = funcs.get(c.fname, [None])[0]
        names = sorted({f.name.value for f in [fwd, *_helpers(fwd, funcs)] if f is not None})
        # make the linter treat forward_fn and its helpers as compiled code (appended lines: positions unchanged)
        text = source + ("" if source.endswith("\n") else "\n") + "".join(f"ms.jit({n})\n" for n in names)
        found = blocking(text, "@")
        mine = [f for f in found if any(n in names or n == "construct"
                                        for n, a, b in defs if a <= f.line <= b)]
        out[c.fname] = mine + shared
    return out


class _Wrap(cst.CSTTransformer):
    """Insert each train_step after its grad_fn and replace the step lines by one call."""

    def __init__(self, cands):
        super().__init__()
        self.by_scope = {c.scope_key: c for c in cands if c.call is not None}
        self.by_block = {c.call[0]: c for c in cands if c.call is not None}

    def _body(self, key, body):
        body = list(body)
        c = self.by_block.get(key)
        if c is not None:
            _, block, i, j, _ = c.call
            outs, args = _grad_call(block[i], c.gname)
            k = next(n for n, s in enumerate(body) if s.deep_equals(block[i]))
            target = ", ".join(code(e.value) for e in outs.elements) if isinstance(outs, cst.Tuple) else code(outs)
            call = cst.parse_statement(f"{target} = {c.train_step}({', '.join(code(a.value) for a in args)})\n")
            body[k:k + j - i + 1] = [call.with_changes(leading_lines=body[k].leading_lines)]
        c = self.by_scope.get(key)
        if c is not None:
            k = next(n for n, s in enumerate(body) if _grad_def(s) and _grad_def(s)[0] == c.gname)
            body.insert(k + 1, _train_step_def(c))
        return body

    def leave_IndentedBlock(self, original, updated):
        if id(original) in self.by_block or id(original) in self.by_scope:
            return updated.with_changes(body=self._body(id(original), updated.body))
        return updated

    def leave_Module(self, original, updated):
        if id(original) in self.by_block or id(original) in self.by_scope:
            return updated.with_changes(body=self._body(id(original), updated.body))
        return updated


def _train_step_def(c):
    _, block, i, _, clip = c.call
    outs, args = _grad_call(block[i], c.gname)
    params = ", ".join(code(a.value) for a in args)
    ret = ", ".join(code(e.value) for e in outs.elements) if isinstance(outs, cst.Tuple) else code(outs)
    body = f"{code(outs)}, grads = {c.gname}({params})\n"
    if clip is not None:
        body += f"grads = ops.clip_by_global_norm(grads, {code(clip)})\n"
    body += f"{c.opt}(grads)\nreturn {ret}\n"
    src = ("@ms.jit  # msmigrate --jit: forward, gradients and the optimizer update compiled as one graph\n"
           f"def {c.train_step}({params}):\n" + _indent(body))
    return cst.parse_statement(src)


def _call_lines(new_code: str) -> dict[str, int]:
    """Callee name -> first line where ``... = name(...)`` is assigned, in the converted text."""
    pos = MetadataWrapper(cst.parse_module(new_code)).resolve(PositionProvider)
    lines: dict[str, int] = {}
    for node, p in sorted(pos.items(), key=lambda kv: kv[1].start.line):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Call) and isinstance(node.value.func, cst.Name):
            if not any(isinstance(t.target, cst.Name) and t.target.value.startswith("grad_fn") for t in node.targets):
                lines.setdefault(node.value.func.value, p.start.line)
    return lines
