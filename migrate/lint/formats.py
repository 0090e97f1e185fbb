"""Lint output for CI: GitHub workflow annotations and SARIF 2.1.0 (code scanning).

A finding in a notebook cell is reported on the line of the ``.ipynb`` file that holds that cell line (the way
Jupyter and nbformat store sources, one line per file line; see ``migrate.notebook.json_line``), or on line 1
when that cannot be told; the message starts with ``cell N, line L:`` either way, and SARIF results carry
``properties.cell`` / ``properties.cellLine``.
"""
from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import quote

from .. import __version__
from .core import Finding
from .registry import RULES

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _file_position(finding: Finding, texts: dict[str, str]) -> tuple[int, int, str]:
    """(file line, column, message prefix) of a finding: the notebook file's line for a cell finding."""
    if finding.cell is None:
        return finding.line, finding.col, ""
    from ..notebook import json_line

    line = json_line(texts.get(finding.path, ""), finding.cell, finding.line)
    prefix = f"cell {finding.cell}, line {finding.line}: "
    return (line, 1, prefix) if line else (1, 1, prefix)


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github(findings: list[Finding], texts: dict[str, str]) -> str:
    """One ``::error file=...,line=...,col=...,title=RULE::message`` workflow command a finding."""
    out = []
    for f in findings:
        line, col, prefix = _file_position(f, texts)
        props = f"file={_escape_property(f.path)},line={line},col={col},title={_escape_property(f.rule)}"
        out.append(f"::error {props}::{_escape_data(f'{prefix}{f.rule} {f.message} (fix: {f.fix})')}")
    return "".join(line + "\n" for line in out)


def _uri(path: str) -> str:
    p = Path(path)
    if p.is_absolute():
        return p.as_uri()
    return quote(p.as_posix())


def sarif(findings: list[Finding], texts: dict[str, str]) -> dict:
    """A SARIF 2.1.0 log with one run: every rule described, one result a finding."""
    index = {rule.ID: i for i, rule in enumerate(RULES)}
    rules = [{
        "id": rule.ID,
        "name": rule.NAME,
        "shortDescription": {"text": rule.MESSAGE},
        "fullDescription": {"text": f"{rule.MESSAGE} (fix: {rule.FIX})"},
        "help": {"text": rule.FIX},
        "defaultConfiguration": {"level": "error"},
    } for rule in RULES]
    results = []
    for f in findings:
        line, col, prefix = _file_position(f, texts)
        result = {
            "ruleId": f.rule,
            "level": "error",
            "message": {"text": f"{prefix}{f.message} (fix: {f.fix})"},
            "locations": [{"physicalLocation": {
                "artifactLocation": {"uri": _uri(f.path)},
                "region": {"startLine": line, "startColumn": col},
            }}],
        }
        if f.rule in index:
            result["ruleIndex"] = index[f.rule]
        if f.cell is not None:
            result["properties"] = {"cell": f.cell, "cellLine": f.line, "cellColumn": f.col}
        results.append(result)
    artifacts = sorted({f.path for f in findings})
    return {
        "version": "2.1.0",
        "$schema": SARIF_SCHEMA,
        "runs": [{
            "tool": {"driver": {"name": "msmigrate-lint", "version": __version__, "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "artifacts": [{"location": {"uri": _uri(p)}} for p in artifacts],
            "results": results,
        }],
    }


def sarif_text(findings: list[Finding], texts: dict[str, str]) -> str:
    return json.dumps(sarif(findings, texts), indent=2) + "\n"
