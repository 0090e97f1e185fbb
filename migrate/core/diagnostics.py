"""One store for what could not be converted: the only writer of ``# msmigrate:`` markers.

A pass reports ``(api, reason, node)``; the node is the original node (from the parsed input), so the report's
line numbers are the user's. The marker text is made here, always on one line: a reason that spans lines (a
docstring quoted in a message) is folded, so the comment never breaks the file.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import libcst as cst

MARKER = "# msmigrate: unsupported"
_SPACE = re.compile(r"\s+")


def one_line(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def marker_text(api: str, reason: str) -> str:
    return one_line(f"{MARKER} {api}: {reason}")


def marker_line(api: str, reason: str) -> cst.EmptyLine:
    return cst.EmptyLine(comment=cst.Comment(marker_text(api, reason)))


@dataclass
class Diagnostic:
    api: str
    reason: str
    node: cst.CSTNode  # a node of the original tree, for the line number
    torch_root: str | None = None  # the local torch name the unconverted code still uses (its import is kept)


class Diagnostics:
    def __init__(self) -> None:
        self.records: list[Diagnostic] = []

    def unsupported(self, api: str, reason: str, node: cst.CSTNode, torch_root: str | None = None) -> str:
        """Record an unsupported use; returns the marker comment for the statement that holds it."""
        reason = one_line(reason)
        self.records.append(Diagnostic(api, reason, node, torch_root))
        return marker_text(api, reason)

    def withdraw(self, keep) -> None:
        """Drop the records for which ``keep(record)`` is false (a later pass converted that use after all)."""
        self.records = [r for r in self.records if keep(r)]

    def __len__(self) -> int:
        return len(self.records)


def _api_of(text: str) -> str:
    return text.split(": ", 2)[1] if text.count(": ") >= 2 else text


def new_markers(leading_lines, texts) -> list[cst.EmptyLine]:
    """Marker lines for ``texts`` that the statement does not carry yet. A marker for the same API counts as
    present (its reason may quote code that the first conversion changed), so converting converted code adds
    nothing."""
    existing = {_api_of(ln.comment.value) for ln in leading_lines
                if ln.comment and ln.comment.value.startswith(MARKER)}
    out = []
    for t in dict.fromkeys(texts):
        if _api_of(t) not in existing:
            existing.add(_api_of(t))
            out.append(cst.EmptyLine(comment=cst.Comment(t)))
    return out


def add_markers(stmt: cst.BaseStatement, texts) -> cst.BaseStatement:
    """``stmt`` with marker comments above it (each once: converting converted code adds nothing)."""
    new = new_markers(stmt.leading_lines, texts)
    if not new:
        return stmt
    return stmt.with_changes(leading_lines=[*stmt.leading_lines, *new])
