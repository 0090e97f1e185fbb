"""Findings of the fuzzer that are explained: each with its measured cause and how it was resolved.

``explain(target, kind, detail, example)`` returns the explanation text, or "" for an unexplained finding. An
explanation is never "tolerance": each names what differs and why the conversion cannot or need not change it.
"""
from __future__ import annotations

import re

TORCH_RAISES = ""

# (target regex, kind, detail regex, explanation)
KNOWN: list[tuple[str, str, str, str]] = [
]


def explain(target: str, kind: str, detail: str, example=None) -> str:
    if kind == "torch_raises":
        return TORCH_RAISES
    for t, k, d, why in KNOWN:
        if re.fullmatch(t, target) and k == kind and re.search(d, detail or ""):
            return why
    return ""

# torch refusing an input is not a wrong number: the torch program stops there, so no result of a working torch
# program is misrepresented. Listed in the report, counted apart from the findings that need a resolution.
TORCH_RAISES = ("torch refuses this input (the torch program stops here); the converted code computing a value "
                "misrepresents no result of a working torch program")
