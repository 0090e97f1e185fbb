"""MS004: the removed ``ms_function`` decorator and import (article 6.6).

``mindspore.ms_function`` no longer exists in MindSpore 2.10 (``import`` fails); ``ms.jit``
replaces it. The safe fix renames the import and every bare use (``@ms_function``,
``ms_function(fn)``, ``ms.ms_function``); a call with further arguments is flagged but the
file is then left alone, because ``jit`` takes different keyword arguments.
"""
from __future__ import annotations

import libcst as cst

from ..core import Context, Rule, walk
from ..imports import ImportMap

OLD = {"mindspore.ms_function", "mindspore.common.api.ms_function"}


class MsFunction(Rule):
    ID = "MS004"
    NAME = "ms-function-removed"
    MESSAGE = "ms_function was removed from MindSpore 2.x"
    FIX = "use mindspore.jit (msmigrate lint --fix renames it)"
    VALID = [
        """
import mindspore as ms

@ms.jit
def step(x):
    return x
""",
        """
def ms_function(f):  # a local helper of the same name is not MindSpore's
    return f
""",
    ]
    INVALID = [
        """
from mindspore import ms_function  # <- flagged

@ms_function  # <- flagged
def step(x):
    return x
""",
        """
import mindspore as ms

@ms.ms_function  # <- flagged
def step(x):
    return x
""",
    ]

    def check(self, ctx: Context):
        in_imports: set[int] = set()
        for node in walk(ctx.module):
            if isinstance(node, cst.ImportFrom) and not isinstance(node.names, cst.ImportStar):
                in_imports.update(id(n) for n in walk(node))
                module = ctx.imports.qualname(node.module) if node.module else None
                for alias in node.names:
                    if f"{module}.{alias.name.value}" in OLD:
                        yield ctx.finding(type(self), alias)
            elif isinstance(node, (cst.Name, cst.Attribute)) and id(node) not in in_imports \
                    and _is_use(ctx.imports, node):
                yield ctx.finding(type(self), node)

    @staticmethod
    def fix(module: cst.Module, imports: ImportMap) -> cst.Module:
        if not _all_uses_safe(module, imports):
            return module
        return module.visit(_Rename(imports))


def _is_use(imports: ImportMap, node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.Name):
        return node.value in imports.aliases and imports.aliases[node.value] in OLD
    return isinstance(node, cst.Attribute) and node.attr.value == "ms_function" \
        and imports.qualname(node) in OLD


def _all_uses_safe(module: cst.Module, imports: ImportMap) -> bool:
    """Every call of ms_function passes just the function (or nothing)."""
    for node in walk(module):
        if isinstance(node, cst.Call) and imports.qualname(node.func) in OLD:
            if len(node.args) > 1 or any(a.keyword or a.star for a in node.args):
                return False
    return True


class _Rename(cst.CSTTransformer):
    """ms_function -> jit in imports and uses; drops the import if jit is already imported."""

    def __init__(self, imports: ImportMap) -> None:
        self.imports = imports
        self.jit_bound = imports.aliases.get("jit") in {"mindspore.jit", "mindspore.common.api.jit"}

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom):
        if isinstance(updated.names, cst.ImportStar) or updated.module is None:
            return updated
        module = self.imports.qualname(updated.module)
        names = []
        for old, alias in zip(original.names, updated.names):
            if f"{module}.{old.name.value}" in OLD:
                if alias.asname is None and self.jit_bound:
                    continue
                alias = alias.with_changes(name=cst.Name("jit"))
            names.append(alias)
        if not names:
            return cst.RemovalSentinel.REMOVE
        names[-1] = names[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=names)

    def leave_Name(self, original: cst.Name, updated: cst.Name):
        if _is_use(self.imports, original) and original.value == "ms_function":
            return updated.with_changes(value="jit")
        return updated

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute):
        if _is_use(self.imports, original):
            return updated.with_changes(attr=cst.Name("jit"))
        return updated
