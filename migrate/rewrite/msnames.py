"""How qualified MindSpore names are written in converted code, and the imports that make them resolve."""
from __future__ import annotations

import re

# qualified prefix -> short name bound by the import; the first matching prefix wins.
MS_PREFIXES = (
    ("mindspore.nn.", "nn"),
    ("mindspore.ops.", "ops"),
    ("mindspore.experimental.optim.", "optim"),
    ("mindspore.dataset.", "ds"),
    ("mindspore.", "ms"),
)
# short name -> import line; `from mindspore import ...` names are merged into one line.
_IMPORTS = {
    "ms": "import mindspore as ms",
    "nn": "from mindspore import {}",
    "ops": "from mindspore import {}",
    "optim": "from mindspore.experimental import optim",
    "ds": "import mindspore.dataset as ds",
}
_SHORT_USE = re.compile(r"(?<![\w.])(" + "|".join(short for _, short in MS_PREFIXES) + r")\.")


def short_name(qualname: str) -> str:
    for long, short in MS_PREFIXES:
        if qualname.startswith(long):
            return f"{short}.{qualname[len(long):]}"
    return "ms" if qualname == "mindspore" else qualname


def names_used(fragment: str) -> set[str]:
    """The short names (``nn``, ``ops``, ``ms``...) an emitted code fragment relies on."""
    return set(_SHORT_USE.findall(fragment))


def import_lines(shorts) -> list[str]:
    """Import statements binding the given short names, in a stable order."""
    shorts = set(shorts)
    lines = []
    if "ms" in shorts:
        lines.append(_IMPORTS["ms"])
    from_ms = [s for s in ("nn", "ops") if s in shorts]
    if from_ms:
        lines.append("from mindspore import " + ", ".join(from_ms))
    for s in ("optim", "ds"):
        if s in shorts:
            lines.append(_IMPORTS[s])
    return lines
