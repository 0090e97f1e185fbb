"""Training conversions proved numerically: per-step losses and final weights of torch vs the conversion."""
import numpy as np
import pytest

from tests.training.trainrun import convert, run_both

rng = np.random.default_rng(0)
DATA = {"X": rng.standard_normal((32, 6)).astype(np.float32), "Y": rng.standard_normal((32, 2)).astype(np.float32)}

HEAD = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
criterion = nn.MSELoss()
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
"""

CANONICAL = HEAD + """
optimizer = {opt}
scheduler = {sched}
losses = []
# @run
for epoch in range(3):
    for x, y in batches:
        optimizer.zero_grad()
        out = model(x)  # forward
        loss = criterion(out, y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        {per_step}
    {per_epoch}
"""

OPTIMIZERS = {
    "sgd": "torch.optim.SGD(model.parameters(), lr=0.05)",
    "sgd_momentum_wd": "torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-2)",
    "sgd_dampening": "torch.optim.SGD(model.parameters(), 0.05, momentum=0.8, dampening=0.3)",
    "sgd_nesterov": "torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=1e-3)",
    "adam": "torch.optim.Adam(model.parameters(), lr=1e-2)",
    "adam_wd": "torch.optim.Adam(model.parameters(), lr=1e-2, betas=(0.8, 0.99), weight_decay=1e-2)",
    "adam_amsgrad": "torch.optim.Adam(model.parameters(), lr=1e-2, amsgrad=True)",
    "adamw": "torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=0.1)",
    "rmsprop": "torch.optim.RMSprop(model.parameters(), lr=1e-2)",
    "rmsprop_centered_momentum": "torch.optim.RMSprop(model.parameters(), lr=1e-2, momentum=0.5, centered=True, weight_decay=1e-3)",
    "adagrad": "torch.optim.Adagrad(model.parameters(), lr=0.1, lr_decay=0.01, weight_decay=1e-3)",
    "param_groups": "torch.optim.SGD([{'params': model[0].parameters(), 'lr': 0.1, 'weight_decay': 1e-2}, "
                    "{'params': model[2].parameters()}], lr=0.01, momentum=0.9)",
}

SCHEDULERS = {
    "steplr_epoch": ("torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)", "", "scheduler.step()"),
    "multistep_step": ("torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[3, 7], gamma=0.3)",
                       "scheduler.step()", ""),
    "exponential_step": ("torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)", "scheduler.step()", ""),
    "cosine_step": ("torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=12, eta_min=1e-3)",
                    "scheduler.step()", ""),
    "lambda_epoch": ("torch.optim.lr_scheduler.LambdaLR(optimizer, lambda e: 1.0 / (1 + e))", "", "scheduler.step()"),
}


@pytest.mark.parametrize("opt", sorted(OPTIMIZERS))
def test_optimizers(opt):
    src = CANONICAL.format(opt=OPTIMIZERS[opt], sched="None", per_step="", per_epoch="")
    run_both(src, DATA)


@pytest.mark.parametrize("sched", sorted(SCHEDULERS))
def test_schedulers(sched):
    make, per_step, per_epoch = SCHEDULERS[sched]
    src = CANONICAL.format(opt=OPTIMIZERS["sgd_momentum_wd"], sched=make, per_step=per_step, per_epoch=per_epoch)
    run_both(src, DATA)


def test_canonical_shape_of_output():
    src = CANONICAL.format(opt=OPTIMIZERS["sgd"], sched="None", per_step="", per_epoch="")
    code = convert(src).code
    assert "def forward_fn(x, y):\n    out = model(x)  # forward\n    loss = criterion(out, y)\n    return loss\n" in code
    assert "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)" in code
    assert "loss, grads = grad_fn(x, y)" in code and "optimizer(grads)" in code
    assert code.index("def forward_fn") < code.index("for epoch")
    assert "model.set_train(True)" in code and "zero_grad" not in code and "backward" not in code


def test_zero_grad_after_helper_loss_aux_clip_summed():
    src = HEAD + """
def compute(batch):
    x, y = batch
    out = model(x)
    return criterion(out, y), out

optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
losses, norms = [], []
# @run
model.train()
for batch in batches * 2:
    main, out = compute(batch)
    reg = 1e-3 * (out ** 2).mean()
    (main + reg).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
    optimizer.step()
    optimizer.zero_grad()
    losses.append(main.item())   # logging an auxiliary output
"""
    # Adam divides by sqrt(v): on near-zero gradients float32 rounding moves one weight by 4e-5 (losses agree)
    result, _, _ = run_both(src, DATA, weight_atol=1e-4)
    assert "has_aux=True" in result.code and "ops.clip_by_global_norm(grads, 0.5)" in result.code


def test_batchnorm_mode_injected_and_freezing_and_no_grad():
    src = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(6, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 2))
criterion = nn.MSELoss()
for p in model[0].parameters():
    p.requires_grad = False
model[3].bias.requires_grad_(False)
optimizer = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1, momentum=0.9)
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
losses = []
# @run
for x, y in batches * 2:
    loss = criterion(model(x), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
model.eval()
with torch.inference_mode():
    val = criterion(model(batches[0][0]), batches[0][1])
losses.append(val.item())
"""
    result, _, _ = run_both(src, DATA)
    assert "model.set_train(True)" in result.code and "_no_grad" not in result.code


def test_dataset_dataloader_and_checkpoint(tmp_path):
    src = f"""
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader

class Pairs(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), torch.from_numpy(self.y[i])

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
criterion = nn.MSELoss()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
data = Pairs(X, Y)
loader = DataLoader(data, batch_size=8, shuffle=False, drop_last=True)
losses = []
# @run
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
torch.save(model.state_dict(), {str(tmp_path / 'm.ckpt')!r})
model.load_state_dict(torch.load({str(tmp_path / 'm.ckpt')!r}))
"""
    result, _, _ = run_both(src, DATA)
    assert "ds.GeneratorDataset(" in result.code and "ms.save_checkpoint(model" in result.code


def test_combined_script_in_functions():
    src = HEAD + """
def train_one_epoch(model, optimizer, scheduler, batches, losses):
    model.train()
    for step, (x, y) in enumerate(batches):
        x = x * 1.0  # data preparation stays in the loop
        pred = model(x)
        l1 = criterion(pred, y)
        l2 = (pred - y).abs().mean()
        loss = l1 + 0.5 * l2
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        losses.append(loss.item())
        if step % 2 == 0:
            print(f"step {step} l1 {l1.item():.4f} l2 {l2.item():.4f}")


@torch.no_grad()
def evaluate(model, batches):
    model.eval()
    return sum(criterion(model(x), y).item() for x, y in batches) / len(batches)

torch.manual_seed(0)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=8)
losses = []
# @run
for epoch in range(2):
    train_one_epoch(model, optimizer, scheduler, batches, losses)
    losses.append(evaluate(model, batches))
"""
    result, _, _ = run_both(src, DATA)
    assert "@ms._no_grad" not in result.code


def test_unsupported_is_marked_not_guessed():
    src = """
import torch
for i, (x, y) in enumerate(batches):
    loss = criterion(model(x), y) / 4
    loss.backward()
    if (i + 1) % 4 == 0:
        optimizer.step()
        optimizer.zero_grad()
"""
    # gradient accumulation converts (tests/training/test_patterns.py); a backward whose gradients are read
    # directly (x.grad, no optimizer) does not
    result = convert(src)
    assert not result.unsupported and "optimizer(accum_grads)" in result.code, result.code
    src1 = """
import torch
x = torch.ones(3, requires_grad=True)
loss = (x * x).sum()
loss.backward()
print(x.grad)
"""
    result = convert(src1)
    assert any(u.api == "torch.Tensor.backward" and u.line == 5 for u in result.unsupported), result.unsupported
    assert "# msmigrate: unsupported torch.Tensor.backward:" in result.code
    src2 = src.replace("loss.backward()", "loss.backward(create_graph=True)")
    assert any("create_graph" in u.reason for u in convert(src2).unsupported)
    # retain_graph has no meaning for value_and_grad (each call recomputes the forward): accepted
    assert not convert(src.replace("loss.backward()", "loss.backward(retain_graph=True)")).unsupported
