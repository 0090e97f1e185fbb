"""Import requests, applied once at the end of a file's conversion.

The passes remove torch imports as they walk (``remove``), say which MindSpore short names their emitted code
uses (``need``: ``ms``, ``nn``, ``ops``, ``optim``, ``ds``), and which torch names unconverted code still needs
(``keep``). ``apply`` then inserts the import statements into the tree where the first module-level torch import
stood (after the docstring and ``from __future__`` imports when there was none): MindSpore's first, then the kept
torch ones. A kept torch name never shadows a MindSpore name: ``nn`` stays torch's only as ``torch_nn``
(``from torch import nn as torch_nn``), and the unconverted lines are rewritten to use that name. Nothing is
inserted that the file already binds to the same object, so converting converted code adds nothing.
"""
from __future__ import annotations

import libcst as cst

from .cst_util import dotted

KEPT_COMMENT = "# msmigrate: kept for the unconverted APIs marked below"
#: The one short-name table: each short name converted code writes (``ms.``, ``nn.``...), the object it stands for and
#: the import line binding it. Emitted code (rewrite/msnames.py), the import plan here and the helpers
#: (migrate/helpers) all read it; ``from mindspore import nn, ops`` is merged into one line.
SHORT_NAMES = {
    "ms": ("mindspore", "import mindspore as ms"),
    "nn": ("mindspore.nn", "from mindspore import nn"),
    "ops": ("mindspore.ops", "from mindspore import ops"),
    "optim": ("mindspore.experimental.optim", "from mindspore.experimental import optim"),
    "ds": ("mindspore.dataset", "import mindspore.dataset as ds"),
}
#: helpers' bodies may also use numpy (never a MindSpore name: a kept torch binding is not renamed for it)
HELPER_SHORT_NAMES = {**{s: SHORT_NAMES[s] for s in ("ms", "ops", "nn")}, "np": ("numpy", "import numpy as np")}
#: MindSpore short names and the objects they must stand for.
MS_OBJECTS = {short: obj for short, (obj, _) in SHORT_NAMES.items()}


def kept_alias(local: str) -> str:
    """The name a kept torch binding gets: its own, unless MindSpore's imports use it (``nn`` -> ``torch_nn``)."""
    return f"torch_{local}" if local in MS_OBJECTS or local == "mindspore" else local


def ms_import_lines(shorts) -> list[str]:
    """Import statements binding the given MindSpore short names, in a stable order (``nn`` and ``ops`` merged)."""
    shorts = set(shorts)
    lines = [SHORT_NAMES["ms"][1]] if "ms" in shorts else []
    from_ms = [s for s in ("nn", "ops") if s in shorts]
    if from_ms:
        lines.append("from mindspore import " + ", ".join(from_ms))
    lines += [SHORT_NAMES[s][1] for s in ("optim", "ds") if s in shorts]
    return lines


def torch_import_line(alias: str, qualname: str) -> str:
    if qualname == "torch":
        return "import torch" if alias == "torch" else f"import torch as {alias}"
    module, _, name = qualname.rpartition(".")
    return f"from {module} import {name}" + ("" if alias == name else f" as {alias}")


class ImportPlan:
    def __init__(self) -> None:
        self.needed: set[str] = set()
        self.kept: dict[str, str] = {}  # alias -> qualified torch name
        self.removed: dict[str, str] = {}  # local name -> qualified name, of removed torch imports
        self.torch_names: dict[str, str] = {}  # local torch names unconverted code used -> qualified name
        self.anchor: int | None = None  # module body index where the first removed top-level import stood
        self.carry: list[cst.EmptyLine] = []  # comment lines above removed import statements

    def need(self, shorts) -> None:
        self.needed.update(shorts)

    def torch_name(self, local: str, qualname: str) -> str:
        """Unconverted code uses the torch name ``local`` (bound to ``qualname``); returns the name it must use.
        Its import is kept if a diagnostic still names it when the file is done (``keep_for``)."""
        self.torch_names[local] = qualname
        return kept_alias(local)

    def keep_for(self, diagnostics) -> None:
        """Keep the torch imports that the unconverted uses still recorded need."""
        for record in diagnostics.records:
            local = record.torch_root
            if local is not None and local in self.torch_names:
                self.kept[kept_alias(local)] = self.torch_names[local]

    def remove(self, bound: list[tuple[str, str]], top_index: int | None, comments) -> None:
        for local, q in bound:
            self.removed.setdefault(local, q)
        if top_index is not None and self.anchor is None:
            self.anchor = top_index
        self.carry.extend(comments)

    def lines(self, existing: dict[str, str | None]) -> tuple[list[str], list[str]]:
        """(MindSpore import lines, kept torch import lines) given the module-level bindings of the tree."""
        ms = ms_import_lines(s for s in self.needed if existing.get(s) != MS_OBJECTS[s])
        torch = [f"{torch_import_line(a, q)}  {KEPT_COMMENT}" for a, q in sorted(self.kept.items())]
        return ms, torch

    def apply(self, module: cst.Module, existing: dict[str, str | None]) -> cst.Module:
        ms, torch = self.lines(existing)
        stmts = [cst.parse_statement(line + "\n") for line in ms + torch]
        body = list(module.body)
        at = self.anchor if self.anchor is not None else after_preamble(body)
        at = min(at, len(body))
        carry = list(self.carry)
        if stmts:
            stmts[0] = stmts[0].with_changes(leading_lines=[*carry, *stmts[0].leading_lines])
        elif any(ln.comment is not None for ln in carry):
            carry = [ln for ln in carry if ln.comment is not None]
            if at < len(body):
                body[at] = body[at].with_changes(leading_lines=[*carry, *body[at].leading_lines])
                return module.with_changes(body=body)
            return module.with_changes(footer=[*carry, *module.footer])
        if not stmts:
            return module
        body[at:at] = stmts
        return module.with_changes(body=body)


def module_bindings(module: cst.Module) -> dict[str, str | None]:
    """Module-level names bound by imports (local -> qualified name) and by anything else (local -> None)."""
    out: dict[str, str | None] = {}
    for stmt in module.body:
        if isinstance(stmt, cst.SimpleStatementLine):
            for s in stmt.body:
                if isinstance(s, cst.Import):
                    for a in s.names:
                        full = dotted(a.name) or ""
                        if a.asname is not None:
                            out[a.asname.name.value] = full
                        else:
                            out.setdefault(full.split(".")[0], full.split(".")[0])
                elif isinstance(s, cst.ImportFrom) and not isinstance(s.names, cst.ImportStar):
                    mod = ("." * len(s.relative)) + (dotted(s.module) if s.module is not None else "")
                    for a in s.names:
                        name = a.name.value if isinstance(a.name, cst.Name) else dotted(a.name)
                        out[a.asname.name.value if a.asname else name] = f"{mod}.{name}"
                elif isinstance(s, (cst.Assign, cst.AnnAssign)):
                    for t in (s.targets if isinstance(s, cst.Assign) else [s]):
                        if isinstance(t.target, cst.Name):
                            out.setdefault(t.target.value, None)
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            out.setdefault(stmt.name.value, None)
    return out


def after_preamble(body) -> int:
    """Index after the module docstring and ``from __future__`` imports."""
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine) and stmt.body and (
            (isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value, (cst.SimpleString,
                                                                                   cst.ConcatenatedString)))
            or (isinstance(stmt.body[0], cst.ImportFrom) and stmt.body[0].module is not None
                and dotted(stmt.body[0].module) == "__future__")
        ):
            continue
        return i
    return len(body)
