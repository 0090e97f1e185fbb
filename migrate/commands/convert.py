"""``msmigrate convert``: PyTorch source in, MindSpore source out, with a report."""
from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path

HELP = "convert PyTorch source files to MindSpore (never executes them)"
DESCRIPTION = """\
Convert PyTorch source (a .py file, a .ipynb notebook or a directory) to MindSpore source. Comments and layout
are kept; every torch API use is converted through the mapping table or marked in place with
  # msmigrate: unsupported <api>: <reason>
above its statement (the original line stays and the file still parses). The source tree is never modified.

--jit wraps each converted training step (forward, gradients, optimizer update) in an @ms.jit train_step
function when `msmigrate lint` finds nothing blocking (MS001/MS002/MS003/MS007/MS008, reversed() of a list) in
forward_fn, the functions it calls and the construct methods of the file and of the local modules it imports
(convert the whole project directory so they are seen); otherwise the step stays eager. One line per step says
which, and why (also the `jit` list of --report).

OUT is a directory: `-o out` on model.py writes out/model.py; a directory SRC is mirrored under OUT (other files
copied). Only when SRC is a file and OUT has its suffix (.py, .ipynb) is OUT the output file itself. Without -o,
nothing is written: the summary (and --diff) show what would change.

Notebooks (.ipynb, also inside a directory): the code cells are converted as one module (an import in cell 1
applies to cell 5); IPython magics (%line, %%cell, !shell) are kept as written and never parsed as Python;
markdown and raw cells, cell ids and metadata are kept; markers are comments inside the cell; report lines read
nb.ipynb:cell 3:line 4 (cells counted from 1 in notebook order, markdown included). Code-cell outputs are
cleared (they came from torch) unless --keep-outputs. --jit applies to .py files only.

--html FILE writes a self-contained page (no scripts, no external resources): a summary (files, rate,
unsupported uses per API, the most common reasons, a bar chart) and per file a side-by-side torch | MindSpore
view with each converted line highlighted and each marker with its reason.

A progress bar is drawn on stderr while a directory converts, only when stderr is a terminal, stdout is not
piped (a file is fine) and CI is not set; --quiet turns it off.

exit codes: 0 all converted, 3 some API unsupported, 1 input errors (syntax error, undecodable file, missing
path), 2 usage."""

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_UNSUPPORTED = 0, 1, 2, 3


def add_arguments(p) -> None:
    p.add_argument("src", metavar="SRC", help="a .py file, a .ipynb notebook or a directory")
    p.add_argument("-o", "--out", metavar="OUT", help="output directory (or .py/.ipynb file when SRC is a file)")
    p.add_argument("--report", metavar="FILE.json", help="write the conversion report as JSON")
    p.add_argument("--diff", action="store_true", help="print a unified diff of each converted file")
    p.add_argument("--jit", action="store_true",
                   help="compile each converted training step with ms.jit where lint finds nothing blocking")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="convert with N processes (default 1)")
    p.add_argument("--html", metavar="FILE.html", help="write a self-contained HTML report (summary + side-by-side)")
    p.add_argument("--keep-outputs", action="store_true", help="notebooks: keep code-cell outputs (default: cleared)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")
    from ..onnx import cli as onnx_cli  # graph route: SRC.onnx or --via-onnx TORCH_FILE:NAME

    onnx_cli.add_arguments(p)


def run(args) -> int:
    from ..onnx import cli as onnx_cli

    if onnx_cli.wants_graph_route(args):  # SRC.onnx or --via-onnx: the graph route
        return onnx_cli.run(args)
    from ..api import convert_path, write_atomic
    from ..mapping import MappingError
    src = Path(args.src)
    if not src.exists():
        print(f"msmigrate: {src}: no such file or directory", file=sys.stderr)
        return EXIT_INPUT
    if args.jobs < 1:
        print("msmigrate: --jobs must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    from ..progress import Progress

    try:
        with Progress("converting", "file", quiet=args.quiet) as bar:
            report = convert_path(src, args.out, jobs=args.jobs, jit=getattr(args, "jit", False),
                                  keep_outputs=args.keep_outputs, progress=bar)
    except (ValueError, MappingError) as exc:
        print(f"msmigrate: {exc}", file=sys.stderr)
        return EXIT_USAGE if not isinstance(exc, MappingError) else EXIT_INPUT
    if args.diff:
        for result in report.files:
            if result.errors:
                continue
            original, converted = readable_pair(result)
            sys.stdout.writelines(difflib.unified_diff(
                original.splitlines(keepends=True), converted.splitlines(keepends=True),
                fromfile=result.filename, tofile=f"{result.filename} (MindSpore)"))
    print(report.summary())
    if args.out:
        print(f"written to {args.out}")
    if args.report:
        write_atomic(Path(args.report), json.dumps(report.to_json(), indent=2) + "\n")
    if args.html:
        from ..html_report import render

        write_atomic(Path(args.html), render(report, {r.filename: readable_pair(r) for r in report.files}))
        print(f"HTML report: {args.html}")
    if report.errors:
        return EXIT_INPUT
    return EXIT_UNSUPPORTED if report.unsupported else EXIT_OK


def readable_pair(result) -> tuple[str, str]:
    """(torch text, MindSpore text) of a converted file as a person reads them: a notebook's code cells under
    ``# [cell N]`` lines rather than its JSON."""
    try:
        original = Path(result.filename).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        original = ""
    converted = result.code
    if result.filename.endswith(".ipynb"):
        from ..notebook import code_view

        try:
            original = code_view(original)
        except ValueError:
            pass
        try:
            converted = code_view(converted)
        except ValueError:
            pass
    return original, converted
