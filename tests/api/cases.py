"""Builders for API cases in the call styles people write (positional, keyword, shuffled keywords, defaults
omitted, arguments from variables); each style is one snippet proven by ``tests.harness.run_case``."""
from __future__ import annotations

from tests.harness import Case, rng_array

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


def layer_cases(api, ctors, shape=(2, 3, 8, 8), prelude="", run="out = m(x)", names=("out",), **kw):
    """One case per constructor expression; the layer is built in setup (weights copied), then called."""
    inputs = kw.pop("inputs", None) or {"x": rng_array(*shape)}
    return [
        Case(api, f"{HEADER}{prelude}\nm = {ctor}\n# @run\n{run}\n", names=names, inputs=inputs,
             id=f"{api}:{ctor}", **kw)
        for ctor in ctors
    ]


def call_cases(api, calls, inputs, prelude="", names=("out",), **kw):
    """One case per call expression, assigned to ``out``."""
    return [
        Case(api, f"{HEADER}{prelude}\n# @run\nout = {call}\n", names=names, inputs=inputs, id=f"{api}:{call}", **kw)
        for call in calls
    ]
