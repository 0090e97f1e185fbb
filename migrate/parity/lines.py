"""Line-level parity: the first source line and variable where torch's and MindSpore's values part.

Run only when the forward diverged (a layer failed its verdict): both models run their forward once more, eagerly,
under a tracer (``sys.settrace``) limited to the user's files (the files that define the model's module / cell
classes, not torch's, MindSpore's or msmigrate's). At each line event of a frame in those files the tensors bound
to local names that changed since the previous event are recorded (``(line, variable)`` -> a copy), and a
function's return value under ``return``. Records are keyed by (function, its n-th call, line, variable, n-th
assignment of it in that call); ``forward`` and ``construct`` are the same function.

torch lines are aligned to MindSpore lines per file pair by aligning the two sources (difflib over the stripped
lines; a run of changed lines of equal length on both sides maps line for line): the converter keeps the line
structure (one torch line is one MindSpore line), and a hand-written port (``--ms``) aligns where its lines match.
Files pair up as the model classes' files, then by file name. The first record in torch's execution order whose
MindSpore counterpart differs by more than LINE_RATIO x the float32 screen (or has another shape) is the first
divergent line; the module verdict still decides pass / fail (a line-level screen has no float64 reference, so
LINE_RATIO keeps float noise below it: a real slip reads 100x or more).
"""
from __future__ import annotations

import difflib
import linecache
import os
import sys
from collections import Counter

import numpy as np

LINE_RATIO = 10.0
MAX_BYTES = 1 << 29  # per side: recording stops beyond (noted)
_LIBS = ("site-packages", "dist-packages")


def _is_user(path: str) -> bool:
    real = os.path.realpath(path)
    if any(f"{os.sep}{lib}{os.sep}" in real for lib in _LIBS):
        return False
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the migrate package
    if real.startswith(here + os.sep):
        return False
    base = os.path.realpath(sys.base_prefix)
    return not real.startswith(os.path.join(base, "lib") + os.sep)


def user_files(model, side: str) -> list:
    """Source files of the classes of the model's modules / cells (and their bases) that are the user's."""
    mods = model.modules() if side == "torch" else (c for _, c in model.cells_and_names())
    files: list = []
    for m in mods:
        for cls in type(m).__mro__:
            f = _class_file(cls)
            if f and _is_user(f) and f not in files:
                files.append(f)
    return files


def _class_file(cls):
    """The file a class's methods were compiled from (not inspect's sys.modules lookup: both sides may have a
    module of the same name, and each side's loading takes its own back out of sys.modules)."""
    for v in vars(cls).values():
        code = getattr(getattr(v, "__func__", v), "__code__", None)
        if code is not None:
            return os.path.realpath(code.co_filename)
    return None


def _func(code) -> str:
    qual = getattr(code, "co_qualname", code.co_name)
    head, _, last = qual.rpartition(".")
    if last in ("forward", "construct"):
        last = "forward"
    return f"{head}.{last}" if head else last


