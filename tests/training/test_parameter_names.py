"""torch's parameter set, order and names where a converted script observes them (issue 28, docs/training_parameters.md):
parameters() / named_parameters() / buffers() / requires_grad_ go through helpers written into the converted file,
so init loops, weight-decay groups chosen by name and freezing train like torch. Each test runs the torch script and
its conversion from the same initial weights and compares per-step losses and the final weights (running statistics
included: MindSpore holds them as Parameters, which the old conversion let init loops and optimizers touch)."""
import subprocess
import sys

import numpy as np

from tests.training.trainrun import run_both

rng = np.random.default_rng(7)
DATA = {"X": rng.standard_normal((32, 6)).astype(np.float32),
        "Y": rng.standard_normal((32, 2)).astype(np.float32)}

NET = """
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.bn = nn.BatchNorm1d(16)
        self.fc2 = nn.Linear(16, 16)
        self.norm = nn.LayerNorm(16)
        self.head = nn.Linear(16, 2)

    def forward(self, x):
        return self.head(torch.tanh(self.norm(self.fc2(torch.relu(self.bn(self.fc1(x)))))))


model = Net()
criterion = nn.MSELoss()
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
losses = []
"""

LOOP = """
for x, y in batches * 2:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
"""


def test_init_loops_over_parameters_and_names():
    """A constant init of the 1-D parameters would overwrite MindSpore's moving_mean / moving_variance; an init
    chosen by name would miss gamma / beta; the parameter count would include the running statistics."""
    src = NET + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
# @run
for p in model.parameters():
    if p.dim() == 1:
        nn.init.constant_(p, 0.05)
for name, p in model.named_parameters():
    if name.endswith("norm.weight") or name == "bn.weight":
        nn.init.constant_(p, 1.5)
losses.append(float(sum(p.numel() for p in model.parameters())))
losses += [float(b.sum()) for b in model.buffers() if b.dim() == 1]  # num_batches_tracked is 0-d
losses += [float(p.sum()) for p in model.parameters() if p.dim() == 1]
""" + LOOP + """
names = [n for n, _ in model.named_parameters()]
"""
    result, tns, mns = run_both(src, DATA)
    assert "_msmigrate_named_parameters(model)" in result.code and "get_parameters()" not in result.code
    assert tns["losses"][1:3] == [0.0, 16.0]  # the running statistics were not overwritten by the init loop
    _same_names(tns, mns)


def _same_names(tns, mns):
    assert mns["names"] == tns["names"] == ["fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "fc2.weight",
                                            "fc2.bias", "norm.weight", "norm.bias", "head.weight", "head.bias"]


def test_weight_decay_groups_chosen_by_name():
    """no_decay by name: MindSpore's gamma / beta would get weight decay and its moving statistics would join the
    optimizer (its weight decay would shrink them; SGD: Adam would turn the float noise of the gradient of the bias before BatchNorm, zero in exact arithmetic, into whole steps)."""
    src = NET + """
no_decay = ["bias", "norm.weight", "bn.weight"]
groups = [{"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)],
           "weight_decay": 0.5},
          {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)],
           "weight_decay": 0.0}]
optimizer = torch.optim.SGD(groups, lr=0.1, momentum=0.9)
losses.append(float(len(groups[0]["params"]) * 100 + len(groups[1]["params"])))
# @run
""" + LOOP + """
names = [n for n, _ in model.named_parameters()]
"""
    result, tns, mns = run_both(src, DATA)
    _same_names(tns, mns)
    assert tns["losses"][0] == 307.0  # 3 weights decayed, 7 tensors not


def test_freezing_submodules_and_parameters_by_name():
    """requires_grad_(False) on a sub-module freezes its parameters (setting an attribute of a Cell would freeze
    nothing); a loop by name freezes fc1; unfreezing the whole model again must not make MindSpore's running
    statistics trainable."""
    src = NET + """
model.requires_grad_(True)
model.norm.requires_grad_(False)
for name, p in model.named_parameters():
    if name.startswith("fc1."):
        p.requires_grad = False
optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1, momentum=0.9,
                            weight_decay=0.01)
