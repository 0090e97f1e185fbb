"""Composed MindSpore ops for torch APIs that have no MindSpore 2.10 CPU kernel, emitted into converted code.

Converted code never imports msmigrate. A mapping entry whose MindSpore form needs a few lines of code calls a
helper by its generated name (``_msmigrate_roll(...)``, ``_MsmigrateInstanceNorm(...)``) through its ``ms`` or
``forms``, and names it with ``helper = "roll"`` (checked when the table loads). After conversion, ``emit(text)``
finds the helper names the text uses and writes their definitions into the file itself, after its imports,
once per file, each template reduced to the definitions the file calls and what they call (a package directory gets one copy per file that needs it: no generated module to import, so the
output works the same for a single file, a script run from anywhere and a package with relative imports).

Each helper is a template file ``templates/NAME.py`` holding plain MindSpore code: an optional first line
``# requires: other, names`` (templates it calls, checked when the registry loads; what is written follows the
names each definition calls) and top-level ``def`` / ``class`` statements whose names start
with ``_msmigrate_`` / ``_Msmigrate``. Only classic ``mindspore.nn`` / ``mindspore.ops`` ops that run on CPU are
used, so the output runs on CPU, GPU and Ascend. Each is proven against torch by ``tests/api/test_helpers.py``.
"""
from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from ..core.imports import HELPER_SHORT_NAMES

TEMPLATES = Path(__file__).resolve().parent / "templates"
_USE = re.compile(r"(?<![\w.])(_msmigrate_\w+|_Msmigrate\w+)\b")
BANNER = "# --- msmigrate helpers: MindSpore compositions of torch APIs (generated; see msmigrate's docs) ---"
# the imports a helper body may rely on: the short name -> the line binding it (core/imports.py's one table)
_IMPORTS = {short: line for short, (_, line) in HELPER_SHORT_NAMES.items()}


@dataclass(frozen=True)
class Helper:
    name: str                 # the template's name ("roll")
    source: str               # the definitions, without the requires line
    defines: tuple[str, ...]  # the generated names it defines
    requires: tuple[str, ...]  # other helpers it calls
    shorts: tuple[str, ...]   # ms / ops / nn / np names it uses


@functools.lru_cache(maxsize=None)
def registry() -> dict[str, Helper]:
    out = {}
    for path in sorted(TEMPLATES.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        requires: tuple[str, ...] = ()
        first, _, rest = text.partition("\n")
        if first.startswith("# requires:"):
            requires = tuple(n.strip() for n in first.split(":", 1)[1].split(",") if n.strip())
            text = rest
        tree = ast.parse(text, filename=str(path))
        defines = tuple(n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
        bad = [d for d in defines if not _USE.fullmatch(d)]
        if bad or not defines:
            raise ValueError(f"{path.name}: helpers define _msmigrate_* / _Msmigrate* names only (got {bad or 'none'})")
        shorts = tuple(s for s in _IMPORTS if re.search(rf"(?<![\w.]){s}\.", text))
        out[path.stem] = Helper(path.stem, text.strip() + "\n", defines, requires, shorts)
    for h in out.values():
        missing = [r for r in h.requires if r not in out]
        if missing:
            raise ValueError(f"templates/{h.name}.py requires unknown helper(s) {missing}")
    return out


# The other two kinds of helper text live in the same registry (one folder, one loader), written where their passes
# put them: ``templates/script/NAME.py`` (a script's data loading, checkpoints, distributed set-up: readable names,
# a first line ``# apis: torch.save, ...`` naming the torch APIs whose conversion calls it; the training pass writes
# them after the imports, in SCRIPT_ORDER, where a helper another one calls comes first) and
# ``templates/inline/NAME.py`` (``_msm_*``: operators and dtype rules the operators pass writes after the imports).
SCRIPT_ORDER = ("CrossEntropyLoss", "save_checkpoint_dict", "load_checkpoint_dict", "load_params", "SeededGenerator",
                "Subset", "random_split", "TensorDataset", "MapDataLoader", "DistributedSampler", "init_data_parallel",
                "launcher_env", "data_parallel_barrier", "DistributedDataParallel", "all_reduce_gradients",
                "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "BatchSampler")


@functools.lru_cache(maxsize=None)
def script_helpers() -> dict[str, tuple[tuple[str, ...], str]]:
    """name -> (the torch APIs whose conversion calls it, its source), in the order the training pass writes them."""
    out = {}
    for path in sorted(TEMPLATES.joinpath("script").glob("*.py")):
        first, _, rest = path.read_text(encoding="utf-8").partition("\n")
        if not first.startswith("# apis:"):
            raise ValueError(f"templates/script/{path.name}: the first line names the torch APIs (# apis: ...)")
        out[path.stem] = (tuple(a.strip() for a in first.split(":", 1)[1].split(",") if a.strip()), "\n" + rest)
    unknown = set(out) ^ set(SCRIPT_ORDER)
    if unknown:
        raise ValueError(f"templates/script and SCRIPT_ORDER differ: {sorted(unknown)}")
    return {name: out[name] for name in SCRIPT_ORDER}


@functools.lru_cache(maxsize=None)
def inline_helpers() -> dict[str, str]:
    """``_msm_*`` name -> its source (templates/inline/NAME.py)."""
    return {path.stem: "\n" + path.read_text(encoding="utf-8")
            for path in sorted(TEMPLATES.joinpath("inline").glob("*.py"))}


@functools.lru_cache(maxsize=None)
def by_defined_name() -> dict[str, Helper]:
    return {d: h for h in registry().values() for d in h.defines}


@dataclass(frozen=True)
class _Unit:
    """One top-level statement of a template: a definition (with the comment lines right above it) or a statement
    after the definitions that names one (``_MsmigrateConv2d.__name__ = "Conv2d"``, attached to that one)."""
    template: str
    owner: str                # the generated name it defines, or the one it is attached to
    text: str                 # its lines
    gap: str                  # the lines between it and the statement before it in the template
    is_def: bool
    uses: tuple[str, ...]     # other generated names it refers to


@functools.lru_cache(maxsize=None)
def _units() -> dict[str, tuple[str, list[_Unit]]]:
    """For each template, its preamble (the comment block above its first statement) and its statements."""
    out = {}
    for h in registry().values():
        lines = h.source.splitlines(keepends=True)
        tree = ast.parse(h.source)
        units, prev_end, preamble = [], 0, ""
        for i, node in enumerate(tree.body):
            start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))]) - 1
            while start > prev_end and lines[start - 1].lstrip().startswith("#"):
                start -= 1  # the comment lines right above it go with it
            text = "".join(lines[start:node.end_lineno])
            gap = "".join(lines[prev_end:start])
            if i == 0:
                preamble, gap = gap, ""
            is_def = isinstance(node, (ast.FunctionDef, ast.ClassDef))
            names = _USE.findall(text)
            owner = node.name if is_def else (names[0] if names else "")
            units.append(_Unit(h.name, owner, text, gap, is_def, tuple(dict.fromkeys(n for n in names if n != owner))))
            prev_end = node.end_lineno
        out[h.name] = (preamble, units)
    return out


