"""The idioms of real training scripts (issue 13), each proved like the canonical loop: per-step losses and final
weights of the torch script and of its conversion, same initial weights, same numpy data
(tests/training/trainrun.py)."""
import numpy as np
import pytest

from tests.harness import assert_unsupported
from tests.training.trainrun import convert, run_both

rng = np.random.default_rng(2)
X = rng.standard_normal((32, 6)).astype(np.float32)
DATA = {"X": X, "Y": rng.standard_normal((32, 2)).astype(np.float32),
        "L": (np.abs(X[:, 0] * 2).astype(np.int64) + (X[:, 1] > 0)) % 3}

CLS = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(L[i:i + 8])) for i in range(0, 32, 8)]
"""


# -- CrossEntropyLoss with torch's int64 labels ---------------------------------------------------------------------
@pytest.mark.parametrize("ctor", ["nn.CrossEntropyLoss()",
                                  "nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5]), label_smoothing=0.1)"])
def test_classification_cross_entropy_int64_labels(ctor):
    src = CLS + f"""
criterion = {ctor}
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
losses = []
# @run
for epoch in range(3):
    correct = 0
    for x, t in batches:
        optimizer.zero_grad()
        logits = model(x)
        loss = criterion(logits, t)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        correct += (logits.argmax(1) == t).sum().item()
    losses.append(correct)
"""
    assert DATA["L"].dtype == np.int64
    result, _, _ = run_both(src, DATA)
    assert "class CrossEntropyLoss(nn.Cell)" in result.code


# -- checkpoint dicts both ways ---------------------------------------------------------------------------------------
def test_checkpoint_dict_save_and_resume(tmp_path):
    """Train, save {'epoch', 'model', 'optimizer', 'best', 'arch'}, train on (weights and momentum buffers move), then
    resume from the file: the resumed losses equal torch's only if weights, buffers and the plain values come back."""
    path = str(tmp_path / "last.pth")
    src = CLS + f"""
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-3)
losses = []
# @run
def run_epoch():
    for x, t in batches:
        optimizer.zero_grad()
        loss = criterion(model(x), t)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return loss.item()

best = 10.0
for epoch in range(2):
    best = min(best, run_epoch())
    torch.save({{'epoch': epoch, 'model': model.state_dict(), 'optimizer': optimizer.state_dict(), 'best': best,
                'arch': 'mlp'}}, {path!r})
run_epoch()  # moves the weights and the moments on
checkpoint = torch.load({path!r}, map_location='cpu', weights_only=True)
model.load_state_dict(checkpoint['model'])
optimizer.load_state_dict(checkpoint['optimizer'])
start_epoch = checkpoint['epoch'] + 1
losses += [start_epoch, checkpoint['best'], float(checkpoint['arch'] == 'mlp')]
for epoch in range(start_epoch, 4):
    run_epoch()
"""
    result, tns, mns = run_both(src, DATA)
    assert "save_checkpoint_dict({'epoch': epoch" in result.code and "def load_checkpoint_dict(path)" in result.code
    assert type(mns["start_epoch"]) is int and type(mns["checkpoint"]["best"]) is float


# -- ReduceLROnPlateau, Adadelta ------------------------------------------------------------------------------------
PLATEAU = CLS + """
criterion = nn.CrossEntropyLoss()
optimizer = {opt}
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau({args})
losses = []
# @run
for epoch in range(8):
    model.train()
    for x, t in batches[:2]:
        optimizer.zero_grad()
        loss = criterion(model(x), t)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    model.eval()
    with torch.no_grad():
        val = sum(criterion(model(x), t) for x, t in batches[2:]) / 2
    scheduler.step({metric})
    losses.append(optimizer.param_groups[0]['lr'])
"""


@pytest.mark.parametrize("args,metric", [
    ("optimizer, mode='min', factor=0.5, patience=0, threshold=1e-2", "val"),
    ("optimizer, 'max', 0.3, 1, threshold=0.05, threshold_mode='abs', cooldown=2, min_lr=0.02", "-val.item()"),
])
def test_reduce_lr_on_plateau(args, metric):
    src = PLATEAU.format(opt="torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)", args=args, metric=metric)
    result, tns, _ = run_both(src, DATA)
    lrs = tns["losses"][2::3]
    assert len(set(lrs)) >= 3, lrs  # the schedule did reduce, more than once
    assert "optim.lr_scheduler.ReduceLROnPlateau(" in result.code


def test_adadelta():
    src = PLATEAU.format(opt="torch.optim.Adadelta(model.parameters(), lr=1.0, rho=0.8, weight_decay=1e-3)",
                         args="optimizer, patience=1", metric="val")
    run_both(src, DATA)
