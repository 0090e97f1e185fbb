"""``msmigrate lint``: check MindSpore code for static-graph (ms.jit) pitfalls."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HELP = "check MindSpore code for static-graph (ms.jit) pitfalls"
DESCRIPTION = """\
Check MindSpore source (a .py file, a .ipynb notebook or a folder of them) for code that misbehaves
once it is compiled with ms.jit: Python containers of tensors, tensor-valued if/while, print and
debug branches in construct, the removed ms_function, unseeded dataset shuffling, mixed precision
over frozen convolutions, construct without self, data-dependent shapes. Nothing is executed.
A notebook's code cells are linted as one module (IPython magics skipped) and findings name the
cell: nb.ipynb:cell 3:line 4:col 5.

--format text (default), one finding a line:  path:line:col: RULE-ID message (fix: hint)
--format json: a list of {path, line, col, rule, message, fix} (+ cell in notebooks).
--format github: GitHub Actions workflow annotations, one a finding:
    ::error file=PATH,line=L,col=C,title=RULE-ID::RULE-ID message (fix: hint)
--format sarif: a SARIF 2.1.0 log (one run, every rule described) for code scanning, e.g.
    msmigrate lint ms/ --format sarif > lint.sarif  (then upload it with github/codeql-action/upload-sarif)
  In a notebook the annotation / SARIF region is the .ipynb file's line holding the cell line
  (line 1 when it cannot be told) and the message starts with "cell N, line L:".
--fix applies only the safe rewrites (ms_function -> jit, clear list accumulation ->
ops.stack(...).sum(axis=0)), writing each changed file atomically, then reports what is left.
As a pre-commit hook: see .pre-commit-hooks.yaml (id msmigrate-lint) and README.

exit codes: 0 no findings, 1 findings, 2 usage error or unreadable/unparsable input.
"""


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
        return 2
    except OSError as exc:
        print(f"msmigrate lint: {exc.filename}: {exc.strerror}", file=sys.stderr)
        return 2
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
    return 1 if every else 0