def _subset(name: str, chosen: set[str]) -> Helper:
    """Template ``name`` reduced to the definitions named in ``chosen`` (with the statements attached to them); the
    whole template, as it is, when every definition is chosen."""
    h = registry()[name]
    if set(h.defines) <= chosen:
        return h
    preamble, units = _units()[name]
    parts, prev, last = [preamble], -1, None
    for i, u in enumerate(units):
        if u.owner not in chosen:
            continue
        if last is not None:
            parts.append(u.gap if prev == i - 1 else ("\n\n" if u.is_def or last.is_def else u.gap))
        parts.append(u.text)
        prev, last = i, u
    source = "".join(parts).strip() + "\n"
    defines = tuple(d for d in h.defines if d in chosen)
    shorts = tuple(s for s in _IMPORTS if re.search(rf"(?<![\w.]){s}\.", source))
    return Helper(h.name, source, defines, h.requires, shorts)


def used(text: str) -> list[Helper]:
    """Helpers whose generated names ``text`` uses but does not define, with the definitions they call: each
    template reduced to the definitions needed (a file using ``_MsmigrateBatchNorm2d`` gets that class and what it
    calls, not every torch base class of bases.py)."""
    index = by_defined_name()
    defined = set(re.findall(r"^(?:def|class) (_msmigrate_\w+|_Msmigrate\w+)\b", text, re.M))
    uses = {u.owner: set() for _, units in _units().values() for u in units if u.is_def}
    for _, units in _units().values():
        for u in units:
            if u.owner in uses:
                uses[u.owner] |= {n for n in u.uses if n in index}
    chosen, todo = set(), [m for m in _USE.findall(text) if m in index and m not in defined]
    while todo:
        n = todo.pop()
        if n not in chosen and n not in defined:
            chosen.add(n)
            todo += sorted(uses.get(n, ()))
    wanted = {index[n] for n in chosen}
    # dependencies between templates: a template whose definitions another one calls comes first
    deps = {h.name: {index[n].name for d in chosen if index[d] is h for n in uses.get(d, ())} - {h.name}
            for h in wanted}
    order, seen = [], set()

    def visit(name: str):
        if name in seen:
            return
        seen.add(name)
        for r in sorted(deps.get(name, ())):
            visit(r)
        order.append(name)

    for h in sorted(wanted, key=lambda h: h.name):
        visit(h.name)
    return [_subset(n, chosen) for n in order]


