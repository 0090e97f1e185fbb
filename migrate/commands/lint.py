"""``msmigrate lint``: check MindSpore code for static-graph (ms.jit) pitfalls."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "check MindSpore code for static-graph (ms.jit) pitfalls"
DESCRIPTION = """\
Check MindSpore source (a .py file or a folder of them) for code that misbehaves once it is
compiled with ms.jit: Python containers of tensors, tensor-valued if/while, print and debug
branches in construct, the removed ms_function, unseeded dataset shuffling, mixed precision
over frozen convolutions, construct without self, data-dependent shapes. Nothing is executed.

Text output, one finding a line:  path:line:col: RULE-ID message (fix: hint)
--format json prints a list of {path, line, col, rule, message, fix}.
--fix applies only the safe rewrites (ms_function -> jit, clear list accumulation ->
ops.stack(...).sum(axis=0)), writing each changed file atomically, then reports what is left.

exit codes: 0 no findings, 1 findings, 2 usage error or unreadable/unparsable input.
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", help="a MindSpore .py file or a folder of them")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="output format (default: text)")
    parser.add_argument("--fix", action="store_true",
                        help="apply the safe rewrites in place before reporting")


def run(args: argparse.Namespace) -> int:
    from migrate.lint.runner import (LintInputError, fix_source, lint_source, python_files,
                                     read_source, write_atomic)

    try:
        files = python_files(Path(args.path))
        sources = {path: read_source(path) for path in files}
        # parse everything before writing anything: bad input leaves every file untouched
        findings = {path: lint_source(text, str(path)) for path, text in sources.items()}
        if args.fix:
            for path, text in sources.items():
                fixed = fix_source(text, str(path))
                if fixed != text:
                    write_atomic(path, fixed)
                    findings[path] = lint_source(fixed, str(path))
                    print(f"msmigrate lint: fixed {path}", file=sys.stderr)
    except LintInputError as exc:
        print(f"msmigrate lint: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"msmigrate lint: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
    every = [f for path in files for f in findings[path]]
    if args.format == "json":
        print(json.dumps([f.to_dict() for f in every], indent=2))
    else:
        for finding in every:
            print(finding.text())
    return 1 if every else 0
