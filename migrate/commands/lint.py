"""``msmigrate lint``: check MindSpore code for static-graph (ms.jit) pitfalls."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .. import exitcodes

HELP = "check MindSpore code for static-graph (ms.jit) pitfalls"
DESCRIPTION = """\
Check MindSpore source (.py files, .ipynb notebooks or folders of them) for code that misbehaves once
compiled with ms.jit: Python containers of tensors, tensor-valued if/while, print and debug branches in
construct, the removed ms_function, unseeded dataset shuffling, mixed precision over frozen convolutions,
construct without self, data-dependent shapes, reversed() of a list. Nothing is executed.

  msmigrate lint ms/ --format github

--format text (default): one finding a line, path:line:col: RULE-ID message (fix: hint); json: a list
of {path, line, col, rule, message, fix}; github: workflow annotations; sarif: SARIF 2.1.0 for code
scanning. A notebook's code cells are linted as one module; findings name the cell (nb.ipynb:cell 3:line 4).
A one-line summary (files checked, findings) goes to stderr. --fix applies only the safe rewrites
(ms_function -> jit, clear list accumulation -> ops.stack(...).sum(axis=0)), each file written atomically,
then reports what is left. As a pre-commit hook: .pre-commit-hooks.yaml (id msmigrate-lint).
Rules and CI recipes: docs/lint.md.

""" + exitcodes.help_line("findings")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="+", help="MindSpore .py files, .ipynb notebooks or folders of them")
    parser.add_argument("--format", choices=("text", "json", "github", "sarif"), default="text",
                        help="output format (default: text)")
    parser.add_argument("--fix", action="store_true",
                        help="apply the safe rewrites in place before reporting")


def run(args: argparse.Namespace) -> int:
    from migrate.lint.runner import LintInputError, fix_file, lint_file, python_files, read_source, write_atomic

    try:
        files = list(dict.fromkeys(f for target in args.path for f in python_files(Path(target))))
        sources = {path: read_source(path) for path in files}
        # parse everything before writing anything: bad input leaves every file untouched
        findings = {path: lint_file(text, str(path)) for path, text in sources.items()}
        if args.fix:
            for path, text in sources.items():
                fixed = fix_file(text, str(path))
                if fixed != text:
                    write_atomic(path, fixed)
                    sources[path] = fixed
                    findings[path] = lint_file(fixed, str(path))
                    print(f"msmigrate lint: fixed {path}", file=sys.stderr)
    except LintInputError as exc:
        print(f"msmigrate lint: {exc}", file=sys.stderr)
        return exitcodes.USAGE
    except OSError as exc:
        print(f"msmigrate lint: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return exitcodes.USAGE
    every = [f for path in files for f in findings[path]]
    if args.format == "json":
        print(json.dumps([f.to_dict() for f in every], indent=2))
    elif args.format in ("github", "sarif"):
        from migrate.lint import formats

        texts = {str(p): t for p, t in sources.items()}
        render = formats.github if args.format == "github" else formats.sarif_text
        sys.stdout.write(render(every, texts))
    else:
        for finding in every:
            print(finding.text())
    print(summary_line(len(files), every), file=sys.stderr)
    return exitcodes.FAILED if every else exitcodes.OK


def summary_line(n_files: int, findings: list) -> str:
    """``msmigrate lint: 3 files checked, no findings`` (also on a clean tree, so a run is never silent)."""
    checked = f"{n_files} file{'s' if n_files != 1 else ''} checked"
    if not findings:
        return f"msmigrate lint: {checked}, no findings"
    n_with = len({f.path for f in findings})
    return (f"msmigrate lint: {checked}, {len(findings)} finding{'s' if len(findings) != 1 else ''} "
            f"in {n_with} file{'s' if n_with != 1 else ''}")
