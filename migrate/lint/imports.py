"""Import and alias resolution for the linter.

A small, fast replacement for libcst's ``QualifiedNameProvider``: one pass over the
module's import statements (at any depth) builds a map from local names to dotted
qualified names, and :meth:`ImportMap.qualname` resolves ``Name`` / ``Attribute``
chains through it::

    import mindspore as ms                 ms.ops.stack   -> mindspore.ops.stack
    from mindspore import ops              ops.cat        -> mindspore.ops.cat
    from mindspore import ms_function as f f              -> mindspore.ms_function

Shadowing by local assignments is ignored, which is the usual linter trade-off.
"""
from __future__ import annotations

import libcst as cst


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


class ImportMap:
    """Local name -> qualified name, built from every import in a module."""

    def __init__(self, module: cst.Module) -> None:
        self.aliases: dict[str, str] = {}
        module.visit(_ImportCollector(self.aliases))

    def qualname(self, node: cst.BaseExpression) -> str | None:
        """Qualified name of an expression such as ``ms.ops.stack``; None if not dotted.

        Names that are not imported resolve to themselves (``print`` -> ``print``).
        """
        name = dotted(node)
        if name is None:
            return None
        head, _, rest = name.partition(".")
        base = self.aliases.get(head, head)
        return f"{base}.{rest}" if rest else base

    def local_name_for(self, qualified: str) -> str | None:
        """A local expression text that refers to ``qualified`` (e.g. ``ops`` or ``ms.ops``)."""
        best = None
        for local, target in self.aliases.items():
            if qualified == target:
                return local
            if qualified.startswith(target + "."):
                candidate = local + qualified[len(target):]
                if best is None or len(candidate) < len(best):
                    best = candidate
        return best


class _ImportCollector(cst.CSTVisitor):
    def __init__(self, aliases: dict[str, str]) -> None:
        self.aliases = aliases

    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            full = dotted(alias.name)
            if full is None:
                continue
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                self.aliases[alias.asname.name.value] = full
            else:
                head = full.split(".")[0]
                self.aliases[head] = head

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = dotted(node.module)
        for alias in node.names:
            name = dotted(alias.name)
            if module is None or name is None:
                continue
            local = name
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                local = alias.asname.name.value
            self.aliases[local] = f"{module}.{name}"
