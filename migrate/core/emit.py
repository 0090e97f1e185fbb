"""Code a pass emits, parsed through here so that the MindSpore short names it uses (``ms.``, ``ops.``...) are
requested from the import plan of the file being converted (``pipeline`` sets it for the duration of a file)."""
from __future__ import annotations

import contextvars

import libcst as cst

from ..rewrite.msnames import names_used

_PLAN = contextvars.ContextVar("msmigrate_import_plan", default=None)


def active(plan):
    """Make ``plan`` receive the requests of code emitted until the returned token is reset."""
    return _PLAN.set(plan)


def reset(token) -> None:
    _PLAN.reset(token)


def _request(src: str) -> None:
    plan = _PLAN.get()
    if plan is not None:
        plan.need(names_used(src))


def statement(src: str) -> cst.BaseStatement:
    _request(src)
    return cst.parse_statement(src)


def expression(src: str) -> cst.BaseExpression:
    _request(src)
    return cst.parse_expression(src)
