"""Steps whose zero_grad() calls sit in a helper (issue 28; stargan's ``self.reset_grad()`` zeroes G's and D's
gradients before each of the two steps): the helper's calls are seen where it is called, so each backward is one
optimizer's fresh step, not gradient accumulation. A forward function that would rebind a name of the enclosing
scope read before (stargan's ``try: next(data_iter) except: data_iter = iter(loader)``) is marked: as a local of
the function it would be unbound (and a bare except would hide that). Both frameworks run."""
import numpy as np

from tests.harness import assert_unsupported
from tests.training.trainrun import run_both

rng = np.random.default_rng(3)
DATA = {"X": rng.standard_normal((32, 4)).astype(np.float32), "Z": rng.standard_normal((32, 3)).astype(np.float32)}

GAN = """
import torch
import torch.nn as nn
G = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 4))
D = nn.Sequential(nn.Linear(4, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Z[i:i + 8])) for i in range(0, 32, 8)]
losses = []


class Solver:
    def __init__(self):
        self.G, self.D = G, D
        self.g_optimizer = torch.optim.SGD(self.G.parameters(), lr=0.1, momentum=0.9)
        self.d_optimizer = torch.optim.SGD(self.D.parameters(), lr=0.05, momentum=0.5)

    def reset_grad(self):
        \"\"\"Reset the gradient buffers.\"\"\"
        self.g_optimizer.zero_grad()
        self.d_optimizer.zero_grad()

    def train(self, n_critic=2):
        for i, (x_real, z) in enumerate(batches * 2):
            x_fake = self.G(z)
            d_loss = -torch.mean(self.D(x_real)) + torch.mean(self.D(x_fake.detach()))
            self.reset_grad()
            d_loss.backward()
            self.d_optimizer.step()
            losses.append(d_loss.item())
            if (i + 1) % n_critic == 0:
                x_fake = self.G(z)
                g_loss = -torch.mean(self.D(x_fake))
                self.reset_grad()
                g_loss.backward()
                self.g_optimizer.step()
                losses.append(g_loss.item())
"""


def test_reset_grad_method_before_each_of_two_optimizers_steps():
    src = GAN + "# @run\nSolver().train()\n"
    result, _, _ = run_both(src, DATA)
    assert "accum_grads" not in result.code and "zero_grad" not in result.code.split("class Solver")[1].split(
        "def train")[1]


def test_a_forward_function_rebinding_an_enclosing_name_is_marked():
    assert_unsupported("""
import torch
import torch.nn as nn
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loader = [torch.randn(2, 3)] * 3
def train(steps):
    data_iter = iter(loader)
    for i in range(steps):
        try:
            x = next(data_iter)
        except:
            data_iter = iter(loader)
            x = next(data_iter)
        loss = model(x).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
""", "torch.Tensor.backward", "would rebind data_iter")