class LineRecorder:
    """sys.settrace over ``files``: records (file, function, call, line, variable, occurrence) -> array."""

    def __init__(self, files, is_tensor, to_array):
        self.files = set(files)
        self.is_tensor, self.to_array = is_tensor, to_array
        self.records: list = []
        self.calls: Counter = Counter()
        self.frames: dict = {}
        self.bytes = 0
        self.truncated = False
        self._real: dict = {}

    def __enter__(self):
        self._prev = sys.gettrace()
        sys.settrace(self._call)
        return self

    def __exit__(self, *exc):
        sys.settrace(self._prev)
        self.frames.clear()
        return False

    def _file(self, name):
        real = self._real.get(name)
        if real is None:
            real = self._real[name] = os.path.realpath(name)
        return real

    def _call(self, frame, event, arg):
        if event != "call":
            return None
        file = self._file(frame.f_code.co_filename)
        if file not in self.files:
            return None
        func = _func(frame.f_code)
        self.calls[(file, func)] += 1
        # the arguments are the caller's values (compared at the caller's lines): not recorded again
        seen = {k: v for k, v in frame.f_locals.items() if self.is_tensor(v)}
        self.frames[id(frame)] = [file, func, self.calls[(file, func)], None, seen, Counter()]
        return self._local

    def _local(self, frame, event, arg):
        st = self.frames.get(id(frame))
        if st is None:
            return None
        if event in ("line", "return"):
            if st[3] is not None:
                self._scan(frame, st, st[3])
            if event == "return":
                if self.is_tensor(arg):
                    self._add(st, frame.f_lineno, "return", arg)
                self.frames.pop(id(frame), None)
            else:
                st[3] = frame.f_lineno
        return self._local

    def _scan(self, frame, st, line):
        seen = st[4]
        for name, v in frame.f_locals.items():
            if name == "self" or not self.is_tensor(v) or seen.get(name) is v:
                continue
            seen[name] = v
            self._add(st, line, name, v)

    def _add(self, st, line, name, v):
        if self.truncated:
            return
        try:
            arr = self.to_array(v)
        except Exception:  # noqa: BLE001 - a value that cannot be read is not compared
            return
        self.bytes += arr.nbytes
        if self.bytes > MAX_BYTES:
            self.truncated = True
            return
        st[5][(line, name)] += 1
        self.records.append((st[0], st[1], st[2], line, name, st[5][(line, name)], arr))


def line_map(a_lines, b_lines) -> dict:
    """torch line number -> MindSpore line number (1-based) by aligning the stripped sources."""
    a = [ln.strip() for ln in a_lines]
    b = [ln.strip() for ln in b_lines]
    out = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):
            for k in range(i2 - i1):
                out[i1 + k + 1] = j1 + k + 1
        elif tag == "replace":
            for k in range(i2 - i1):
                out[i1 + k + 1] = j1 + min(k, j2 - j1 - 1) + 1
    return out


def _read(path) -> list:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read().splitlines()
    except OSError:
        return linecache.getlines(path)


def pair_files(t_files, m_files, t_main=None, m_main=None) -> dict:
    """torch file -> MindSpore file: the model classes' files, then the same file name."""
    out = {}
    if t_main and m_main:
        out[t_main] = m_main
    by_name = {}
    for f in m_files:
        by_name.setdefault(os.path.basename(f), f)
    for f in t_files:
        if f not in out and os.path.basename(f) in by_name:
            out[f] = by_name[os.path.basename(f)]
    return out


def _context(path, line, n=2) -> list:
    lines = _read(path)
    lo, hi = max(1, line - n), min(len(lines), line + n)
    return [[i, lines[i - 1]] for i in range(lo, hi + 1)]


def mappings_for(torch_file: str, line: int) -> list:
    """The mapping-table entries behind the torch calls of the statement at ``line`` (what the converter maps them
    with): [{torch, ms, rule, source, notes}]. Names resolve through the file's imports (``F`` ->
    ``torch.nn.functional``); a method call (``x.clamp(...)``) is looked up by its name among the Tensor methods."""
    import ast

    from migrate.mapping.table import load_table

    try:
        tree = ast.parse("\n".join(_read(torch_file)))
        table = load_table()
    except Exception:  # noqa: BLE001 - an explanation only
        return []
    alias = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                alias[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for a in node.names:
                alias[a.asname or a.name] = f"{node.module}.{a.name}"
    stmt = None
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                                                                ast.If, ast.For, ast.While, ast.With, ast.Try)):
            if node.lineno <= line <= (node.end_lineno or node.lineno):
                stmt = node
                break
    if stmt is None:
        return []

    from migrate.core.resolve import _ast_dotted as dotted

    out, seen = [], set()
    for node in ast.walk(stmt):
        if not isinstance(node, ast.Call):
            continue
        name = dotted(node.func)
        entry = None
        if name:
            head, _, rest = name.partition(".")
            if head in alias:
                entry = table.lookup(alias[head] + ("." + rest if rest else ""))
        if entry is None and isinstance(node.func, ast.Attribute) and not (name and name.split(".")[0] in alias):
            entry = table.methods.get(node.func.attr) if not (name or "").startswith("self.") else None
        if entry is not None and entry.torch not in seen:
            seen.add(entry.torch)
            out.append({"torch": entry.torch, "ms": entry.ms, "rule": entry.rule, "source": entry.source,
                        "notes": entry.notes})
    return out


