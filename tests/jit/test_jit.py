"""``convert --jit``: the converted training step compiled with ms.jit trains exactly like the eager conversion,
and steps that lint (or the step's shape) says jit cannot take stay eager with the reason.

Numerical checks run the converted scripts from real files (ms.jit reads the function's source): the script is
written to tmp_path with its ``# @run`` line replaced by a hook that gives every Cell the same deterministic weights,
then run with runpy in this process, once eager and once with --jit.
"""
import json
import runpy
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from migrate import convert_source

ROOT = Path(__file__).resolve().parents[2]
rng = np.random.default_rng(0)
DATA = {"X": rng.standard_normal((32, 6)).astype(np.float32), "Y": rng.standard_normal((32, 2)).astype(np.float32),
        "IMG": rng.standard_normal((16, 3, 8, 8)).astype(np.float32),
        "LAB": rng.integers(0, 2, 16).astype(np.int64)}


def _init(ns):
    """Same deterministic weights for every network Cell of the script (BN moving statistics keep their init)."""
    import mindspore as ms

    from mindspore.experimental.optim import Optimizer

    for name in sorted(ns):
        cell = ns[name]
        if isinstance(cell, ms.nn.Cell) and not isinstance(cell, Optimizer):  # optimizers are Cells too
            for k, p in enumerate(cell.trainable_params()):
                r = np.random.default_rng(k)
                p.set_data(ms.Tensor((r.standard_normal(p.shape) * 0.3).astype(np.float32)))


def run_file(code: str, path: Path):
    path.write_text(code.replace("# @run", "_jit_test_init(globals())", 1))
    ns = runpy.run_path(str(path), init_globals={"_jit_test_init": _init, **{k: v.copy() for k, v in DATA.items()}})
    import mindspore as ms

    # the optimizer's state (moments, step, lr) is compared too: experimental optimizers are Cells
    weights = {f"{n}.{p.name}": p.asnumpy().copy() for n, c in sorted(ns.items()) if isinstance(c, ms.nn.Cell)
               for p in c.get_parameters()}
    return np.array(ns["losses"], dtype=np.float64), weights


def eager_and_jit(src: str, tmp_path: Path):
    src = textwrap.dedent(src)
    eager = convert_source(src, "train.py")
    jit = convert_source(src, "train.py", jit=True)
    assert not eager.unsupported and not jit.unsupported, (eager.unsupported, jit.code)
    assert eager.jit == [] and "ms.jit" not in eager.code
    return eager, jit


def assert_same_training(src: str, tmp_path: Path, rtol=1e-4):
    eager, jit = eager_and_jit(src, tmp_path)
    assert [s.wrapped for s in jit.jit] == [True], (jit.jit, jit.code)
    assert "@ms.jit" in jit.code and "loss = train_step(" in jit.code.replace("loss, out = train_step(", "loss = train_step(")
    le, we = run_file(eager.code, tmp_path / "eager_train.py")
    lj, wj = run_file(jit.code, tmp_path / "jit_train.py")
    assert len(le) == len(lj) > 0 and np.isfinite(le).all(), le  # (assert_allclose takes nan == nan)
    np.testing.assert_allclose(lj, le, rtol=rtol, err_msg="per-step losses eager vs jit\n" + jit.code)
    assert we.keys() == wj.keys() and we
    for k in we:
        np.testing.assert_allclose(wj[k], we[k], rtol=rtol, atol=1e-6, err_msg=k)
    return jit


HEAD = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
criterion = nn.MSELoss()
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
"""


def test_canonical_adam_steplr_same_losses_and_weights(tmp_path):
    jit = assert_same_training(HEAD + """
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
losses = []
# @run
for epoch in range(3):
    for x, y in batches:
        optimizer.zero_grad()
        out = model(x)
        loss = criterion(out, y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    scheduler.step()
""", tmp_path)
    code = jit.code
    # defined once, right after grad_fn, before the loop; the step lines replaced by one call
    assert code.index("grad_fn = ms.value_and_grad") < code.index("@ms.jit") < code.index("for epoch")
    assert ("def train_step(x, y):\n    loss, grads = grad_fn(x, y)\n    optimizer(grads)\n    return loss\n"
            in code)
    assert "        loss = train_step(x, y)\n        losses.append" in code and "optimizer(grads)" not in \
        code.split("for epoch")[1]


def test_batchnorm_sgd_nesterov_helper_aux_clip_in_function(tmp_path):
    """Conv + BatchNorm (moving statistics updated inside the graph), SGD with momentum / nesterov / weight decay,
    a helper computing the loss, an auxiliary output used after the step, clipping, the loop in a function."""
    jit = assert_same_training("""
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 8 * 8, 2)

    def forward(self, x):
        return self.fc(torch.flatten(F.relu(self.bn(self.conv(x))), 1))

