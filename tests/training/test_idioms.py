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


# -- several losses of one optimizer in one step (DCGAN as pytorch/examples writes it, a two-term VAE) ---------------
def test_dcgan_two_backwards_before_one_step_output_reused_label_fill():
    src = """
import torch
import torch.nn as nn
netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 6))
netD = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=1e-2, betas=(0.5, 0.999))
optimizerG = torch.optim.SGD(netG.parameters(), lr=0.05, momentum=0.5)
real_label, fake_label = 1.0, 0.0
batches = [(torch.from_numpy(X[i:i + 4]), torch.from_numpy(Y[i:i + 4, :1]).repeat(1, 4)) for i in range(0, 32, 4)]
losses = []
# @run
for epoch in range(2):
    for real, noise in batches:
        netD.zero_grad()
        label = torch.full((4,), real_label, dtype=torch.float32)
        output = netD(real).view(-1)
        errD_real = criterion(output, label)
        errD_real.backward()
        D_x = output.mean().item()
        fake = netG(noise)
        label.fill_(fake_label)
        output = netD(fake.detach()).view(-1)
        errD_fake = criterion(output, label)
        errD_fake.backward()
        D_G_z1 = output.mean().item()
        errD = errD_real + errD_fake
        optimizerD.step()
        netG.zero_grad()
        label.fill_(real_label)
        output = netD(fake).view(-1)
        errG = criterion(output, label)
        errG.backward()
        D_G_z2 = output.mean().item()
        optimizerG.step()
        losses += [errD.item(), errG.item(), D_x, D_G_z1, D_G_z2]
"""
    result, _, _ = run_both(src, {**DATA, "X": DATA["X"][:, :6]}, weight_atol=1e-4)
    assert "return errD_real + errD_fake" in result.code


def test_vae_style_two_backwards_one_optimizer():
    src = CLS.replace("nn.Linear(16, 3)", "nn.Linear(16, 4)") + """
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
losses = []
# @run
for x, t in batches * 2:
    optimizer.zero_grad()
    h = model(x)
    mu, logvar = h[:, :2], h[:, 2:]
    recon = ((mu - x[:, :2]) ** 2).sum(1).mean()
    recon.backward(retain_graph=True)
    kld = -0.5 * torch.mean(torch.sum(1 + logvar - mu ** 2 - logvar.exp(), dim=1))
    kld.backward()
    optimizer.step()
    losses += [recon.item(), kld.item()]
"""
    run_both(src, DATA)


# -- trainer classes: forward / loss+backward / update spread over methods of one object ------------------------------
TRAINER = """
import torch
import torch.nn as nn


class Trainer:
    def __init__(self, net, lr):
        self.net = net
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=lr)

    def set_input(self, x, y):
        self.x, self.y = x, y

    def forward(self):
        self.pred = self.net(self.x)

    def backward(self):
        self.loss = self.criterion(self.pred, self.y)
        self.loss.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer.zero_grad()
        self.backward()
        self.optimizer.step()


model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
trainer = Trainer(model, 1e-2)
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
losses = []
# @run
for x, y in batches * 2:
    trainer.set_input(x, y)
    trainer.optimize_parameters()
    losses += [trainer.loss.item(), trainer.pred.sum().item()]
"""


def test_trainer_class_methods_attributes_assigned_back():
    result, _, _ = run_both(TRAINER, DATA)
    assert "(self.loss, self.pred), grads = grad_fn()" in result.code
    assert "def backward(self)" not in result.code  # inlined, called nowhere else


PIX2PIX = """
import torch
import torch.nn as nn


class Pix2Pix:
    def __init__(self, netG, netD):
        self.netG, self.netD = netG, netD
        self.criterionGAN = nn.BCEWithLogitsLoss()
        self.criterionL1 = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-3, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-3, betas=(0.5, 0.999))

    def set_input(self, a, b):
        self.real_A, self.real_B = a, b

    def set_requires_grad(self, nets, requires_grad=False):
        for param in nets.parameters():
            param.requires_grad = requires_grad

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def gan_loss(self, pred, target_is_real):
        target = torch.ones_like(pred) if target_is_real else torch.zeros_like(pred)
        return self.criterionGAN(pred, target)

    def backward_D(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB.detach())
        self.loss_D_fake = self.gan_loss(pred_fake, False)
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        pred_real = self.netD(real_AB)
        self.loss_D_real = self.gan_loss(pred_real, True)
        self.loss_D = (self.loss_D_fake + self.loss_D_real) * 0.5
        self.loss_D.backward()

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB)
        self.loss_G_GAN = self.gan_loss(pred_fake, True)
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * 10.0
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        # update D
        self.set_requires_grad(self.netD, True)
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        # update G
        self.set_requires_grad(self.netD, False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


netG = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 2))
netD = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 1))
model = Pix2Pix(netG, netD)
batches = [(torch.from_numpy(X[i:i + 4, :4]), torch.from_numpy(Y[i:i + 4])) for i in range(0, 32, 4)]
losses = []
# @run
for epoch in range(2):
    for a, b in batches:
        model.set_input(a, b)
        model.optimize_parameters()
        losses += [model.loss_D.item(), model.loss_G.item(), model.loss_G_L1.item()]
"""


def test_pix2pix_trainer_two_nets_two_optimizers_set_requires_grad():
    result, _, _ = run_both(PIX2PIX, DATA, weight_atol=1e-4)
    code = result.code
    assert "ms.value_and_grad(forward_fn, None, self.optimizer_D.parameters" in code
    assert "ms.value_and_grad(forward_fn_2, None, self.optimizer_G.parameters" in code


