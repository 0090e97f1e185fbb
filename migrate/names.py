"""Import and alias resolution: which local names stand for which torch (or numpy) objects.

This replaces libcst's QualifiedNameProvider (about 1.3 kLOC/s here) with a single table filled while the rewriter
walks the file in source order: every ``import`` form binds local names to qualified names, including imports
inside functions. A name is qualified by following ``Name``/``Attribute`` chains to their root.
"""
from __future__ import annotations

import libcst as cst

#: Roots whose imports we track. ``numpy`` is tracked so that ``np.zeros(3).reshape(...)`` is never taken for a tensor.
TRACKED_ROOTS = ("torch", "numpy")


def dotted(node: cst.BaseExpression) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, else None."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    if isinstance(node, cst.Name):
        parts.append(node.value)
        return ".".join(reversed(parts))
    return None


def _module_name(node) -> str:
    return dotted(node) if node is not None else ""


class Aliases:
    """Local name -> qualified name for tracked roots (``F`` -> ``torch.nn.functional``, ``np`` -> ``numpy``)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def record(self, node: cst.Import | cst.ImportFrom) -> list[str]:
        """Record the bindings of an import statement; return the local names bound to tracked roots."""
        bound = []
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = _module_name(alias.name)
                if full.split(".")[0] not in TRACKED_ROOTS:
                    continue
                if alias.asname is not None:
                    local = alias.asname.name.value
                    self.names[local] = full
                else:  # `import torch.nn` binds `torch`
                    local = full.split(".")[0]
                    self.names[local] = local
                bound.append(local)
        else:
            if node.relative:
                return bound
            module = _module_name(node.module)
            if module.split(".")[0] not in TRACKED_ROOTS or isinstance(node.names, cst.ImportStar):
                return bound
            for alias in node.names:
                name = alias.name.value if isinstance(alias.name, cst.Name) else dotted(alias.name)
                local = alias.asname.name.value if alias.asname is not None else name
                self.names[local] = f"{module}.{name}"
                bound.append(local)
        return bound

    def qualify(self, node: cst.BaseExpression) -> str | None:
        """The qualified name of a Name/Attribute chain rooted at a tracked import, else None."""
        path = dotted(node)
        if path is None:
            return None
        root, _, rest = path.partition(".")
        full = self.names.get(root)
        if full is None:
            return None
        return f"{full}.{rest}" if rest else full

    def is_torch(self, qualname: str | None) -> bool:
        return bool(qualname) and (qualname == "torch" or qualname.startswith("torch."))

    def is_numpy(self, qualname: str | None) -> bool:
        return bool(qualname) and (qualname == "numpy" or qualname.startswith("numpy."))


def canonical(qualname: str) -> str:
    """Fold torch's public re-export paths into the names the table uses."""
    for long, short in _CANONICAL:
        if qualname.startswith(long):
            return short + qualname[len(long):]
    return qualname


_CANONICAL = (
    ("torch.nn.modules.module.", "torch.nn."),
    ("torch.nn.modules.conv.", "torch.nn."),
    ("torch.nn.modules.container.", "torch.nn."),
    ("torch.nn.parameter.", "torch.nn."),
    ("torch.functional.", "torch."),
)
