"""Reading files, running the rules, applying the safe fixes and writing atomically."""
from __future__ import annotations

from pathlib import Path

import libcst as cst

from .core import Context, Finding
from .imports import ImportMap
from .registry import RULES, fixable_rules


class LintInputError(Exception):
    """Unreadable or unparsable input; the message is one line naming file and line."""


def parse(source: str, path: str) -> cst.Module:
    try:
        return cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        line, col, message = exc.raw_line, exc.raw_column + 1, exc.message
    try:  # CPython's parser names the line a user expects; libcst's may be later
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as err:
        line, col, message = err.lineno or line, err.offset or col, err.msg
    except ValueError:
        pass
    raise LintInputError(f"{path}:{line}:{col}: syntax error: {message}")


def lint_source(source: str, path: str = "<string>", rules=RULES) -> list[Finding]:
    """Findings of ``rules`` on one file's text, sorted by position."""
    ctx = Context(path, parse(source, path))
    findings = [f for rule in rules for f in rule().check(ctx)]
    return sorted(set(findings), key=lambda f: (f.line, f.col, f.rule))


def fix_source(source: str, path: str = "<string>") -> str:
    """Apply every safe rewrite to ``source``; returns the new text (unchanged if none apply)."""
    module = parse(source, path)
    for rule in fixable_rules():
        module = rule.fix(module, ImportMap(module))
    return module.code


def lint_file(source: str, path: str) -> list[Finding]:
    """``lint_source``, or the code cells of a notebook (``.ipynb``) as one module."""
    if path.endswith(".ipynb"):
        from ..notebook import lint_notebook

        return lint_notebook(source, path)
    return lint_source(source, path)


def fix_file(source: str, path: str) -> str:
    """``fix_source``, or the same on a notebook's code cells."""
    if path.endswith(".ipynb"):
        from ..notebook import fix_notebook

        return fix_notebook(source, path)
    return fix_source(source, path)


def python_files(target: Path) -> list[Path]:
    """``target`` itself, or the .py files and .ipynb notebooks below a directory (sorted, hidden dirs such as
    .ipynb_checkpoints skipped)."""
    if target.is_file():
        return [target]
    if target.is_dir():
        return sorted(p for p in target.rglob("*") if p.suffix in (".py", ".ipynb") and p.is_file()
                      and not any(part.startswith(".") for part in p.relative_to(target).parts))
    raise LintInputError(f"{target}: no such file or directory")


def read_source(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LintInputError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        raise LintInputError(f"{path}:{line}: not UTF-8 text ({exc.reason})") from None


def write_atomic(path: Path, text: str) -> None:
    """Rewrite a source file atomically, keeping its mode (migrate/io.py)."""
    from ..io import write_atomic as write

    write(path, text, keep_mode=True)
