"""``msmigrate convert``: PyTorch source in, MindSpore source out, with a report."""
from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path

from .. import exitcodes

HELP = "convert PyTorch source files to MindSpore (never executes them)"
DESCRIPTION = """\
Convert PyTorch source (a .py file, a .ipynb notebook or a directory) to MindSpore source. Comments and
layout are kept; each torch API use is converted through the mapping table, or marked above its statement
  # msmigrate: unsupported <api>: <reason>
(the original line stays, the file still parses). Never executes the code; never writes into SRC.

  msmigrate convert repo/ -o repo_ms/ --report convert.json --html convert.html

OUT is a directory (a directory SRC is mirrored there, its other files copied); only when SRC is a file and
OUT has its suffix is OUT the output file. Without -o nothing is written (--diff shows the changes).
A file that fails to convert (syntax error, undecodable bytes, internal error) counts as failed in the
summary, the rate and the exit code; its copy in OUT starts with a `# msmigrate: not converted` line.
The summary opens with "fix these first": markers on a model's forward and the training step first,
code that nothing calls last. Notebooks: the code cells convert as one module, magics are kept.
--jit wraps each training step in ms.jit where `msmigrate lint` finds nothing blocking.
Details: docs/convert.md, docs/training.md.

""" + exitcodes.help_line("a file failed to convert", "some torch API unsupported (markers left)")

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_UNSUPPORTED = (exitcodes.OK, exitcodes.FAILED, exitcodes.USAGE,
                                                  exitcodes.UNSUPPORTED)


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
        return EXIT_USAGE
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
        return EXIT_USAGE
    # the report files first: a reader that leaves early (`msmigrate convert ... | head`) must not cost them
    if args.report:
        write_atomic(Path(args.report), json.dumps(report.to_json(), indent=2) + "\n")
    if args.html:
        from ..html_report import render

        write_atomic(Path(args.html), render(report, {r.filename: readable_pair(r) for r in report.files}))
    if args.diff:
        for result in report.files:
            if result.errors:
                continue
            original, converted = readable_pair(result)
            sys.stdout.writelines(difflib.unified_diff(
                original.splitlines(keepends=True), converted.splitlines(keepends=True),
                fromfile=result.filename, tofile=f"{result.filename} (MindSpore)"))
    print(report.summary())
    if any(runs_mindspore(r) for r in report.files):
        print(CPU_NOTE)
    if args.out:
        print(f"written to {args.out}")
    if args.html:
        print(f"HTML report: {args.html}")
    if report.errors:
        return EXIT_INPUT
    return EXIT_UNSUPPORTED if report.unsupported else EXIT_OK


# Converted scripts are not edited for speed (the output stays what a MindSpore engineer writes; the setting is the
# machine's, not the model's): the summary says it once. Measured: the converted crack U-Net, batch 4, 3x64x64,
# forward+backward on a 2-core AVX-512 machine: 2,863 ms a step with the variable, 19,950 ms without (7x).
CPU_NOTE = ("note: on a CPU with AVX-512, MindSpore 2.10 trains and runs these scripts several times faster with "
            "ONEDNN_MAX_CPU_ISA=AVX2 in the environment (export it before running them; docs/convert.md)")


def runs_mindspore(result) -> bool:
    """An entry script of the converted code: it trains (a training step was converted) or runs as a program."""
    if result.failed or not result.code:
        return False
    return ("value_and_grad(" in result.code or "__name__ == '__main__'" in result.code
            or '__name__ == "__main__"' in result.code)


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
