"""Jupyter notebooks: convert (and lint) the code cells of an ``.ipynb`` as one module.

The code cells of a notebook share one namespace (an import in cell 1 applies to cell 5), so they are joined into
one Python source, converted once with :func:`migrate.api.convert_source` and split back per cell:

* each code cell is preceded by a separator statement ``__msmigrate_cell_<n>__`` (a bare name: a statement the
  rewriter leaves alone, so it stays between the cells whatever the rewriter inserts or moves within one);
* IPython syntax that is not Python is masked, never parsed: a line magic (``%matplotlib inline``), a shell
  escape (``!pip install ...``), an assignment from one (``files = !ls``), help (``obj?``) and a line continued
  from one of them with ``\\`` become one placeholder statement each (``__msmigrate_magic_<k>__``, at the line's
  indentation), restored as written afterwards. They are recognised only where a statement starts (never inside a
  string or brackets). A cell that starts with a cell magic (``%%bash``, ``%%writefile x.py``...) is kept whole as
  written; for the cell magics whose body is Python run in the notebook (``%%time``, ``%%timeit``,
  ``%%capture``, ``%%prun``) only the magic line is masked and the body is converted;
* the text the rewriter puts before the first separator (MindSpore imports added at the top of the module) goes to
  the top of the first code cell that had imports, or of the first code cell.

Cells are numbered from 1 in notebook order, markdown and raw cells included (the nth cell you see): reports read
``nb.ipynb:cell 3:line 4``. Markdown and raw cells, cell ids and all metadata are kept; code-cell outputs and
execution counts are cleared (they were produced by torch) unless ``keep_outputs``. Notebooks are read and written
with nbformat and validated against the notebook schema on both sides.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from .report import FileResult, InputError, Unsupported

CELL = "__msmigrate_cell_{}__"
MAGIC = "__msmigrate_magic_{}__"
_CELL_RE = re.compile(r"__msmigrate_cell_(\d+)__")
_MAGIC_RE = re.compile(r"\s*(__msmigrate_magic_(\d+)__)\s*")
# cell magics whose body is Python that runs in the notebook's namespace: the body is converted
PYTHON_BODY_CELL_MAGICS = {"time", "timeit", "capture", "prun"}
_ASSIGN_MAGIC = re.compile(r"^[A-Za-z_][\w.]*(\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*[%!]")


class NotebookError(Exception):
    """A notebook that cannot be read (not JSON, not valid against the notebook schema)."""


def _code_part(line: str, state: dict) -> str:
    """Advance the scanner ``state`` (open brackets, open triple-quoted string, backslash continuation) over one
    physical line of Python; returns the line's code without its comment (for the ``obj?`` test)."""
    i, n, code = 0, len(line), []
    while i < n:
        quote = state.get("string")
        if quote:  # inside a (triple-quoted) string
            if line[i] == "\\":
                i += 2
                continue
            if line.startswith(quote, i):
                state["string"] = None
                i += len(quote)
                continue
            i += 1
            continue
        ch = line[i]
        if ch == "#":
            break
        if ch in "\"'":
            triple = line[i:i + 3]
            quote = triple if triple in ('"""', "'''") else ch
            state["string"] = quote
            i += len(quote)
            continue
        if ch in "([{":
            state["depth"] = state.get("depth", 0) + 1
        elif ch in ")]}":
            state["depth"] = max(0, state.get("depth", 0) - 1)
        code.append(ch)
        i += 1
    if state.get("string") in ("'", '"'):  # an unterminated one-line string ends with the line
        state["string"] = None
    text = "".join(code).rstrip()
    state["continued"] = text.endswith("\\") and not state.get("string")
    return text


def _is_magic(stripped: str, code: str) -> bool:
    return (stripped.startswith(("%", "!", "?")) or bool(_ASSIGN_MAGIC.match(stripped))
            or (code.endswith("?") and not code.endswith("\\?")))


def mask_cell(source: str, magics: list[str]) -> tuple[str | None, bool]:
    """(masked source, whole cell is a non-Python cell magic). Each masked line's original text is appended to
    ``magics`` and replaced by ``MAGIC.format(index)`` at its indentation."""
    lines = source.split("\n")
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is not None and lines[first].lstrip().startswith("%%"):
        name = lines[first].lstrip()[2:].split(None, 1)[0] if lines[first].strip() != "%%" else ""
        if name not in PYTHON_BODY_CELL_MAGICS:
            return None, True
    out, state, in_magic = [], {}, False
    for line in lines:
        stripped = line.strip()
        at_start = not state.get("depth") and not state.get("string") and not state.get("continued")
        if in_magic or (at_start and stripped and _is_magic(stripped, _code_part(line, dict(state)))):
            indent = line[: len(line) - len(line.lstrip())]
            out.append(indent + MAGIC.format(len(magics)))
            magics.append(line)
            in_magic = line.rstrip().endswith("\\")
            state = {}
            continue
        _code_part(line, state)
        out.append(line)
    return "\n".join(out), False