# -- channels_last, zero_grad(set_to_none=True), clip_grad_norm_ under an if ---------------------------------------
def test_channels_last_set_to_none_and_conditional_clip():
    src = """
import torch
import torch.nn as nn
model = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 2 * 3, 2))
model = model.to(memory_format=torch.channels_last)
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
clip = 0.5
batches = [(torch.from_numpy(X[i:i + 8].reshape(8, 1, 2, 3)), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
losses = []
# @run
for x, y in batches * 2:
    x = x.to(memory_format=torch.channels_last).contiguous(memory_format=torch.contiguous_format)
    optimizer.zero_grad(set_to_none=True)
    loss = criterion(model(x), y)
    loss.backward()
    if clip > 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimizer.step()
    losses.append(loss.item())
"""
    result, _, _ = run_both(src, DATA)
    assert "        grads = ops.clip_by_global_norm(grads, clip)" in result.code


# -- DataLoader with forwarded keyword arguments (pytorch/examples mnist: kwargs = {'num_workers': 1, ...}) -----------
def test_dataloader_forwarded_kwargs():
    src = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Pairs(Dataset):
    def __len__(self):
        return len(X)

    def __getitem__(self, i):
        return torch.from_numpy(X[i]), torch.from_numpy(Y[i])


model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
train_kwargs = {'batch_size': 6}
cuda_kwargs = {'num_workers': 0, 'pin_memory': True, 'shuffle': False, 'drop_last': True}
train_kwargs.update(cuda_kwargs)
loader = DataLoader(Pairs(), **train_kwargs)
losses = []
# @run
for epoch in range(2):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
losses.append(len(loader))
"""
    result, _, _ = run_both(src, DATA)
    assert "loader = MapDataLoader(Pairs(), **train_kwargs)" in result.code


# -- AMP: autocast(float16) + GradScaler -> amp.auto_mixed_precision(net, "O1") + DynamicLossScaler ----------------------
AMP = CLS.replace("nn.ReLU()", "nn.Tanh()").replace("nn.Linear(16, 3)", "nn.Linear(16, 2)") + """
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=3)
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8])) for i in range(0, 32, 8)]
losses = []
# @run
for x, y in batches * 2:
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.float16):
        out = model(x)
        loss = criterion(out, y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    losses.append(loss.item())
"""


def test_amp_cuda_spellings_convert_like_the_proven_script():
    proven = convert(AMP).code
    for scaler, region in [('torch.cuda.amp.GradScaler(init_scale=1024.0, growth_interval=3)',
                            'torch.cuda.amp.autocast()'),
                           ('torch.amp.GradScaler("cuda", 1024.0, growth_interval=3)',
                            'torch.amp.autocast("cuda", dtype=torch.float16)')]:
        src = AMP.replace('torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=3)', scaler).replace(
            'torch.autocast("cpu", dtype=torch.float16)', region)
        assert convert(src).code == proven


def test_amp_autocast_float16_grad_scaler_unscale_clip():
    """torch's CPU autocast in float16 against MindSpore's O1 network on CPU: the float16 matmuls agree exactly
    (measured); losses and weights differ by the float16 rounding of the backward (measured 7e-5 relative)."""
    src = AMP
    result, tns, mns = run_both(src, DATA, rtol=5e-4, weight_atol=1e-4)
    # the scale grew twice (growth_interval=3, 8 finite steps) on both sides
    assert tns["scaler"].get_scale() == float(mns["scaler"].scale_value.asnumpy()) == 4096.0
    assert 'model = ms.amp.auto_mixed_precision(model, "O1")' in result.code


# -- clip_grad_norm_ written outside the step block: in a helper function, in a trainer method ----------------------
def test_clip_grad_norm_in_a_helper_function_and_a_trainer_method():
    src = """
import torch
import torch.nn as nn


def clip_gradients(net, max_norm=1.0):
    \"\"\"Clip in place.\"\"\"
    torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm * 0.5)


class Trainer:
    def __init__(self, net):
        self.net = net
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=0.1, momentum=0.5)

    def clip(self):
        torch.nn.utils.clip_grad_norm_(self.net.parameters(), 0.2)

    def step(self, x, y):
        self.optimizer.zero_grad(set_to_none=True)
        self.loss = nn.functional.mse_loss(self.net(x), y)
        self.loss.backward()
        self.clip()
        self.optimizer.step()


model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
model2 = nn.Sequential(nn.Linear(6, 8), nn.Tanh(), nn.Linear(8, 2))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
trainer = Trainer(model2)
batches = [(torch.from_numpy(X[i:i + 8]), torch.from_numpy(Y[i:i + 8] * 4)) for i in range(0, 32, 8)]
losses = []
# @run
for x, y in batches * 2:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    clip_gradients(model, max_norm=0.6)
    optimizer.step()
    trainer.step(x, y)
    losses += [loss.item(), trainer.loss.item()]
"""
    result, tns, _ = run_both(src, DATA)
    assert "grads = ops.clip_by_global_norm(grads, (0.6 * 0.5))" in result.code
    assert "grads = ops.clip_by_global_norm(grads, 0.2)" in result.code
    assert "def clip_gradients" not in result.code and "def clip(self)" not in result.code  # inlined, no other call
    # the clips did act: the unclipped gradient norm is larger than both limits at the first step
    import torch
    x, y = tns["batches"][0]
    probe = torch.nn.Sequential(torch.nn.Linear(6, 16), torch.nn.Tanh(), torch.nn.Linear(16, 2))
    torch.nn.functional.mse_loss(probe(x), y).backward()
    assert torch.nn.utils.get_total_norm([p.grad for p in probe.parameters()]) > 0.6