def _display(path) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel


def locate_lines(torch_model, ms_model, inputs, rtol, atol, t_files=None, m_files=None) -> dict | None:
    """Both forwards again under the tracer; the first divergent line (see the module docstring), or None when
    every recorded pair agrees (or nothing could be recorded). Buffers (BatchNorm statistics) are put back."""
    import mindspore as ms
    import torch

    from . import metrics

    t_files = t_files or user_files(torch_model, "torch")
    m_files = m_files or user_files(ms_model, "ms")
    if not t_files or not m_files:
        return None
    files = pair_files(t_files, m_files, _class_file(type(torch_model)), _class_file(type(ms_model)))
    if not files:
        return None
    buffers = {n: b.detach().clone() for n, b in torch_model.named_buffers()}
    ms_state = {n: p.asnumpy().copy() for n, p in ms_model.parameters_and_names()}
    t_rec = LineRecorder(t_files, lambda v: isinstance(v, torch.Tensor),
                         lambda v: v.detach().cpu().numpy().copy())
    m_rec = LineRecorder(m_files, lambda v: isinstance(v, ms.Tensor), lambda v: v.asnumpy().copy())
    try:
        with torch.no_grad(), t_rec:
            torch_model(*[torch.from_numpy(np.array(x)) for x in inputs])
        with m_rec:
            ms_model(*[ms.Tensor(np.array(x)) for x in inputs])
    except Exception:  # noqa: BLE001 - line-level is an explanation; the verdict stands without it
        return None
    finally:
        with torch.no_grad():
            for n, b in torch_model.named_buffers():
                b.copy_(buffers[n])
        for n, p in ms_model.parameters_and_names():
            if n in ms_state:
                p.set_data(ms.Tensor(ms_state[n]))
    maps = {f: line_map(_read(f), _read(m)) for f, m in files.items()}
    ms_index = {(r[0], r[1], r[2], r[3], r[4], r[5]): r[6] for r in m_rec.records}
    compared = 0
    for file, func, call, line, var, occ, arr in t_rec.records:
        m_file = files.get(file)
        m_line = maps.get(file, {}).get(line)
        if m_file is None or m_line is None:
            continue
        m_arr = ms_index.get((m_file, func, call, m_line, var, occ))
        if m_arr is None:
            continue
        compared += 1
        if not (np.issubdtype(arr.dtype, np.floating) or np.issubdtype(arr.dtype, np.integer)):
            continue
        row = metrics.compare(arr.astype(np.float32, copy=False) if arr.dtype != np.float64 else arr,
                              m_arr.astype(np.float32, copy=False) if m_arr.dtype != np.float64 else m_arr,
                              rtol, atol)
        ratio = row.get("ratio")
        if row.get("tier") == "shape" or ratio is None or ratio > LINE_RATIO:
            return {"torch": f"{_display(file)}:{line}", "ms": f"{_display(m_file)}:{m_line}", "variable": var,
                    "function": func, "call": call, "torch_code": _read(file)[line - 1].strip(),
                    "ms_code": _read(m_file)[m_line - 1].strip(), "ratio": ratio, "max_abs": row.get("max_abs"),
                    "note": row.get("note"), "torch_context": _context(file, line),
                    "ms_context": _context(m_file, m_line), "compared": compared,
                    "torch_file": file, "ms_file": m_file, "torch_line": line, "ms_line": m_line,
                    "occurrence": occ, "mappings": mappings_for(file, line)}
    return None


