"""How qualified MindSpore names are written in converted code, and the imports that make them resolve."""
from __future__ import annotations

import re

from ..core.imports import MS_OBJECTS

# qualified prefix -> short name bound by the import (core/imports.py's table); the longest matching prefix wins.
MS_PREFIXES = tuple(sorted(((obj + ".", short) for short, obj in MS_OBJECTS.items()), key=lambda p: -len(p[0])))
_SHORT_USE = re.compile(r"(?<![\w.])(" + "|".join(short for _, short in MS_PREFIXES) + r")\.")


def short_name(qualname: str) -> str:
    for long, short in MS_PREFIXES:
        if qualname.startswith(long):
            return f"{short}.{qualname[len(long):]}"
    return "ms" if qualname == "mindspore" else qualname


def names_used(fragment: str) -> set[str]:
    """The short names (``nn``, ``ops``, ``ms``...) an emitted code fragment relies on."""
    return set(_SHORT_USE.findall(fragment))
