"""The remaining training patterns, proved like the canonical loop: per-step losses and final weights of the torch
script and of its conversion, same initial weights, same numpy data (tests/training/trainrun.py)."""
import numpy as np

from tests.harness import assert_unsupported
from tests.training.trainrun import convert, run_both

rng = np.random.default_rng(1)
DATA = {"X": rng.standard_normal((32, 6)).astype(np.float32), "Y": rng.standard_normal((32, 2)).astype(np.float32),
        "Z": rng.standard_normal((32, 4)).astype(np.float32)}

HEAD = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
criterion = nn.MSELoss()
batches = [(torch.from_numpy(X[i:i + 4]), torch.from_numpy(Y[i:i + 4])) for i in range(0, 32, 4)]
"""


# -- 1. gradient accumulation ----------------------------------------------------------------------------------
def test_accumulation_every_k_steps_with_clip():
    src = HEAD + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-3)
accum_steps = 4
losses = []
# @run
optimizer.zero_grad()
for epoch in range(2):
    for i, (x, y) in enumerate(batches):
        out = model(x)
        loss = criterion(out, y)
        loss = loss / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
            optimizer.step()
            optimizer.zero_grad()
        losses.append(loss.item())
"""
    result, _, _ = run_both(src, DATA)
    code = result.code
    assert "accum_grads = tuple(a + g for a, g in zip(accum_grads, grads))" in code
    assert "accum_grads = ops.clip_by_global_norm(accum_grads, 0.5)" in code
    assert "optimizer(accum_grads)" in code and "zero_grad" not in code and ".backward(" not in code


def test_accumulation_over_micro_batches_adam_model_zero_grad():
    src = HEAD + """
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
losses = []
# @run
for x, y in batches * 2:
    model.zero_grad()
    for xc, yc in zip(x.chunk(2), y.chunk(2)):
        loss = criterion(model(xc), yc) / 2
        loss.backward()
        losses.append(loss.item())
    optimizer.step()
"""
    result, _, _ = run_both(src, DATA, weight_atol=1e-4)
    assert "optimizer(accum_grads)" in result.code


def test_no_zero_grad_accumulates_forever_like_torch():
    src = HEAD + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
losses = []
# @run
for x, y in batches:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
"""
    result, _, _ = run_both(src, DATA)
    assert "optimizer(accum_grads)" in result.code


# -- 2. two optimizers (GAN) -----------------------------------------------------------------------------------
GAN = """
import torch
import torch.nn as nn
G = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6))
D = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
criterion = nn.BCEWithLogitsLoss()
opt_g = torch.optim.Adam(G.parameters(), lr=1e-2, betas=(0.5, 0.999))
opt_d = torch.optim.SGD(D.parameters(), lr=0.05, momentum=0.5)
ones, zeros = torch.ones(4, 1), torch.zeros(4, 1)
batches = [(torch.from_numpy(X[i:i + 4]), torch.from_numpy(Z[i:i + 4])) for i in range(0, 32, 4)]
losses = []
# @run
"""


def test_gan_two_optimizers_detach():
    src = GAN + """
for epoch in range(2):
    for real, z in batches:
        fake = G(z)
        opt_d.zero_grad()
        loss_d = criterion(D(real), ones) + criterion(D(fake.detach()), zeros)
        loss_d.backward()
        opt_d.step()
        opt_g.zero_grad()
        loss_g = criterion(D(fake), ones)
        loss_g.backward()
        opt_g.step()
        losses += [loss_d.item(), loss_g.item()]
"""
    result, _, _ = run_both(src, DATA, weight_atol=1e-4)
    code = result.code
    assert "ms.value_and_grad(forward_fn, None, opt_d.parameters" in code
    assert "ms.value_and_grad(forward_fn_2, None, opt_g.parameters" in code
    assert code.index("opt_d(grads)") < code.index("grads = grad_fn_2(z)")


def test_gan_dcgan_style_model_zero_grad():
    src = GAN + """