@dataclass
class Joined:
    """The code cells of a notebook as one Python source, and the way back."""

    source: str
    magics: list[str]
    linemap: dict[int, tuple[int, int]]  # joined line (1-based) -> (cell number, line in cell)
    cells: list[int]  # indices (0-based) of the cells that are in ``source``
    import_cell: int | None  # index of the cell that receives the imports added at the top
    verbatim: set[int] = field(default_factory=set)  # code cells kept whole (non-Python cell magics)
    magic_cells: list[int] = field(default_factory=list)  # cell number of each masked line

    def where(self, line: int) -> tuple[int | None, int]:
        """(cell number, line in cell) of a joined-source line; (None, line) when it is no cell's line."""
        return self.linemap.get(line, (None, line))

    def split(self, text: str, originals: list[str]) -> dict[int, str]:
        """Cell index -> new source, from converted joined ``text``. Raises NotebookError when a separator or a
        masked magic did not come back exactly once."""
        regions: dict[int, list[str]] = {}
        prefix: list[str] = []
        current = prefix
        restored = [0] * len(self.magics)
        lines = text.split("\n")
        if lines and lines[-1] == "":  # the text ends with a newline: the last cell's own
            lines.pop()
        for line in lines:
            m = _CELL_RE.fullmatch(line.strip())
            if m:
                idx = int(m.group(1))
                if idx in regions:
                    raise NotebookError(f"cell {idx + 1}: its separator came back twice")
                current = regions.setdefault(idx, [])
                continue
            mm = _MAGIC_RE.fullmatch(line)
            if mm:  # as written, at the indentation the rewrite gave its placeholder (a moved block moves it)
                k = int(mm.group(2))
                restored[k] += 1
                current.append(line[: len(line) - len(line.lstrip())] + self.magics[k].lstrip())
                continue
            current.append(line)
        missing = [i for i in self.cells if i not in regions]
        if missing:
            raise NotebookError(f"cell {missing[0] + 1}: lost its place in the converted source")
        lost = [k for k, n in enumerate(restored) if n != 1]
        if lost:
            raise NotebookError(f"cell {self.magic_cells[lost[0]]}: the rewrite moved the IPython line "
                                f"{self.magics[lost[0]].strip()!r}; the notebook is left unconverted")
        while prefix and not prefix[-1].strip():
            prefix.pop()
        if prefix and self.import_cell is not None:
            regions[self.import_cell] = prefix + regions[self.import_cell]
        out = {}
        for idx, cell_lines in regions.items():
            body = "\n".join(cell_lines)
            out[idx] = body + "\n" if originals[idx].endswith("\n") else body
        return out


def join(nb) -> Joined:
    """Join ``nb``'s code cells (an nbformat NotebookNode) into one masked source."""
    parts, magics, linemap, cells, magic_cells = [], [], {}, [], []
    verbatim, import_cell, first_code = set(), None, None
    line = 1
    for idx, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        before = len(magics)
        masked, whole = mask_cell(cell.source, magics)
        magic_cells += [idx + 1] * (len(magics) - before)
        if whole:
            verbatim.add(idx)
            continue
        if first_code is None:
            first_code = idx
        if import_cell is None and re.search(r"^\s*(import|from)\s", masked, re.M):
            import_cell = idx
        cells.append(idx)
        parts.append(CELL.format(idx) + "\n")
        line += 1
        body = masked if masked.endswith("\n") or not masked else masked + "\n"
        for k in range(body.count("\n")):
            linemap[line + k] = (idx + 1, k + 1)
        line += body.count("\n")
        parts.append(body)
    return Joined("".join(parts), magics, linemap, cells, import_cell if import_cell is not None else first_code,
                  verbatim, magic_cells)


def read(text: str, display: str):
    """Parse and validate notebook JSON text; NotebookError names the file and the problem."""
    import nbformat

    try:
        nb = nbformat.reads(text, as_version=4)
    except nbformat.ValidationError as exc:
        raise NotebookError(f"invalid notebook: {_first_line(exc)}") from None
    except Exception as exc:  # nbformat raises json errors, NotJSONError, validation errors...
        raise NotebookError(f"not a readable notebook: {_first_line(exc)}") from None
    try:
        nbformat.validate(nb)
    except nbformat.ValidationError as exc:
        raise NotebookError(f"invalid notebook: {_first_line(exc)}") from None
    return nb


