"""Helpers shared by the safe rewrites of ``msmigrate lint --fix``."""
from __future__ import annotations

import libcst as cst

from .imports import ImportMap


def ensure_ops(module: cst.Module, imports: ImportMap) -> tuple[cst.Module, str]:
    """Return (module, expression text for ``mindspore.ops``), adding
    ``from mindspore import ops`` after the last top-level import when nothing binds it."""
    local = imports.local_name_for("mindspore.ops")
    if local is not None:
        return module, local
    body = list(module.body)
    last_import = -1
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and any(
                isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body):
            last_import = i
    body.insert(last_import + 1, cst.parse_statement("from mindspore import ops\n"))
    return module.with_changes(body=body), "ops"