model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)
batches = [(torch.from_numpy(IMG[i:i + 4]), torch.from_numpy(LAB[i:i + 4])) for i in range(0, 16, 4)]

def compute(x, y):
    out = model(x)
    return F.cross_entropy(out, y), out

def train(model, optimizer, batches, losses, correct):
    model.train()
    for x, y in batches:
        loss, out = compute(x, y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
        correct.append(int((out.argmax(1) == y).sum().item()))

losses, correct = [], []
# @run
for epoch in range(2):
    train(model, optimizer, batches, losses, correct)
""", tmp_path)
    assert "has_aux=True" in jit.code and "grads = ops.clip_by_global_norm(grads, 1.0)\n        optimizer(grads)" \
        in jit.code and "loss, out = train_step(x, y)" in jit.code
    assert "moving_mean" in "".join(run_file(jit.code, tmp_path / "again.py")[1])


def _eager(src, **kw):
    r = convert_source(textwrap.dedent(src), "train.py", jit=True)
    assert len(r.jit) == 1, r.jit
    step = r.jit[0]
    assert not step.wrapped and "@ms.jit" not in r.code, (step, r.code)
    assert "loss, grads = grad_fn(" in r.code  # the eager step is left as the training pass wrote it
    return r, step


LOOP = """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
# @run
for x, y in batches:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
"""


def test_tensor_dependent_if_in_forward_stays_eager_with_rule_and_line(tmp_path):
    src = """
import torch
import torch.nn as nn

class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(6, 2)

    def forward(self, x):
        y = self.fc(x)
        if y.sum() > 0:
            y = y * 2
        return y

model = Gated()
criterion = nn.MSELoss()
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
""" + LOOP
    r, step = _eager(src)
    if_line = r.code.splitlines().index("        if y.sum() > 0:") + 1
    assert step.reason.startswith(f"lint MS002 at line {if_line}: condition depends on a tensor value"), step
    assert step.line == r.code.splitlines().index("    loss, grads = grad_fn(x, y)") + 1
    # and it still trains eagerly
    losses, _ = run_file(r.code, tmp_path / "gated.py")
    assert len(losses) == 4 and np.isfinite(losses).all()


def test_print_in_construct_and_in_a_helper_loss_stay_eager():
    r, step = _eager(HEAD.replace("criterion = nn.MSELoss()", """
def criterion(out, y):
    print("loss input", out.shape)
    return ((out - y) ** 2).mean()
""") + LOOP)
    assert "MS003" in step.reason, step


def test_closure_value_reassigned_in_the_loop_stays_eager():
    """ms.jit freezes closed-over Python values at compilation (measured: a closure float changed in the loop
    kept its first value under jit), so a forward_fn reading one that the loop changes is left eager."""
    r, step = _eager(HEAD + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
# @run
for epoch in range(2):
    alpha = 1.0 / (epoch + 1)
    for x, y in batches:
        optimizer.zero_grad()
        loss = alpha * criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
""")
    assert "reads alpha, reassigned after grad_fn" in step.reason, step