def statement(path, line):
    """The simple statement covering ``line`` of ``path``: {code (dedented, a ``return`` made an assignment to
    ``__value__``), first, last (lines), loads (names it reads)}, or None (no such statement, a compound one)."""
    import ast
    import textwrap

    lines = _read(path)
    try:
        tree = ast.parse("\n".join(lines))
    except SyntaxError:
        return None
    found = None
    for node in ast.walk(tree):
        if (isinstance(node, ast.stmt) and node.lineno <= line <= (node.end_lineno or node.lineno)
                and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.If, ast.For,
                                          ast.While, ast.With, ast.Try))):
            found = node
            break
    if found is None or not isinstance(found, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr)):
        return None
    end = found.end_lineno or found.lineno
    code = textwrap.dedent("\n".join(lines[found.lineno - 1:end]))
    if isinstance(found, ast.Return):
        if found.value is None:
            return None
        code = "__value__ = " + textwrap.dedent(ast.get_source_segment("\n".join(lines), found.value, padded=False))
    loads = {n.id for n in ast.walk(found) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    if isinstance(found, ast.AugAssign) and isinstance(found.target, ast.Name):
        loads.add(found.target.id)
    try:
        compile(code, path, "exec")
    except SyntaxError:
        return None
    return {"code": code, "first": found.lineno, "last": end, "loads": sorted(loads)}


def _literal(v) -> bool:
    import ast

    if v is None or isinstance(v, (bool, int, float, str)):
        try:
            return ast.literal_eval(repr(v)) == v
        except (ValueError, SyntaxError):
            return False
    if isinstance(v, (tuple, list)):
        return all(_literal(x) for x in v)
    return False


def capture_line(torch_model, inputs, ln) -> dict | None:
    """For a standalone repro of the first divergent line: torch's forward once more, stopped at that line's
    statement (in the same call of its function, the same time it runs there) to keep the values of the local names
    the two statements read (tensors as arrays, plain values as literals). Returns {torch, ms (statement), variable,
    arrays, literals}, or None when the line cannot stand alone (it reads ``self`` or another object, or is not a
    simple statement). Buffers are put back."""
    import torch

    if not ln or not ln.get("torch_file") or not ln.get("ms_file"):
        return None
    t_st, m_st = statement(ln["torch_file"], ln["torch_line"]), statement(ln["ms_file"], ln["ms_line"])
    if t_st is None or m_st is None:
        return None
    var = "__value__" if ln["variable"] == "return" else ln["variable"]
    names = set(t_st["loads"]) | set(m_st["loads"])
    file, func, call = os.path.realpath(ln["torch_file"]), ln["function"], ln["call"]
    want_occ = ln.get("occurrence", 1)
    state = {"calls": 0, "inside": False, "occ": 0, "locals": None}

    def local(frame, event, arg):
        if event == "line" and state["locals"] is None:
            inside = t_st["first"] <= frame.f_lineno <= t_st["last"]
            if inside and not state["inside"]:
                state["occ"] += 1
                if state["occ"] == want_occ:
                    state["locals"] = dict(frame.f_locals)
            state["inside"] = inside
        return local

    def tracer(frame, event, arg):
        if event != "call" or state["locals"] is not None:
            return None
        if os.path.realpath(frame.f_code.co_filename) != file or _func(frame.f_code) != func:
            return None
        state["calls"] += 1
        return local if state["calls"] == call else None

    buffers = {n: b.detach().clone() for n, b in torch_model.named_buffers()}
    prev = sys.gettrace()
    try:
        sys.settrace(tracer)
        with torch.no_grad():
            torch_model(*[torch.from_numpy(np.array(x)) for x in inputs])
    except Exception:  # noqa: BLE001 - no line repro; the layer repro stands
        return None
    finally:
        sys.settrace(prev)
        with torch.no_grad():
            for n, b in torch_model.named_buffers():
                b.copy_(buffers[n])
    found = state["locals"]
    if found is None:
        return None
    arrays, literals = {}, {}
    for name in sorted(names):
        if name not in found:
            continue  # a global (F, torch, ops, a helper of the module): the module's own
        v = found[name]
        if isinstance(v, torch.Tensor):
            arrays[name] = v.detach().cpu().numpy().copy()
        elif _literal(v):
            literals[name] = v
        else:
            return None  # self, a module, another object: the layer repro covers it
    if not arrays:
        return None
    return {"torch": t_st["code"], "ms": m_st["code"], "torch_span": (t_st["first"], t_st["last"]),
            "ms_span": (m_st["first"], m_st["last"]), "variable": var, "arrays": arrays, "literals": literals}
