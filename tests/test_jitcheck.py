"""jit parity on MindSpore 2.10 CPU: a faithful net passes, planted divergences are caught."""
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from migrate.jitcheck import DIFFERS, OK, VANISHED, compare, jit_parity

ms = pytest.importorskip("mindspore")
from mindspore import nn, ops  # noqa: E402


class Faithful(nn.Cell):
    """Conv + BN + ReLU + Dense: nothing jit-sensitive."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        h = ops.relu(self.bn(self.conv(x)))
        return self.fc(h.mean(axis=(2, 3)))


class ListAccumulation(nn.Cell):
    """The article's 6.2 pattern: tensors gathered in a Python list and summed in construct."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, pad_mode="pad", padding=1, has_bias=True)

    def construct(self, x):
        temp = []
        for i in range(4):
            temp.append(self.conv(x * (i + 1)))
        return temp[0] + temp[1] + temp[2] + temp[3]


class AliasInPlace(nn.Cell):
    """Planted: ``z = y; z += 1`` changes ``y`` in PyNative (in-place on an alias) but only
    rebinds ``z`` in the compiled graph, so loss and gradients differ under jit."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.fc2 = nn.Dense(2, 2)

    def construct(self, x):
        y = self.fc(x)
        z = y
        z += 1.0
        return self.fc2(y * z)


def _x(*shape):
    return ms.Tensor(np.random.RandomState(0).randn(*shape).astype(np.float32))


def test_faithful_net_passes_and_is_left_unchanged():
    net = Faithful()
    before = {p.name: p.asnumpy().copy() for p in net.get_parameters()}
    report = jit_parity(net, [_x(2, 3, 8, 8)])
    assert report.ok, report.format_text()
    assert len(report.gradients) == 6 and report.loss.status == OK
    assert report.format_text().startswith("jit parity: PASS")
    assert all(np.array_equal(p.asnumpy(), before[p.name]) for p in net.get_parameters())
    assert net.training is False


def test_python_list_accumulation_keeps_gradients_on_ms_2_10():
    """Observed: MindSpore 2.10 does NOT lose gradients for the article's list pattern."""
    report = jit_parity(ListAccumulation(), [_x(2, 3, 6, 6)])
    assert report.ok, report.format_text()
    assert all(g.eager_norm > 0 for g in report.gradients)


def test_planted_alias_inplace_divergence_is_caught():
    def loss_fn(out):
        return (out * out).mean()

    report = jit_parity(AliasInPlace(), [_x(4, 3)], loss_fn=loss_fn)
    assert not report.ok
    assert report.outputs[0].status == DIFFERS and report.loss.status == DIFFERS
    assert "fc.weight" in report.differing and "fc.bias" in report.differing
    text = report.format_text()
    assert text.startswith("jit parity: FAIL") and "fc.weight" in text
    assert report.to_dict()["differing"] == report.differing


NO_SELF = """
import numpy as np
import mindspore as ms
from mindspore import nn
from migrate.jitcheck import jit_parity

class NoSelf(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)

    def construct(me, x):
        return me.fc(x)

report = jit_parity(NoSelf(), [np.ones((2, 3), np.float32)])
print("ok" if report.ok else "not ok")
print(report.error)
"""


def test_compile_failure_is_reported_not_raised(tmp_path):
    # own process: a failed MindSpore compile can poison later, unrelated calls
    script = tmp_path / "no_self.py"
    script.write_text(NO_SELF)
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(root)}).stdout
    assert out.splitlines()[-2:] == [
        "not ok", "jit forward failed: TypeError: The parameters number of the function is 2, "
        "but the number of provided arguments is 1."]


def test_compare_classifies_vanished_differs_ok():
    g = np.array([1.0, -2.0])
    assert compare("w", g, np.zeros(2), 1e-5, 1e-6).status == VANISHED
    assert compare("w", g, g * 1.5, 1e-5, 1e-6).status == DIFFERS
    assert compare("w", g, g + 1e-9, 1e-5, 1e-6).status == OK
    assert compare("w", np.zeros(2), np.zeros(2), 1e-5, 1e-6).status == OK
    assert compare("w", g, np.zeros(3), 1e-5, 1e-6).status == DIFFERS
