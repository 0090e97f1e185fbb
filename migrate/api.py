"""The public Python API: ``convert_source`` for text, ``convert_path`` for files and directories."""
from __future__ import annotations

import ast
import os
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import libcst as cst

from .mapping import load_table
from .report import FileResult, InputError, Report, Unsupported
from .rewrite import Rewriter
from .rewrite.lines import start_lines


# Passes that restructure statements rather than single API uses, run after the table-driven pass. Each has
# ``applies(source_text) -> bool`` (a cheap text test, so most files skip it) and
# ``run(module, rewriter) -> module``, recording uses and unsupported constructs on ``rewriter`` like the main pass.
EXTRA_PASSES: list = [__import__(f"migrate.rewrite.{p}", fromlist=["run"]) for p in ("autograd", "training",
                                                                                           "operators")]


def convert_source(code: str, filename: str = "<string>", jit: bool = False) -> FileResult:
    """Convert PyTorch source text to MindSpore source text. Never executes the code.

    With ``jit=True`` each converted training step that lint finds nothing blocking in is wrapped in ``ms.jit``
    (``migrate.rewrite.jit``); ``.jit`` lists every step with ``wrapped`` and the reason.

    Returns a :class:`~migrate.report.FileResult` with ``.code`` (the converted text) and ``.unsupported``
    (records with ``line``, ``api`` and ``reason``). A syntax error gives a result whose ``.errors`` names the
    line and whose ``.code`` is the input unchanged.
    """
    try:
        module = cst.parse_module(code)
    except cst.ParserSyntaxError as exc:
        line, message = exc.raw_line, exc.message
        try:  # CPython names the line where the error starts; libcst sometimes the next token's
            ast.parse(code)
        except SyntaxError as py_exc:
            line, message = py_exc.lineno or line, py_exc.msg
        return FileResult(filename, code, errors=[InputError(filename, line, f"syntax error: {message}")])
    rewriter = Rewriter(load_table())
    new = module.visit(rewriter)
    for extra in EXTRA_PASSES:  # whole-statement rewrites (training loops...), only where they apply
        if extra.applies(code):
            new = extra.run(new, rewriter)
    result = FileResult(filename, rewriter.finish(new.code), api_calls=rewriter.uses,
                        converted=rewriter.converted, apis=rewriter.apis)
    if jit:
        prepare_jit(result)
        apply_jit(result)
    if rewriter.records:
        lines = start_lines(module, [node for _, _, node in rewriter.records])
        for api, reason, node in rewriter.records:
            result.unsupported.append(Unsupported(filename, lines.get(id(node), 0), api, reason))
        result.unsupported.sort(key=lambda u: u.line)
    return result


def prepare_jit(result: FileResult) -> FileResult:
    """The jit-only rewrites of a converted file's ``construct`` methods (``reversed(xs)`` -> ``xs[::-1]``)."""
    from .rewrite import jit as jit_pass

    if not result.errors and result.code:
        result.code, n = jit_pass.prepare(result.code)
        if n:
            result.apis["reversed (-> [::-1] for ms.jit)"] += n
    return result


def apply_jit(result: FileResult, imported: dict[str, str] | None = None) -> FileResult:
    """Run the jit pass on a converted file (``imported``: display name -> converted text of the local modules it
    imports, whose ``construct`` methods are linted too)."""
    from .rewrite import jit as jit_pass

    if result.errors or not result.code:
        return result
    result.code, result.jit = jit_pass.run(result.code, result.filename, imported)
    return result


def _local_imports(result: FileResult, by_path: dict[Path, FileResult]) -> dict[str, str]:
    """Converted text of the sibling modules ``result``'s file imports (``import model``, ``from model import``,
    ``from .model import``), looked up among the files converted in the same run."""
    try:
        module = ast.parse(result.code)
    except SyntaxError:
        return {}
    here = Path(result.filename).parent
    out = {}
    for node in ast.walk(module):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level <= 1:
            names = [node.module]
        for name in names:
            path = (here / (name.replace(".", "/") + ".py")).resolve()
            other = by_path.get(path)
            if other is None and path.is_file():  # a sibling not converted in this run (SRC is one file):
                # lint its conversion as plain `convert` writes it
                other = convert_file(path, str(Path(result.filename).parent / (name.replace(".", "/") + ".py")))
                by_path[path] = other
            if other is not None and other is not result and not other.errors:
                out[other.filename] = other.code
    return out


def _read(path: Path, display: str) -> tuple[str | None, InputError | None]:
    data = path.read_bytes()
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, InputError(display, line, f"not UTF-8 (byte 0x{data[exc.start]:02x})")


def convert_file(src: Path, display: str, jit: bool = False) -> FileResult:
    text, error = _read(src, display)
    if error:
        return FileResult(display, "", errors=[error])
    return convert_source(text, display, jit=jit)


def _convert_job(job):
    src, display = job
    return convert_file(Path(src), display)


def write_atomic(path: Path, text: str | bytes) -> None:
    """Write via a temp file in the same directory and rename: a reader never sees half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8") if isinstance(text, str) else text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def plan(src: Path, out: Path | None) -> list[tuple[Path, Path | None, str]]:
    """(source, destination, display name) for each Python file; other files of a directory are copied."""
    if src.is_file():
        if out is None:
            dest = None
        elif out.suffix == ".py":
            dest = out
        else:
            dest = out / src.name
        return [(src, dest, str(src))]
    files = sorted(p for p in src.rglob("*.py") if not any(part.startswith(".") for part in p.relative_to(src).parts))
    return [(p, (out / p.relative_to(src)) if out else None, str(p)) for p in files]


def check_destination(src: Path, out: Path | None) -> None:
    """Refuse to write into the source tree: the user's files are never modified."""
    if out is None:
        return
    s, o = src.resolve(), out.resolve()
    if s.is_file():
        if (o if o.suffix == ".py" else o / s.name) == s:
            raise ValueError(f"{out}: output would overwrite the source file {src}")
    elif o == s or s in o.parents:
        raise ValueError(f"{out}: output directory is inside the source tree {src}")


def convert_path(src, out=None, jobs: int = 1, jit: bool = False) -> Report:
    """Convert a file or a directory tree. With ``out``, write the converted files there (a directory source is
    mirrored, its other files copied); without it, only report. Never writes into ``src``. With ``jit=True`` the
    training steps are wrapped in ``ms.jit`` where lint (of the file and of the local modules it imports that
    are converted in the same run) finds nothing blocking."""
    src, out = Path(src), Path(out) if out is not None else None
    check_destination(src, out)
    items = plan(src, out)
    jobs_in = [(str(s), d) for s, _, d in items]
    if jobs > 1 and len(items) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = list(pool.map(_convert_job, jobs_in, chunksize=max(1, len(items) // (jobs * 4))))
    else:
        results = [_convert_job(j) for j in jobs_in]
    if jit:  # after all files are converted: a step's model usually lives in a sibling module
        by_path = {Path(s).resolve(): r for (s, _, _), r in zip(items, results)}
        for result in results:
            prepare_jit(result)
        for result in results:
            apply_jit(result, _local_imports(result, by_path))
    report = Report(results)
    if out is not None:
        for (s, dest, _), result in zip(items, results):
            if result.errors and not result.code:
                continue  # undecodable: nothing sensible to write
            write_atomic(dest, result.code)
        if src.is_dir():
            for p in sorted(src.rglob("*")):
                rel = p.relative_to(src)
                if p.is_file() and p.suffix != ".py" and not any(part.startswith(".") or part == "__pycache__"
                                                                   for part in rel.parts):
                    (out / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(p, out / rel)
    return report
