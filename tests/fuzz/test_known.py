"""The fuzzer's explanation classes apply only where the example shows their cause (tests/fuzz/known.py)."""
import numpy as np

from tests.fuzz import known
from tests.fuzz.strategies import Example


def _ex(**inputs):
    return Example("f", "out = f(x)\n", {k: np.asarray(v) for k, v in inputs.items()}, run="out = f(x)\n")


def test_pinverse_rank_deficient_only():
    singular = np.array([[[0.0, 0.0, 0.0], [3.0, -3.0, -2.0], [3.0, -4.0, -4.0]]], dtype="float32")
    full = np.array([[[2.0, 1.0, 0.0], [0.0, 1.0, 0.5], [1.0, 0.0, 3.0]]], dtype="float32")
    assert known.explain("torch.pinverse", "value", "", _ex(x=singular)) == known.PINV_RANK
    assert known.explain("torch.pinverse", "value", "", _ex(x=full)) == ""
    assert known.explain("torch.linalg.inv", "value", "", _ex(x=singular)) == ""
