"""Builders for API cases in the call styles people write (positional, keyword, shuffled keywords, defaults
omitted, arguments from variables); each style is one snippet proven by ``tests.harness.run_case``."""
from __future__ import annotations

import numpy as np

from tests.harness import Case, rng_array

# Inputs shared by the function and method cases (numpy arrays, given to both frameworks as tensors).
X = {"x": rng_array(3, 4)}
POS = {"x": np.abs(rng_array(3, 4)) + 0.1}
UNIT = {"x": np.clip(rng_array(3, 4), -0.9, 0.9)}
BIG = {"x": np.abs(rng_array(3, 4)) + 1.1}
XY = {"x": rng_array(3, 4), "y": rng_array(3, 4, seed=1)}
XYP = {"x": np.abs(rng_array(3, 4)) + 0.5, "y": rng_array(3, 4, seed=1)}
IJ = {"x": rng_array(3, 4, dtype="int64", low=-6, high=7), "y": rng_array(3, 4, dtype="int64", seed=1, low=1, high=4)}
BB = {"x": rng_array(3, 4, dtype="bool"), "y": rng_array(3, 4, dtype="bool", seed=1)}
X3 = {"x": rng_array(2, 3, 4)}
SQ = {"x": rng_array(4, 4) + 3 * np.eye(4, dtype="float32")}
SPECIAL = {"x": np.array([[1.0, -np.inf, np.inf, np.nan], [0.0, -2.5, 3.5, -0.0]], dtype="float32")}

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
