"""Static-graph (``ms.jit``) readiness checks for MindSpore code: ``msmigrate lint``.

Public API::

    from migrate.lint import lint_source, fix_source, RULES
    findings = lint_source(text, "model.py")      # list[Finding]
    fixed = fix_source(text, "model.py")          # the safe rewrites applied

Each rule lives in ``migrate/lint/rules/<name>.py`` with its VALID / INVALID examples.
"""
from .core import Finding, Rule
from .registry import RULES
from .runner import LintInputError, fix_source, lint_source

__all__ = ["Finding", "Rule", "RULES", "LintInputError", "fix_source", "lint_source"]
