"""The one object every pass of a file's conversion receives."""
from __future__ import annotations

import ast
import functools
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from ..mapping import Table
from .diagnostics import Diagnostics
from .imports import ImportPlan
from .relevance import Relevance
from .resolve import Project, Resolver


@dataclass
class Facts:
    """Typed facts one pass records for the passes after it (never each other's text)."""

    module_classes: set[str] = field(default_factory=set)  # classes of this file deriving from a torch module
    # the mode pass: statements ``name = <construction>`` whose train mode needs no further line (the Cell's result
    # does not depend on the mode, or the class sets its own), by id, with the name they bind
    mode_settled: dict[int, str] = field(default_factory=dict)


@dataclass
class FileContext:
    filename: str
    source: str
    table: Table
    module: cst.Module  # the parsed input (never changed: diagnostics point into it)
    resolver: Resolver
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    imports: ImportPlan = field(default_factory=ImportPlan)
    facts: Facts = field(default_factory=Facts)
    apis: Counter = field(default_factory=Counter)  # converted API -> uses
    uses: int = 0  # torch API uses found (converted or not)
    # converted statement -> its original statement: later passes report positions with it
    origins: dict = field(default_factory=dict)
    msm_helpers: bool = False  # a pass wrote a call of a rewrite/helpers.py helper (``_msm_out``) itself
    deferred_methods: frozenset = frozenset()  # tensor methods a later pass rewrites (``loss.backward()``)
    # what each parsed statement holds, by kind of rewrite (core/relevance.py; made by the table pass)
    relevance: Relevance = field(default_factory=Relevance)

    @classmethod
    def create(cls, source: str, filename: str, table: Table, module: cst.Module,
               project: Project | None = None) -> "FileContext":
        path = Path(filename)
        resolver = Resolver(project, path if project is not None else None)
        return cls(filename, source, table, module, resolver)

    @functools.cached_property
    def tree(self) -> ast.Module | None:
        """The source parsed by Python's ``ast`` (fast; for pre-passes that need no layout), None if it cannot be."""
        try:
            return ast.parse(self.source)
        except (SyntaxError, ValueError):
            return None

    @functools.cached_property
    def loaded_names(self) -> frozenset:
        """Names the file reads anywhere (and those its ``__all__`` lists): a top-level import of a name outside
        this set is a re-export (``from torch.hub import load_state_dict_from_url`` for sibling modules)."""
        tree = self.tree
        if tree is None:
            return frozenset()
        out = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                out.add(node.id)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
                out.add(node.value)  # __all__ = ["name"], getattr(mod, "name")
        return frozenset(out)

    @functools.cached_property
    def reexported(self) -> frozenset:
        """Names other files import from this one: all of a package's ``__init__.py`` (``*``), else what the
        project's sibling modules import from it."""
        if Path(self.filename).name == "__init__.py":
            return frozenset({"*"})
        project, path = self.resolver.project, self.resolver.path
        if project is None or path is None:
            return frozenset()
        return frozenset(project.imported_from(path))

    @property
    def converted(self) -> int:
        return sum(self.apis.values())

    def ok(self, api: str) -> None:
        self.uses += 1
        self.apis[api] += 1

    def unsupported(self, api: str, reason: str, node: cst.CSTNode, torch_root: str | None = None) -> str:
        """Count and record an unsupported use; returns its marker text."""
        self.uses += 1
        return self.diagnostics.unsupported(api, reason, node, torch_root)