def emit(text: str) -> str:
    """Write the helpers ``text`` uses into it, after its leading imports. ``text`` is unchanged when it uses
    none (or already defines them: converting twice adds nothing)."""
    helpers = used(text)
    if not helpers:
        return text
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text  # never make broken input worse; the caller reports the syntax error
    lines = text.splitlines(keepends=True)
    at = _insertion_line(tree)
    bound = _top_level_bindings(tree, at)
    other = _bound_otherwise(tree)  # names the file binds to something else (its own `nn`, torch's kept as nn...)
    wanted = [s for s in _IMPORTS if any(s in h.shorts for h in helpers)]
    alias = {s: f"_msmigrate_{s}" for s in wanted if s in other}
    block = [BANNER + "\n"]
    for s in wanted:
        if s in alias:  # the helpers use a private name, so the file's own binding stays what it was
            block.append(_IMPORTS[s].replace(f" {s}", f" {s} as {alias[s]}", 1)
                         if " as " not in _IMPORTS[s] else _IMPORTS[s].rsplit(" as ", 1)[0] + f" as {alias[s]}")
            block.append("\n")
        elif s not in bound:
            block.append(_IMPORTS[s] + "\n")
    for h in helpers:
        source = h.source
        for s, a in alias.items():
            source = re.sub(rf"(?<![\w.]){s}\.", f"{a}.", source)
        block += ["\n", "\n", source]
    block += ["\n", "\n"]
    prefix = "".join(lines[:at])
    nl = "\r\n" if "\r\n" in text else "\n"  # the file's own line endings (CRLF input stays CRLF)
    if prefix and not prefix.endswith("\n"):
        prefix += nl
    if prefix.strip():
        block = ["\n", "\n"] + block
    body = "".join(block)
    if nl != "\n":
        body = body.replace("\n", nl)
    return prefix + body + "".join(lines[at:]).lstrip("\r\n")


def _insertion_line(tree: ast.Module) -> int:
    """The line (0-based index into the lines) after the module's docstring, ``__future__`` imports and leading
    imports (a ``try``/``if`` made only of imports counts); 0 for a module that starts with code."""
    at = 0
    for i, node in enumerate(tree.body):
        doc = i == 0 and isinstance(node, ast.Expr) and isinstance(getattr(node, "value", None), ast.Constant)
        if doc or isinstance(node, (ast.Import, ast.ImportFrom)) or _only_imports(node):
            at = node.end_lineno
            continue
        break
    return at


def _only_imports(node) -> bool:
    if isinstance(node, (ast.Try, ast.If)):
        inner = list(ast.walk(node))[1:]
        stmts = [n for n in inner if isinstance(n, ast.stmt)]
        return bool(stmts) and all(isinstance(n, (ast.Import, ast.ImportFrom, ast.Pass, ast.Try, ast.If,
                                                  ast.ExceptHandler)) or _is_assign_none(n) for n in stmts)
    return False


def _is_assign_none(n) -> bool:
    return isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant) and n.value.value is None


# short name -> (module, attribute) of the object it stands for: ``from mindspore import nn`` binds ("mindspore", "nn")
_MS_OBJECTS = {short: ((obj.rpartition(".")[0], obj.rpartition(".")[2]) if "." in obj else (obj, None))
               for short, (obj, _) in HELPER_SHORT_NAMES.items()}


def _bound_otherwise(tree: ast.Module) -> set[str]:
    """Short names (ms, ops, nn, np) that some top-level statement binds to anything but the MindSpore / numpy
    object the helpers mean."""
    out = set()
    for node in tree.body:
        for target, value in _bindings(node):
            if target in _MS_OBJECTS and value != _MS_OBJECTS[target]:
                out.add(target)
    return out


def _bindings(node):
    """(name, (module, attr) or None) for each name a top-level statement binds."""
    if isinstance(node, ast.Import):
        for a in node.names:
            yield (a.asname or a.name.split(".")[0]), ((a.name, None) if a.asname or "." not in a.name else None)
    elif isinstance(node, ast.ImportFrom):
        for a in node.names:
            yield (a.asname or a.name), ((node.module, a.name) if not node.level else None)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name, None
    elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            for n in ast.walk(t):
                if isinstance(n, ast.Name):
                    yield n.id, None
    elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                yield from _bindings(child)
            elif isinstance(child, ast.ExceptHandler):
                for c in child.body:
                    yield from _bindings(c)


def _top_level_bindings(tree: ast.Module, before_line: int) -> set[str]:
    """Short names bound to the right MindSpore objects by imports above the insertion point."""
    bound = set()
    for node in tree.body:
        if getattr(node, "end_lineno", 0) > before_line:
            break
        for short, (module, attr) in _MS_OBJECTS.items():
            if isinstance(node, ast.Import) and attr is None:
                if any(a.name == module and (a.asname or a.name) == short for a in node.names):
                    bound.add(short)
            if isinstance(node, ast.ImportFrom) and attr and node.module == module and not node.level:
                if any(a.name == attr and (a.asname or a.name) == short for a in node.names):
                    bound.add(short)
    return bound
