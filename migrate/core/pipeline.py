"""One file's conversion: parse once, one context, the passes in their declared order, imports, code, report.

    source ─► parse (libcst) ─► FileContext (resolver · diagnostics · import plan · facts)
           ─► PASSES in order, each ``run(module, ctx) -> module`` ─► imports applied once ─► code ─► FileResult

A pass reads and writes the context (bindings, typed facts, diagnostics, import requests), never another pass's
output text. An exception inside any pass is an internal error of this file only: the result carries it as an
error (the input text unchanged), and a directory run goes on with the other files.
"""
from __future__ import annotations

import ast
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import libcst as cst

from ..mapping import load_table
from ..report import FileResult, InputError, Unsupported
from ..rewrite import autograd, mode, operators, training
from ..rewrite import helpers as rewrite_helpers
from ..rewrite.msnames import names_used
from ..rewrite.lines import start_lines
from ..rewrite.transformer import Rewriter
from . import emit
from .context import FileContext
from .imports import MS_OBJECTS, module_bindings
from .resolve import Project


@dataclass(frozen=True)
class Pass:
    name: str
    run: Callable[[cst.Module, FileContext], cst.Module]
    applies: Callable[[FileContext], bool] = lambda ctx: True
    methods: frozenset = frozenset()  # tensor methods this pass rewrites (the table pass leaves them alone)


def _api(module: cst.Module, ctx: FileContext) -> cst.Module:
    return module.visit(Rewriter(ctx))


#: The passes, in the order they run.
PASSES: tuple[Pass, ...] = (
    Pass("api", _api),  # modules, imports, table-driven API uses, in-place methods
    Pass("autograd", autograd.run,  # torch.autograd.Function -> Cell + bprop, autograd.grad -> ms.grad
         lambda ctx: ctx.resolver.uses_torch() and autograd.applies(ctx.source)),
    Pass("mode", mode.run, mode.applies),  # torch's train mode at construction: set where a script builds a model
    Pass("training", training.run,  # backward/step loops -> value_and_grad + optimizer(grads)
         lambda ctx: ctx.resolver.uses_torch() and training.applies(ctx.source), frozenset({"backward"})),
    Pass("operators", operators.run,  # ~x, <<, >>, 2 & x, p.data[...] = v: meanings that differ on Tensors
         lambda ctx: ctx.resolver.uses_torch() and operators.applies(ctx.source)),
)


def syntax_error(code: str, filename: str, exc: cst.ParserSyntaxError) -> FileResult:
    line, message = exc.raw_line, exc.message
    try:  # CPython names the line where the error starts; libcst sometimes the next token's
        ast.parse(code)
    except SyntaxError as py_exc:
        line, message = py_exc.lineno or line, py_exc.msg
    return FileResult(filename, code, errors=[InputError(filename, line, f"syntax error: {message}")])


def needs_conversion(code: str, filename: str, project: Project | None) -> bool:
    """Whether any name of the file can stand for a torch object: it names torch, or imports a local module
    (whose exports may). Files that cannot are returned unchanged without a libcst parse."""
    if "torch" in code:
        return True
    if project is None or "import" not in code:
        return False
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return True  # let the parser report it
    path = Path(filename)
    return any(isinstance(n, ast.ImportFrom) and (n.level or project.find(path, n.module or "", 0) is not None)
               for n in ast.walk(tree))


def convert(code: str, filename: str = "<string>", project: Project | None = None) -> FileResult:
    """Convert one source text; never raises for a bad or unexpected input (see the module docstring)."""
    if not needs_conversion(code, filename, project):
        try:
            ast.parse(code)
        except SyntaxError as exc:
            return FileResult(filename, code, errors=[InputError(filename, exc.lineno or 1,
                                                                 f"syntax error: {exc.msg}")])
        except ValueError as exc:  # null bytes
            return FileResult(filename, code, errors=[InputError(filename, 1, f"syntax error: {exc}")])
        return FileResult(filename, code)
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError as exc:
        return syntax_error(code, filename, exc)
    try:
        return _convert(code, filename, module, project)
    except Exception as exc:  # noqa: BLE001 - one file's internal error must not stop a directory run
        return FileResult(filename, code, errors=[InputError(filename, 1, internal_error(exc))])


def internal_error(exc: Exception) -> str:
    """One line naming an internal error and where in msmigrate it happened."""
    frame = traceback.extract_tb(exc.__traceback__)[-1] if exc.__traceback__ else None
    where = f" ({frame.filename.rsplit('/', 1)[-1]}:{frame.lineno})" if frame else ""
    text = str(exc).splitlines()[0] if str(exc) else ""
    return f"internal error: {type(exc).__name__}: {text}{where}"


def _convert(code: str, filename: str, module: cst.Module, project: Project | None) -> FileResult:
    ctx = FileContext.create(code, filename, load_table(), module, project)
    ctx.deferred_methods = frozenset().union(*(p.methods for p in PASSES))
    new = module
    token = emit.active(ctx.imports)
    try:
        for p in PASSES:
            if p.applies(ctx):
                new = p.run(new, ctx)
    finally:
        emit.reset(token)
    if rewrite_helpers.used_apis(ctx):  # the helpers defined below the imports use these
        ctx.imports.need(names_used("".join(rewrite_helpers.HELPERS.values())))
    ctx.imports.keep_for(ctx.diagnostics)
    existing = module_bindings(new)
    for short in sorted(ctx.imports.needed):
        if short in existing and existing[short] != MS_OBJECTS[short]:
            ctx.unsupported(f"import {short}", f"the file binds `{short}` itself, so MindSpore's `{short}` "
                            "that the converted code uses cannot be imported: rename that name", module)
            ctx.imports.needed.discard(short)
    new = ctx.imports.apply(new, existing)
    code = operators.define_helpers(new, ctx)  # helper functions go below the imports
    result = FileResult(filename, code, api_calls=ctx.uses, converted=ctx.converted, apis=ctx.apis)
    records = ctx.diagnostics.records
    if records:
        lines = start_lines(module, [r.node for r in records])
        for r in records:
            result.unsupported.append(Unsupported(filename, lines.get(id(r.node), 0), r.api, r.reason))
        result.unsupported.sort(key=lambda u: u.line)
    return result
