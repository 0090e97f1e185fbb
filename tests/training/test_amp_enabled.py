"""AMP as real training scripts write it (issue 28): ``torch.autocast(device.type, enabled=amp)``,
``GradScaler(enabled=amp)``, ``scaler.scale(loss).backward()``, ``scaler.unscale_(opt)`` then ``clip_grad_norm_``,
``scaler.step(opt)``, ``scaler.update()``. The flag is read when the script runs: the network is cast under
``if amp:``, the scaler is a DynamicLossScaler when enabled and StaticLossScaler(1.0) (an identity, as torch's
disabled scaler) otherwise. Both frameworks run, from the same initial weights."""
import numpy as np
import pytest

from tests.training.trainrun import run_both

rng = np.random.default_rng(11)
DATA = {"X": rng.standard_normal((32, 6)).astype(np.float32),
        "Y": (rng.standard_normal((32, 2)) * 3).astype(np.float32)}

SCRIPT = """
import torch
import torch.nn as nn
amp = AMP
device = torch.device("cpu")
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2)).to(device)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler(device.type, init_scale=1024.0, growth_interval=3, enabled=amp)
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
losses = []
# @run
for x, y in batches * 2:
    x, y = x.to(device), y.to(device)
    optimizer.zero_grad(set_to_none=True)
    with torch.autocast(device.type, dtype=DTYPE, enabled=amp):
        out = model(x)
        loss = criterion(out, y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    losses.append(loss.item())
"""


def test_amp_disabled_equals_the_plain_step():
    """enabled=False on CPU: exactly torch's plain step (the clip acts: the first gradients are larger than 1)."""
    src = SCRIPT.replace("AMP", "False").replace("dtype=DTYPE, ", "")
    result, tns, mns = run_both(src, DATA, rtol=1e-5)
    assert "if amp:" in result.code and "ms.amp.StaticLossScaler(1.0)" in result.code
    assert "grads = ops.clip_by_global_norm(grads, 1.0)" in result.code
    assert float(mns["scaler"].scale_value.asnumpy()) == 1.0


@pytest.mark.parametrize("flag", ["True", "amp_flag"])
def test_amp_enabled_float16(flag):
    """enabled=True read from a variable: the float16 O1 network and the dynamic scale, as torch's float16 autocast
    (agreeing to float16 rounding, measured 7e-5 relative in tests/training/test_idioms.py)."""
    src = SCRIPT.replace("amp = AMP", "amp_flag = True\namp = amp_flag" if flag == "amp_flag" else "amp = True")
    src = src.replace("DTYPE", "torch.float16")
    result, tns, mns = run_both(src, DATA, rtol=5e-4, weight_atol=1e-4)
    assert tns["scaler"].get_scale() == float(mns["scaler"].scale_value.asnumpy()) == 4096.0


def test_optimizer_foreach_true_is_a_speed_option():
    """``RMSprop(..., foreach=True)`` (yakhyo/crack-segmentation): torch's multi-tensor implementation of the same
    update; dropped like foreach=False."""
    src = SCRIPT.replace("AMP", "False").replace("dtype=DTYPE, ", "").replace(
        "torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)",
        "torch.optim.RMSprop(model.parameters(), lr=0.01, weight_decay=1e-4, momentum=0.9, foreach=True)")
    result, _, _ = run_both(src, DATA)
    assert "foreach" not in result.code


OPTIONAL = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=3) if AMP else None
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
losses = []
# @run
for x, y in batches * 2:
    with torch.autocast("cpu", dtype=torch.float16, enabled=scaler is not None):
        output = model(x)
        loss = criterion(output, y)
    optimizer.zero_grad()
    if scaler is not None:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    else:
        loss.backward()
        optimizer.step()
    losses.append(loss.item())
"""


@pytest.mark.parametrize("amp", [False, True])
def test_optional_scaler_with_a_plain_branch(amp):
    """torchvision's reference scripts (and CrackSegFormer): ``scaler = GradScaler() if amp else None`` and the step
    written twice, ``if scaler is not None: scaled ... else: plain``: one step whose scaler is StaticLossScaler(1.0)
    when there is none (disabled: torch's plain step; enabled: float16 rounding and the same final scale)."""
    src = OPTIONAL.replace("AMP", str(amp))
    # enabled: float16 gradients without a clip drift the weights by float16 rounding (measured 3e-4 after 8 steps)
    result, tns, mns = run_both(src, DATA, **({"rtol": 5e-4, "weight_atol": 1e-3} if amp else {"rtol": 1e-5}))
    assert "if scaler is not None else ms.amp.StaticLossScaler(1.0)" in result.code
    assert "loss.backward" not in result.code and "scaler.step" not in result.code
    if amp:
        assert tns["scaler"].get_scale() == float(mns["scaler"].scale_value.asnumpy()) == 4096.0


def test_optional_scaler_in_a_function_given_the_model_and_optimizer():
    """CrackSegFormer's train_one_epoch(model, optimizer, ..., scaler=None): the optimizer and the network are the
    function's parameters; the network cast under ``if scaler is not None`` is the one name called in the autocast
    region that the module does not define (criterion is the file's function)."""
    src = OPTIONAL.replace("AMP", "True").replace("criterion = nn.MSELoss()\n", """

def criterion(output, target):
    return nn.functional.mse_loss(output, target)


def train_one_epoch(model, optimizer, batches, scaler=None):
    for x, y in batches:
        with torch.autocast("cpu", dtype=torch.float16, enabled=scaler is not None):
            output = model(x)
            loss = criterion(output, y)
        optimizer.zero_grad()
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
        losses.append(loss.item())

""")
    src = src.split("# @run")[0] + "# @run\nfor epoch in range(2):\n    train_one_epoch(model, optimizer, batches, scaler)\n"
    result, tns, mns = run_both(src, DATA, rtol=5e-4, weight_atol=1e-3)
    assert 'if scaler is not None:  # the float16 autocast region, when enabled\n        model = ms.amp.auto_mixed_precision(model, "O1")' in result.code
    assert tns["scaler"].get_scale() == float(mns["scaler"].scale_value.asnumpy()) == 4096.0
