"""torch.autograd.Function and torch.autograd.grad: the torch script and its conversion run from the same weights on
the same numpy data; gradients (directly, or through per-step losses and final weights of a training run) match."""
import numpy as np

from tests.harness import Case, assert_unsupported, run_case
from tests.training.trainrun import run_both

rng = np.random.default_rng(3)
DATA = {"X": rng.standard_normal((32, 6)).astype(np.float32), "Y": rng.standard_normal((32, 2)).astype(np.float32)}

FUNCTIONS = """
import torch
import torch.nn as nn


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad_output):
        x, = ctx.saved_tensors
        return grad_output * (x.abs() <= 1.5).float()


class ScaleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        h = x * 2
        ctx.save_for_backward(h)
        return x * 1.0

    @staticmethod
    def backward(ctx, grad):
        h, = ctx.saved_tensors
        return grad * ctx.scale + 0.01 * h, None
"""


def test_function_ste_and_gradient_scaling_train_like_torch():
    src = FUNCTIONS + """
model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
batches = [(torch.from_numpy(X[i:i + 4]), torch.from_numpy(Y[i:i + 4])) for i in range(0, 32, 4)]
losses = []
# @run
for x, y in batches * 2:
    optimizer.zero_grad()
    h = RoundSTE.apply(model[0](x) * 2)
    out = model[2](ScaleGrad.apply(model[1](h), 0.3))
    loss = criterion(out, y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
"""
    result, _, _ = run_both(src, DATA)
    code = result.code
    assert "class RoundSTE(nn.Cell):" in code and "def bprop(self, x, scale, out, grad):" in code
    assert "RoundSTE()(" in code and ".apply(" not in code and "ctx." not in code


def test_function_gradient_direct():
    run_case(Case("torch.autograd.Function", FUNCTIONS + """
lin = nn.Linear(6, 3)
# @run
xs = X * 1.0
xs.requires_grad_(True)
y = ScaleGrad.apply(RoundSTE.apply(lin(xs)), 0.25)
g, = torch.autograd.grad((y * y).sum(), xs)
""", names=("g",), inputs={"X": DATA["X"]}))  # y is moved into the gradient's function


def test_saliency_input_gradient():
    code = run_case(Case("torch.autograd.grad", """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3))
# @run
x = X.clone()
x.requires_grad_(True)
y = model(x)
score = y[:, 1].sum()
g, = torch.autograd.grad(score, x)
sal = g.abs()
""", names=("g", "sal"), inputs={"X": DATA["X"]}))
    assert "(ops.stop_gradient(ms.grad(grad_input_fn)(x)),)" in code and "requires_grad" not in code


def test_grad_outputs_weighting_and_two_inputs():
    run_case(Case("torch.autograd.grad", """
import torch
import torch.nn as nn
lin = nn.Linear(6, 2)
# @run
a = X * 1.0
b = X * 0.5
a.requires_grad_(True)
b.requires_grad_(True)
y = torch.tanh(lin(a * b))
ga, gb = torch.autograd.grad(outputs=y, inputs=(a, b), grad_outputs=torch.ones_like(y) * 3.0)
""", names=("ga", "gb"), inputs={"X": DATA["X"]}))


GP = """
import torch
import torch.nn as nn
G = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 6))
D = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 1))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Z[i:i + 8]), torch.from_numpy(A[i:i + 8]))
           for i in range(0, 32, 8)]
losses = []
# @run
for real, z, alpha in batches * 2:
    fake = G(z).detach()
    opt_d.zero_grad()
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    d_interp = D(interp)
    grads = torch.autograd.grad(outputs=d_interp, inputs=interp, grad_outputs=torch.ones_like(d_interp),
                                create_graph=True, retain_graph=True)[0]
    gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    loss_d = D(fake).mean() - D(real).mean() + 10.0 * gp
    loss_d.backward()
    opt_d.step()
    opt_g.zero_grad()
    loss_g = -D(G(z)).mean()
    loss_g.backward()
    opt_g.step()
    losses += [loss_d.item(), gp.item(), loss_g.item()]
"""


def test_wgan_gp_gradient_penalty_trains_like_torch():
    data = {"X": DATA["X"], "Z": rng.standard_normal((32, 4)).astype(np.float32),
            "A": rng.random((32, 1)).astype(np.float32)}
    result, _, _ = run_both(GP, data, weight_atol=1e-4)
    code = result.code
    assert "(ms.grad(grad_input_fn)(interp),)[0]" in code
    assert "ops.stop_gradient(ms.grad" not in code  # create_graph=True: the penalty's second-order term stays


def test_grad_of_values_used_elsewhere_is_refused():
    assert_unsupported("""
import torch
x = torch.ones(3)
y = model(x)
g = torch.autograd.grad(y.sum(), x)[0]
print(y)
""", "torch.autograd.grad", "used elsewhere")


def test_function_with_needs_input_grad_is_refused():
    code = assert_unsupported("""
import torch
class F(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2 if ctx.needs_input_grad[0] else None
y = F.apply(x)
""", "torch.autograd.Function", "needs_input_grad")
    assert "class F(torch.autograd.Function):" in code and "import torch" in code


def test_function_applied_through_an_instance_trains_like_torch():
    """``self.scale = GradMul().apply`` in ``__init__`` (a research model's gradient multiplier, the mask set
    later): ``F().apply`` reached MindSpore's ``Cell.apply`` (apply-to-every-cell) and raised; it is the Cell."""
    src = """
import torch
import torch.nn as nn


class GradMul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, mask):
        ctx.save_for_backward(mask)
        return x

    @staticmethod
    def backward(ctx, grad_output):
        mask, = ctx.saved_tensors
        return grad_output.mul(mask), None


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(6, 8), nn.Linear(8, 2)
        self.scale = GradMul().apply
        self.mask = torch.ones((1,)) * 0.25

    def forward(self, x):
        return self.fc2(self.scale(torch.tanh(self.fc1(x)), self.mask))


model = Net()
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.from_numpy(X[i:i + 4]), torch.from_numpy(Y[i:i + 4])) for i in range(0, 32, 4)]
losses = []
# @run
for x, y in batches:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
"""
    result, _, _ = run_both(src, DATA)
    assert "self.scale = GradMul()\n" in result.code and ".apply" not in result.code, result.code