for real, z in batches * 2:
    D.zero_grad()
    err_real = criterion(D(real), ones)
    fake = G(z)
    err_fake = criterion(D(fake.detach()), zeros)
    err_d = err_real + err_fake
    err_d.backward()
    opt_d.step()
    G.zero_grad()
    err_g = criterion(D(fake), ones)
    err_g.backward()
    opt_g.step()
    losses += [err_real.item(), err_fake.item(), err_g.item()]
"""
    run_both(src, DATA, weight_atol=1e-4)


def test_two_backwards_gradients_not_zeroed_between_is_unsupported():
    src = GAN + """
for real, z in batches:
    opt_d.zero_grad()
    opt_g.zero_grad()
    fake = G(z)
    loss_d = criterion(D(real), ones) + criterion(D(fake), zeros)
    loss_d.backward()
    opt_d.step()
    loss_g = criterion(D(fake), ones)
    loss_g.backward()
    opt_g.step()
"""
    assert_unsupported(src, "torch.Tensor.backward", "not zeroed")


# -- 4. learning-rate edits through param_groups ------------------------------------------------------------------
def test_param_groups_lr_edit_warmup():
    """mindspore.experimental.optim keeps torch's ``param_groups`` (list of dicts, 'lr' a Parameter) and reads the
    group's lr at every step, so a manual warm-up written against param_groups converts unchanged."""
    src = HEAD + """
optimizer = torch.optim.SGD([{'params': model[0].parameters(), 'lr': 0.1}, {'params': model[2].parameters()}],
                            lr=0.05, momentum=0.9)
losses = []
# @run
for step, (x, y) in enumerate(batches * 2):
    for g in optimizer.param_groups:
        g['lr'] = 0.05 * min(1.0, (step + 1) / 4)
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
"""
    result, _, _ = run_both(src, DATA)
    assert "optimizer.param_groups" in result.code


# -- the real script -----------------------------------------------------------------------------------------------
REAL = """
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(6, 16)
        self.body = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Dropout(p=0.0))
        self.head = nn.Linear(16, 3)
        self.aux = nn.Linear(16, 1)

    def forward(self, x):
        h = torch.tanh(self.stem(x))
        h = self.body(h) + h
        return self.head(h), self.aux(h.detach())   # detached branch: aux does not train the trunk


torch.manual_seed(0)
model = Net()
model.stem.weight.requires_grad_(False)               # frozen layer
labels = (np.abs(X[:, 0] * 3).astype(np.int64) % 3)
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(labels[i:i + 8]).long(), torch.from_numpy(Y[i:i + 8, :1]))
           for i in range(0, 32, 8)]
optimizer = torch.optim.{opt}
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2, gamma=0.5)
losses = []
# @run


def train_epoch(model, optimizer):
    model.train()
    for x, t, r in batches:
        logits, reg = model(x)
        loss = F.cross_entropy(logits, t) + 0.1 * F.mse_loss(reg, r)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        optimizer.step()
        losses.append(loss.item())


@torch.no_grad()
def evaluate(model):
    model.eval()
    correct = 0
    for x, t, r in batches:
        logits, _ = model(x)
        correct += (logits.argmax(dim=1) == t).sum().item()
    return correct / 32


for epoch in range(4):
    train_epoch(model, optimizer)
    scheduler.step()
    losses.append(evaluate(model))
"""


def test_real_script_sgd_steplr_clip():
    run_both(REAL.format(opt="SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1, momentum=0.9)"),
             DATA)


def test_real_script_adamw_frozen_detached():
    result, tns, mns = run_both(REAL.format(opt="AdamW(model.parameters(), lr=1e-2, weight_decay=0.05)"), DATA,
                                weight_atol=1e-4)
    assert "ops.stop_gradient(h)" in result.code


def test_ema_of_weights_in_place_statements():
    """EMA over parameters() under no_grad, one in-place call per statement (the chained form
    ``ema_p.mul_(d).add_(...)`` is marked unsupported by the in-place pass). The EMA model's weights are compared
    too (run_both compares every module)."""
    src = HEAD + """
ema = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
losses = []
# @run
for x, y in batches:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
    with torch.no_grad():
        for ema_p, p in zip(ema.parameters(), model.parameters()):
            ema_p.mul_(0.9)
            ema_p.add_(p.detach(), alpha=0.1)
"""
    run_both(src, DATA)
