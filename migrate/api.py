"""The public Python API: ``convert_source`` for text, ``convert_path`` for files and directories."""
from __future__ import annotations

import ast
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path


from . import helpers  # composed ops written into converted files (migrate/helpers)
from .core import pipeline
from .core.resolve import Project
from .io import write_atomic  # noqa: F401  (the commands import it from here)
from .report import FileResult, InputError, Report, torch_uses


def convert_source(code: str, filename: str = "<string>", jit: bool = False,
                   project: Project | None = None) -> FileResult:
    """Convert PyTorch source text to MindSpore source text. Never executes the code.

    With ``jit=True`` each converted training step that lint finds nothing blocking in is wrapped in ``ms.jit``
    (``migrate.rewrite.jit``); ``.jit`` lists every step with ``wrapped`` and the reason. ``project`` resolves
    the names a file takes from its sibling modules (``from .parts import *``); ``convert_path`` passes one.

    Returns a :class:`~migrate.report.FileResult` with ``.code`` (the converted text) and ``.unsupported``
    (records with ``line``, ``api`` and ``reason``). A syntax error, or an internal error of the converter on
    this file, gives a result whose ``.errors`` names it and whose ``.code`` is the input unchanged.
    """
    result = pipeline.convert(code, filename, project)
    if not result.errors:
        result.code = helpers.emit(result.code)
    if jit and not result.errors:
        prepare_jit(result)
        apply_jit(result)
    return result


def _isolated(result: FileResult, step) -> None:
    """Run a whole-file step; an internal error becomes this file's error line, the other files go on."""
    if result.errors:
        return
    try:
        step(result)
    except Exception as exc:  # noqa: BLE001
        result.errors.append(InputError(result.filename, 1, pipeline.internal_error(exc)))


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


def convert_file(src: Path, display: str, jit: bool = False, keep_outputs: bool = False,
                 project: Project | None = None) -> FileResult:
    text, error = _read(src, display)
    if error:
        return FileResult(display, "", errors=[error],
                          failed_uses=torch_uses(src.read_bytes().decode("utf-8", "replace")))
    if src.suffix == ".ipynb":  # notebooks: migrate/notebook.py (code cells as one module; no --jit)
        from .notebook import convert_notebook

        result = convert_notebook(text, display, keep_outputs=keep_outputs)
    else:
        result = convert_source(text, display, jit=jit, project=project or Project(src.parent))
    if result.errors:
        result.failed_uses = torch_uses(text)
    return result


def not_converted_copy(src: Path, result: FileResult) -> bytes | None:
    """What OUT gets for a file that failed to convert: the torch text under a first line saying why, so the copy
    is never mistaken for converted code (a notebook: a raw cell first; one that cannot be read: nothing)."""
    e = result.errors[0]
    more = f" (and {len(result.errors) - 1} more)" if len(result.errors) > 1 else ""
    why = f"# msmigrate: not converted: {e.where()}: {e.message}{more}; this is the torch file unchanged"
    if src.suffix == ".ipynb":
        import json

        try:
            nb = json.loads(result.code or src.read_text(encoding="utf-8"))
            nb["cells"].insert(0, {"cell_type": "raw", "id": "msmigrate-not-converted", "metadata": {},
                                   "source": why})
        except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
            return None
        return (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    body = result.code.encode("utf-8") if result.code else src.read_bytes()
    return why.encode("utf-8") + b"\n" + body


_PROJECTS: dict[str, Project] = {}


def _convert_job(job):
    src, display, keep_outputs, root = job
    project = _PROJECTS.setdefault(root, Project(Path(root)))  # one per worker process and tree
    return convert_file(Path(src), display, keep_outputs=keep_outputs, project=project)


CONVERTED = (".py", ".ipynb")  # the suffixes convert_path converts; a directory's other files are copied


def plan(src: Path, out: Path | None) -> list[tuple[Path, Path | None, str]]:
    """(source, destination, display name) for each Python file and notebook; other files of a directory are
    copied."""
    if src.is_file():
        if out is None:
            dest = None
        elif out.suffix == src.suffix and src.suffix in CONVERTED:
            dest = out
        else:
            dest = out / src.name
        return [(src, dest, str(src))]
    files = sorted(p for p in src.rglob("*") if p.suffix in CONVERTED and p.is_file()
                   and not any(part.startswith(".") for part in p.relative_to(src).parts))
    return [(p, (out / p.relative_to(src)) if out else None, str(p)) for p in files]


def check_destination(src: Path, out: Path | None) -> None:
    """Refuse to write into the source tree: the user's files are never modified."""
    if out is None:
        return
    s, o = src.resolve(), out.resolve()
    if s.is_file():
        if (o if o.suffix == s.suffix and s.suffix in CONVERTED else o / s.name) == s:
            raise ValueError(f"{out}: output would overwrite the source file {src}")
    elif o == s or s in o.parents:
        raise ValueError(f"{out}: output directory is inside the source tree {src}")


def convert_path(src, out=None, jobs: int = 1, jit: bool = False, keep_outputs: bool = False,
                 progress=None) -> Report:
    """Convert a file or a directory tree (``.py`` files and ``.ipynb`` notebooks). With ``out``, write the
    converted files there (a directory source is mirrored, its other files copied); without it, only report. Never
    writes into ``src``. With ``jit=True`` the training steps of .py files are wrapped in ``ms.jit`` where lint (of
    the file and of the local modules it imports that are converted in the same run) finds nothing blocking.
    ``keep_outputs`` keeps notebook cell outputs. ``progress(total)`` is called once with the number of files, then
    ``progress(None)`` after each converted file (with any ``jobs``)."""
    src, out = Path(src), Path(out) if out is not None else None
    check_destination(src, out)
    items = plan(src, out)
    root = str(src if src.is_dir() else src.parent)
    jobs_in = [(str(s), d, keep_outputs, root) for s, _, d in items]
    tick = progress or (lambda _n: None)
    tick(len(items))
    if jobs > 1 and len(items) > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            results = []
            # a progress bar needs each file as it completes, not a chunk of them at a time
            chunk = 1 if progress else max(1, len(items) // (jobs * 4))
            for result in pool.map(_convert_job, jobs_in, chunksize=chunk):
                results.append(result)
                tick(None)
    else:
        results = []
        for j in jobs_in:
            results.append(_convert_job(j))
            tick(None)
    if jit:  # after all files are converted: a step's model usually lives in a sibling module
        pys = [(item, r) for item, r in zip(items, results) if item[0].suffix == ".py"]
        by_path = {Path(s).resolve(): r for (s, _, _), r in pys}
        for _, result in pys:
            _isolated(result, prepare_jit)
        for _, result in pys:
            _isolated(result, lambda r: apply_jit(r, _local_imports(r, by_path)))
    report = Report(results)
    if out is not None:
        for (s, dest, _), result in zip(items, results):
            if result.errors:  # failed: a copy whose first line says why (or nothing, for an unreadable notebook)
                copy = not_converted_copy(s, result)
                if copy is not None:
                    write_atomic(dest, copy)
                continue
            write_atomic(dest, result.code)
        if src.is_dir():
            for p in sorted(src.rglob("*")):
                rel = p.relative_to(src)
                if p.is_file() and p.suffix not in CONVERTED and not any(
                        part.startswith(".") or part == "__pycache__" for part in rel.parts):
                    (out / rel).parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(p, out / rel)
    return report
