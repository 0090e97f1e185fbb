"""Train mode where torch's default matters (issue 24, migrate/rewrite/mode.py): scripts that build a model and train
it without calling .train() still match torch, with one set_train line after the construction and none in Cells.
run_both copies weights but never aligns modes: setting them is the converted code's business."""
import numpy as np

from tests.training.trainrun import convert, run_both

rng = np.random.default_rng(1)
DATA = {"X": rng.standard_normal((32, 6)).astype(np.float32), "Y": rng.standard_normal((32, 2)).astype(np.float32)}
LINE = "set_train(True)  # torch modules start in training mode"

NET = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Dropout(0.0))
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(self.body(x)) * (2.0 if self.training else 1.0)


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        return torch.tanh(self.fc(x))


def build():
    return Net()
"""

TRAIN = """
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
losses = []
# @run
for x, y in batches * 2:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
"""


def test_script_builds_batchnorm_model_and_trains_without_train_call():
    result, _, _ = run_both(NET + "model = Net()\n" + TRAIN, DATA)
    code = result.code
    assert f"model = Net()\nmodel.{LINE}\n" in code, code
    assert code.count("set_train") == 1 and "def build():\n    return Net()\n" in code, code
    assert "self.set_train" not in code and "BatchNorm1d(16).set_train" not in code


def test_factory_is_library_code_and_its_caller_sets_the_mode():
    result, _, _ = run_both(NET + "model = build()\n" + TRAIN, DATA)
    assert "return Net()\n" in result.code and f"model = build()\nmodel.{LINE}\n" in result.code, result.code


def test_eval_right_after_construction_needs_no_line():
    src = NET + "model = Net()\nmodel.eval()\n" + TRAIN
    result, _, _ = run_both(src, DATA)
    assert f"model.{LINE}" not in result.code and "model.set_train(False)" in result.code


def test_modeless_model_gets_no_line():
    result, _, _ = run_both(NET + "model = Plain()\n" + TRAIN, DATA)
    assert f"model.{LINE}" not in result.code, result.code


def test_check_can_fail():
    """Without the line the converted BatchNorm model trains in inference mode: the losses differ from torch's."""
    import pytest

    import tests.training.trainrun as trainrun

    real = trainrun.convert

    def without_line(src):
        result = real(src)
        result.code = result.code.replace(f"model.{LINE}", "pass")
        return result

    trainrun.convert = without_line
    try:
        with pytest.raises(AssertionError):
            run_both(NET + "model = Net()\n" + TRAIN, DATA)
    finally:
        trainrun.convert = real
    assert convert(NET + "model = Net()\n" + TRAIN).code.count(f"model.{LINE}") == 1


def test_modeless_is_conservative():
    """A Cell built from a layer passed in (``norm_layer(c)``, here through a helper method) may depend on the mode:
    the script gets its line; one built only from Linear and Tanh does not."""
    src = """
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, norm_layer):
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.norm = self._make(norm_layer)

    def _make(self, layer):
        return layer(4)

    def forward(self, x):
        return self.norm(self.fc(x))


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(4, 4), nn.Tanh())

    def forward(self, x):
        return self.fc(x)


a = Block(nn.BatchNorm1d)
b = Plain()
"""
    code = convert(src).code
    assert f"BatchNorm1d)\na.{LINE}\n" in code and f"b.{LINE}" not in code, code
