"""Invariants of `convert` on real code that no one here wrote (see corpus.py for where it comes from).

For every file: no crash (no internal error), the output parses, no internal name of msmigrate in it, converting
the output again changes nothing, no torch import binds a name MindSpore's imports use (``nn``, ``ops``...), and
CRLF input converts like LF input. Files without torch come back byte for byte. A sample runs here; the whole
corpora run in benchmarks/realcode_invariants.py.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

from migrate import convert_source
from migrate.core.imports import MS_OBJECTS
from migrate.core.resolve import Project
from tests.realcode import corpus


def check(path: Path, project: Project | None = None, crlf: bool = False) -> list[str]:
    """The broken invariants of converting ``path`` (empty when all hold)."""
    src = path.read_text(encoding="utf-8")
    name = str(path)
    result = convert_source(src, filename=name, project=project)
    problems = [f"{name}: {e.message}" for e in result.errors]
    if problems:
        return problems
    out = result.code
    try:
        tree = ast.parse(out)
    except SyntaxError as exc:
        return [f"{name}: output does not parse (line {exc.lineno}: {exc.msg})"]
    if "__msmigrate" in out:
        problems.append(f"{name}: internal name left in the output")
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)) and "torch" in (
                getattr(stmt, "module", None) or " ".join(a.name for a in stmt.names)):
            for a in stmt.names:
                bound = a.asname or a.name.split(".")[0]
                if bound in MS_OBJECTS:
                    problems.append(f"{name}: a kept torch import binds `{bound}`, shadowing MindSpore's")
    again = convert_source(out, filename=name, project=project)
    if again.code != out:
        problems.append(f"{name}: not idempotent (converting the output changes it)")
    if crlf:
        windows = convert_source(src.replace("\r\n", "\n").replace("\n", "\r\n"), filename=name, project=project)
        if windows.code != out.replace("\r\n", "\n").replace("\n", "\r\n"):
            problems.append(f"{name}: CRLF input converts differently from LF input")
    return problems


def test_stdlib_comes_back_byte_for_byte():
    files = corpus.sample(corpus.stdlib_files(), 300)
    changed = []
    for path in files:
        src = path.read_text(encoding="utf-8", errors="strict")
        result = convert_source(src, filename=str(path))
        if result.code != src or result.unsupported or result.api_calls:
            changed.append(str(path))
    assert len(files) >= 300 and not changed, changed[:10]


def test_torch_sources_keep_the_invariants():
    files = corpus.sample(corpus.torch_files(), 70)
    problems = [p for i, f in enumerate(files) for p in check(f, crlf=i % 5 == 0)]
    assert not problems, problems[:20]


@pytest.mark.slow
@pytest.mark.parametrize("requirement", sorted(corpus.PACKAGES))
def test_model_packages_keep_the_invariants(requirement):
    try:
        root = corpus.fetch(requirement)
    except Exception as exc:  # no index reachable: say so, loudly
        pytest.skip(f"cannot download {requirement} for the real-code corpus: {exc}")
    project = Project(root)
    files = corpus.sample(list(root.rglob("*.py")), 45)
    problems = [p for i, f in enumerate(files) for p in check(f, project, crlf=i % 6 == 0)]
    assert not problems, problems[:20]