def write_text(nb) -> str:
    import nbformat

    nbformat.validate(nb)
    return nbformat.writes(nb) + "\n"


def _first_line(exc: Exception) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def convert_notebook(text: str, display: str = "<notebook>", keep_outputs: bool = False) -> FileResult:
    """Convert notebook JSON ``text``; ``.code`` of the result is the converted notebook's JSON text (unchanged
    input on an error), and report lines name ``cell`` and the line within it."""
    from .api import convert_source

    try:
        nb = read(text, display)
    except NotebookError as exc:
        return FileResult(display, text, errors=[InputError(display, 1, str(exc))])
    joined = join(nb)
    result = convert_source(joined.source, display)
    for record in result.unsupported + result.errors:
        record.cell, record.line = joined.where(record.line)
    if result.errors:
        result.code = text
        return result
    originals = [c.source for c in nb.cells]
    try:
        sources = joined.split(result.code, originals)
    except NotebookError as exc:
        return FileResult(display, text, errors=[InputError(display, 1, str(exc))])
    for idx, cell in enumerate(nb.cells):
        if idx in sources:
            cell.source = sources[idx]
        if cell.cell_type == "code" and not keep_outputs:
            cell.outputs = []
            cell.execution_count = None
    result.code = write_text(nb)
    return result


def code_view(text: str) -> str:
    """The code cells of notebook JSON ``text`` as one readable Python text, each under a ``# [cell N]`` line
    (for diffs and the HTML report)."""
    nb = json.loads(text)
    out = []
    for idx, cell in enumerate(nb.get("cells", [])):
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        out.append(f"# [cell {idx + 1}]\n{src}{'' if src.endswith(chr(10)) or not src else chr(10)}")
    return "".join(out)


# ---- lint ---------------------------------------------------------------------------------------------------------

def lint_notebook(text: str, path: str):
    """Lint findings of a notebook's code cells (one module), each with ``cell`` and the line within it."""
    from dataclasses import replace

    from .lint.runner import LintInputError, lint_source

    try:
        nb = read(text, path)
    except NotebookError as exc:
        raise LintInputError(f"{path}: {exc}") from None
    joined = join(nb)
    try:
        findings = lint_source(joined.source, path)
    except LintInputError as exc:
        m = re.match(rf"{re.escape(path)}:(\d+):(\d+): (.*)", str(exc))
        if m:
            cell, line = joined.where(int(m.group(1)))
            raise LintInputError(f"{path}:cell {cell}:line {line}:{m.group(2)}: {m.group(3)}") from None
        raise
    out = []
    for f in findings:
        cell, line = joined.where(f.line)
        out.append(replace(f, line=line, cell=cell))
    return out


def fix_notebook(text: str, path: str) -> str:
    """Apply lint's safe rewrites to the code cells; returns the new notebook text (``text`` when none apply).
    Outputs are kept: this is the user's own notebook, fixed in place."""
    from .lint.runner import LintInputError, fix_source

    try:
        nb = read(text, path)
    except NotebookError as exc:
        raise LintInputError(f"{path}: {exc}") from None
    joined = join(nb)
    fixed = fix_source(joined.source, path)
    if fixed == joined.source:
        return text
    try:
        sources = joined.split(fixed, [c.source for c in nb.cells])
    except NotebookError as exc:
        raise LintInputError(f"{path}: {exc}") from None
    for idx, src in sources.items():
        nb.cells[idx].source = src
    return write_text(nb)


def json_line(text: str, cell: int, line: int) -> int | None:
    """The line of the notebook *file* that holds line ``line`` of cell ``cell`` (both 1-based), when the file
    stores sources as lists of lines the way Jupyter and nbformat write them (one source line per file line, cell
    keys indented by 3); checked against the parsed notebook, None when it cannot be told."""
    try:
        src = json.loads(text)["cells"][cell - 1]["source"]
    except (ValueError, KeyError, IndexError, TypeError):
        return None
    if not isinstance(src, list) or not (1 <= line <= len(src)):
        return None
    file_lines = text.split("\n")
    starts = [i for i, raw in enumerate(file_lines) if raw.startswith('   "source": [')]
    if len(starts) != len(json.loads(text)["cells"]):
        return None
    target = starts[cell - 1] + line
    try:
        value = json.loads(file_lines[target].strip().rstrip(","))
    except (ValueError, IndexError):
        return None
    return target + 1 if value == src[line - 1] else None