losses.append(float(sum(p.numel() for p in model.parameters() if p.requires_grad)))
# @run
""" + LOOP + """
names = [n for n, _ in model.named_parameters()]
"""
    result, tns, mns = run_both(src, DATA)
    _same_names(tns, mns)
    assert tns["losses"][0] == 16 * 2 + 16 * 16 + 16 + 2 * 16 + 2


def test_checkpoint_of_the_converted_script_loads_in_torch(tmp_path):
    """The converted script's ms.save_checkpoint file -> `msmigrate weights --reverse` -> torch's load_state_dict
    (strict): the torch model then computes what the trained MindSpore model computes."""
    import mindspore as ms
    import torch

    ckpt = tmp_path / "net.ckpt"
    src = NET + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
# @run
""" + LOOP + f"""
torch.save(model.state_dict(), {str(ckpt)!r})
names = [n for n, _ in model.named_parameters()]
"""
    result, tns, mns = run_both(src, DATA)
    pth = tmp_path / "net.pth"
    r = subprocess.run([sys.executable, "-m", "migrate.cli", "weights", str(ckpt), "-o", str(pth), "--reverse",
                        "--quiet"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    fresh = tns["Net"]()
    fresh.load_state_dict(torch.load(pth, weights_only=True), strict=True)
    fresh.eval()
    mns["model"].set_train(False)
    x = DATA["X"][:8]
    np.testing.assert_allclose(fresh(torch.from_numpy(x)).detach().numpy(),
                               mns["model"](ms.Tensor(x)).asnumpy(), rtol=1e-5, atol=1e-6)


def test_the_helper_renames_like_msmigrate_weights():
    """The helper's table is the weights map (migrate/mappings/weights.toml): same cells, same names; its buffers are
    the running statistics. Checked on a network holding each kind of layer, against mindspore_to_torch."""
    import mindspore as ms

    from migrate import helpers
    from migrate.weights import load_rules, mindspore_to_torch

    ns = {"nn": ms.nn, "ms": ms}
    for name in ("torch_names", "torch_parameters", "torch_buffers"):
        exec(helpers.registry()[name].source, ns)
    rules = ns["_msmigrate_pt_name_rules"]()
    for cell, rule in load_rules().by_cell.items():
        if rule.params:
            cell = cell[len("_Msmigrate"):] if cell.startswith("_Msmigrate") else cell
            assert {m: t for m, t, _ in rules[cell]} == rule.ms_to_torch, cell
            assert {t for _, t, b in rules[cell] if b} == {t for t in rule.params if t.startswith("running_")}, cell
    src = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.PReLU(), nn.GroupNorm(2, 4), nn.Flatten(),
                      nn.Linear(16, 8), nn.LayerNorm(8), nn.BatchNorm1d(8))
emb = nn.Embedding(10, 4)
enc = nn.TransformerEncoderLayer(8, 2, 16)
"""
    from tests.training.trainrun import convert

    tns, mns = {}, {}
    exec(src, tns)
    exec(convert(src).code, mns)
    for key in ("model", "emb", "enc"):
        t, m = tns[key], mns[key]
        named = list(ns["_msmigrate_named_parameters"](m))
        assert [n for n, _ in named] == [n for n, _ in t.named_parameters()], key
        assert [n for n, _ in ns["_msmigrate_named_buffers"](m)] == [
            n for n, _ in t.named_buffers() if not n.endswith("num_batches_tracked")], key
        by_weights = mindspore_to_torch(m, t)  # the same tensors under the same names
        for n, p in named:
            np.testing.assert_array_equal(p.asnumpy().reshape(tuple(by_weights[n].shape)), by_weights[n].numpy())


def test_requires_grad_of_an_expression_returns_the_tensor():
    """``x_hat = (alpha * a + (1 - alpha) * b).requires_grad_(True)`` (stargan's gradient penalty input): torch returns
    the tensor; the former ``setattr(...)`` form returned None."""
    from tests.harness import Case, rng_array, run_case

    run_case(Case("Parameter.requires_grad_", "import torch\n# @run\nx_hat = (0.5 * a + 0.5 * b).requires_grad_(True)\n"
                  "out = x_hat * 2\n", inputs={"a": rng_array(2, 3), "b": rng_array(2, 3, seed=1)}))
