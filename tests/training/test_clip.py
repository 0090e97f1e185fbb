"""clip_grad_norm_ (issue 28): inside a recognised step it clips the gradients (and returns torch's total norm when
the script keeps it); outside one, or on parameters other than the stepped optimizer's, it is marked (MindSpore has
no .grad: the table's ops.clip_by_global_norm on parameters would clip the weights). Both frameworks run."""
import numpy as np

from tests.harness import assert_unsupported
from tests.training.trainrun import run_both

rng = np.random.default_rng(5)
DATA = {"X": rng.standard_normal((32, 6)).astype(np.float32),
        "Y": (rng.standard_normal((32, 2)) * 4).astype(np.float32)}

SETUP = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
losses = []
"""


def test_clip_keeps_torch_total_norm_and_clips_the_gradients():
    """``norm = clip_grad_norm_(...)``: torch returns the norm before clipping; the losses show the clip acted (the
    norms logged are larger than max_norm, so an unclipped run would differ)."""
    src = SETUP + """
# @run
for x, y in batches * 2:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)
    optimizer.step()
    losses += [loss.item(), norm.item()]
"""
    result, tns, _ = run_both(src, DATA)
    assert "grads = ops.clip_by_global_norm(grads, 0.5)" in result.code
    assert max(tns["losses"][1::2]) > 0.5  # the clip did act


def test_clip_of_groups_built_by_name_before_the_optimizer():
    src = SETUP.replace("optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)", """
groups = [{"params": [p for n, p in model.named_parameters() if n.endswith("bias")], "weight_decay": 0.0},
          {"params": [p for n, p in model.named_parameters() if not n.endswith("bias")], "weight_decay": 1e-2}]
optimizer = torch.optim.SGD(groups, lr=0.2, momentum=0.9)""") + """
# @run
for x, y in batches * 2:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    if True:
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
    optimizer.step()
    losses.append(loss.item())
"""
    result, _, _ = run_both(src, DATA)
    assert "grads = ops.clip_by_global_norm(grads, 0.5)" in result.code


def test_clip_outside_a_step_is_marked_not_applied_to_the_weights():
    code = assert_unsupported("""
import torch
import torch.nn as nn

def clip(m):
    total = nn.utils.clip_grad_norm_(m.parameters(), 1.0)
    return total
""", "torch.nn.utils.clip_grad_norm_", "outside one, ops.clip_by_global_norm would clip the parameters")
    assert code.count("# msmigrate: unsupported") == 1
    assert_unsupported("""
import torch
import torch.nn as nn
model = nn.Linear(3, 2)
print(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0))
""", "torch.nn.utils.clip_grad_norm_", "recognised step")


def test_clip_of_other_parameters_than_the_optimizer_steps_is_marked():
    """torch's norm covers the encoder's gradients too (backward computes them); value_and_grad returns only the
    head's: the clip factor would differ."""
    assert_unsupported("""
import torch
import torch.nn as nn
encoder, head = nn.Linear(4, 4), nn.Linear(4, 2)
optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
for x in [torch.randn(2, 4)]:
    optimizer.zero_grad()
    loss = head(encoder(x)).sum()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(list(encoder.parameters()) + list(head.parameters()), 1.0)
    optimizer.step()
""", "torch.nn.utils.clip_grad_norm_", "not provably the parameters optimizer steps")


def test_clip_with_an_optimizer_built_elsewhere():
    """train_one_epoch(model, optimizer, ...) (torchvision references, timm): the optimizer is a parameter; a clip
    of the whole model's parameters is taken to be the optimizer's, as the caller builds it."""
    src = SETUP + """
def train_one_epoch(net, opt, max_norm):
    for x, y in batches:
        opt.zero_grad()
        loss = criterion(net(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm)
        opt.step()
        losses.append(loss.item())


# @run
for epoch in range(2):
    train_one_epoch(model, optimizer, 0.5)
"""
    result, _, _ = run_both(src, DATA)
    assert "grads = ops.clip_by_global_norm(grads, max_norm)" in result.code