def test_gradient_accumulation_stays_eager():
    r, step = _eager(HEAD + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
losses = []
# @run
for i, (x, y) in enumerate(batches):
    loss = criterion(model(x), y) / 2
    loss.backward()
    if (i + 1) % 2 == 0:
        optimizer.step()
        optimizer.zero_grad()
    losses.append(loss.item())
""")
    assert "gradient accumulation" in step.reason, step


def test_several_optimizers_stay_eager():
    r = convert_source(textwrap.dedent("""
import torch
import torch.nn as nn
G = nn.Linear(4, 6)
D = nn.Linear(6, 1)
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
for z, real in batches:
    fake = G(z)
    opt_d.zero_grad()
    d_loss = bce(D(real), torch.ones(8, 1)) + bce(D(fake.detach()), torch.zeros(8, 1))
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = bce(D(fake), torch.ones(8, 1))
    g_loss.backward()
    opt_g.step()
"""), "gan.py", jit=True)
    assert len(r.jit) == 2 and not any(s.wrapped for s in r.jit), r.jit
    assert all("several optimizers" in s.reason for s in r.jit)


def test_reversed_list_in_construct_becomes_a_slice_and_other_reversed_blocks():
    src = """
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.ModuleList([nn.Linear(6, 6) for _ in range(2)])

    def forward(self, x):
        outs = []
        for f in self.fc:
            outs.append(f(x))
        for o in reversed(outs):
            x = x + o
        return x[:, :2]

model = Net()
criterion = nn.MSELoss()
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
""" + LOOP
    r = convert_source(textwrap.dedent(src), "train.py", jit=True)
    assert "for o in outs[::-1]:" in r.code and r.jit[0].wrapped, (r.jit, r.code)
    assert "for o in reversed(outs):" in convert_source(textwrap.dedent(src)).code  # only under --jit
    # a reversed() it cannot prove to be over a local list (here a parameter) blocks jit
    r, step = _eager(src.replace("def forward(self, x):\n        outs = []", "def forward(self, x, outs=[]):\n"
                                                                            "        outs = outs"))
    assert step.reason.startswith("lint MS009"), step


def test_rerun_on_jitted_output_and_report_json(tmp_path):
    r = convert_source(textwrap.dedent(HEAD + LOOP), "train.py", jit=True)
    again = convert_source(r.code, "train.py", jit=True)
    assert again.code == r.code and again.jit[0].wrapped and "already compiled" in again.jit[0].reason
    src = tmp_path / "src"
    src.mkdir()
    (src / "train.py").write_text(textwrap.dedent(HEAD + LOOP))
    out = subprocess.run([sys.executable, "-m", "migrate.cli", "convert", str(src), "-o", str(tmp_path / "out"),
                          "--jit", "--report", str(tmp_path / "r.json")], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert f"{src / 'train.py'}:" in out.stdout and ": jit: wrapped: lint clean" in out.stdout, out.stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["jit"] == [{"file": str(src / "train.py"), "line": r.jit[0].line, "wrapped": True,
                              "reason": r.jit[0].reason}]
    subprocess.run([sys.executable, "-m", "migrate.cli", "convert", str(src), "--report", str(tmp_path / "p.json")],
                   cwd=ROOT, capture_output=True, text=True)
    assert json.loads((tmp_path / "p.json").read_text())["jit"] == []  # without --jit nothing is wrapped


@pytest.mark.slow
def test_crack_unet_with_jit_trains_three_steps(tmp_path):
    out = tmp_path / "ms"
    res = subprocess.run([sys.executable, "-m", "migrate.cli", "convert", "examples/crack_unet/torch", "-o", str(out),
                          "--jit", "--report", str(tmp_path / "r.json")], cwd=ROOT, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    steps = json.loads((tmp_path / "r.json").read_text())["jit"]
    assert [s["wrapped"] for s in steps] == [True], steps
    assert "skips[::-1]" in (out / "model.py").read_text() and "@ms.jit" in (out / "train.py").read_text()
    run = subprocess.run([sys.executable, "train.py", "--steps", "3", "--n-train", "32", "--n-val", "8",
                          "--log-every", "1", "--out", str(tmp_path / "w.ckpt")], cwd=out, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    losses = [float(line.split("loss")[1]) for line in run.stdout.splitlines() if line.startswith("step")]
    assert len(losses) == 3 and all(np.isfinite(losses)), run.stdout


def test_crack_train_py_alone_sees_its_model_and_stays_eager(tmp_path):
    """Converting train.py alone: the model module it imports is converted in memory (as plain convert writes
    it) and linted; its reversed(skips) would not compile, so the step stays eager and says where."""
    from migrate import convert_path

    report = convert_path(ROOT / "examples/crack_unet/torch/train.py", tmp_path, jit=True)
    [step] = report.jit
    assert not step.wrapped and "MS009 at" in step.reason and "model.py:60" in step.reason, step  # the line in the converted model (the torch line: no helper above it)
    assert "@ms.jit" not in (tmp_path / "train.py").read_text() and not (tmp_path / "model.py").exists()
