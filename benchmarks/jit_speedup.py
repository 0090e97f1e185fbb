"""U-Net training step: MindSpore PyNative vs the same step under ms.jit, torch eager for reference.

U-Net: base 16 channels, 4 levels, double Conv3x3+BN+ReLU, maxpool 2, ConvTranspose 2x2, cat;
batch 4, 3x128x128, Adam (lr 1e-3), BCE-with-logits. The whole train-step function (forward,
backward, optimizer) is what ms.jit compiles. Prints the median step time over --steps steps
after --warmup steps (the first jit call compiles) and the ratios.

    .venv/bin/python benchmarks/jit_speedup.py [--steps 10] [--warmup 3] [--threads N]
"""
from __future__ import annotations

import os
import sys
import argparse
import statistics
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from migrate.runtime import prepare_mindspore_env  # noqa: E402

prepare_mindspore_env()  # MindSpore's fast oneDNN kernels (migrate/runtime.py), before it is imported



def ms_unet(base: int = 16, levels: int = 4):
    from mindspore import nn, ops

    def double(cin, cout):
        return nn.SequentialCell(
            nn.Conv2d(cin, cout, 3, pad_mode="pad", padding=1, has_bias=True),
            nn.BatchNorm2d(cout, momentum=0.9), nn.ReLU(),
            nn.Conv2d(cout, cout, 3, pad_mode="pad", padding=1, has_bias=True),
            nn.BatchNorm2d(cout, momentum=0.9), nn.ReLU())

    class UNet(nn.Cell):
        def __init__(self):
            super().__init__()
            chans = [base * 2 ** i for i in range(levels)]
            self.downs = nn.CellList([double(3 if i == 0 else chans[i - 1], c)
                                      for i, c in enumerate(chans)])
            self.pool = nn.MaxPool2d(2, stride=2)
            self.bottom = double(chans[-1], chans[-1] * 2)
            self.ups = nn.CellList([nn.Conv2dTranspose(c * 2, c, 2, stride=2, has_bias=True)
                                    for c in reversed(chans)])
            self.decs = nn.CellList([double(c * 2, c) for c in reversed(chans)])
            self.head = nn.Conv2d(chans[0], 1, 1, has_bias=True)

        def construct(self, x):
            skips = ()
            for down in self.downs:
                x = down(x)
                skips = skips + (x,)
                x = self.pool(x)
            x = self.bottom(x)
            for i in range(len(self.ups)):
                x = self.ups[i](x)
                x = self.decs[i](ops.cat((x, skips[len(skips) - 1 - i]), axis=1))
            return self.head(x)

    return UNet()


def torch_unet(base: int = 16, levels: int = 4):
    import torch
    from torch import nn

    def double(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                             nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())

    class UNet(nn.Module):
        def __init__(self):
            super().__init__()
            chans = [base * 2 ** i for i in range(levels)]
            self.downs = nn.ModuleList([double(3 if i == 0 else chans[i - 1], c)
                                        for i, c in enumerate(chans)])
            self.pool = nn.MaxPool2d(2)
            self.bottom = double(chans[-1], chans[-1] * 2)
            self.ups = nn.ModuleList([nn.ConvTranspose2d(c * 2, c, 2, stride=2)
                                      for c in reversed(chans)])
            self.decs = nn.ModuleList([double(c * 2, c) for c in reversed(chans)])
            self.head = nn.Conv2d(chans[0], 1, 1)

        def forward(self, x):
            skips = []
            for down in self.downs:
                x = down(x)
                skips.append(x)
                x = self.pool(x)
            x = self.bottom(x)
            for up, dec, skip in zip(self.ups, self.decs, reversed(skips)):
                x = dec(torch.cat((up(x), skip), dim=1))
            return self.head(x)

    return UNet()


def timed(step, x, y, steps: int, warmup: int) -> tuple[float, float]:
    """(first-call seconds, median seconds of the timed steps)."""
    t0 = time.perf_counter()
    step(x, y)
    first = time.perf_counter() - t0
    for _ in range(warmup - 1):
        step(x, y)
    times = []
    for _ in range(steps):
        t0 = time.perf_counter()
        step(x, y)
        times.append(time.perf_counter() - t0)
    return first, statistics.median(times)


def mindspore_steps(x_np, y_np):
    import mindspore as ms
    from mindspore import nn

    def make():
        ms.set_seed(0)
        net = ms_unet()
        net.set_train(True)
        loss_fn = nn.BCEWithLogitsLoss()
        opt = nn.Adam(net.trainable_params(), learning_rate=1e-3)

        def forward(x, y):
            return loss_fn(net(x), y)

        grad_fn = ms.value_and_grad(forward, None, opt.parameters)

        def train_step(x, y):
            loss, grads = grad_fn(x, y)
            opt(grads)
            return loss

        return train_step

    x, y = ms.Tensor(x_np), ms.Tensor(y_np)
    return {"pynative": (make(), x, y), "jit": (ms.jit(make()), x, y)}


def torch_step(x_np, y_np):
    import torch

    torch.manual_seed(0)
    net = torch_unet().train()
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    loss_fn = torch.nn.BCEWithLogitsLoss()

    def train_step(x, y):
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()
        return loss

    return train_step, torch.from_numpy(x_np), torch.from_numpy(y_np)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--size", type=int, default=128)
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: default)")
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    x = rng.randn(args.batch, 3, args.size, args.size).astype(np.float32)
    y = (rng.rand(args.batch, 1, args.size, args.size) > 0.9).astype(np.float32)

    rows = {}
    for name, (step, xs, ys) in mindspore_steps(x, y).items():
        rows[f"MindSpore {name}"] = timed(step, xs, ys, args.steps, args.warmup)
    import torch
    if args.threads:
        torch.set_num_threads(args.threads)
    step, xt, yt = torch_step(x, y)
    rows["torch eager"] = timed(step, xt, yt, args.steps, args.warmup)

    base = rows["MindSpore pynative"][1]
    print(f"U-Net train step, batch {args.batch}, 3x{args.size}x{args.size}, Adam, BCE-with-logits; "
          f"median of {args.steps} steps after {args.warmup} warm-up")
    print(f"{'variant':<20} {'first call s':>12} {'median ms':>10} {'vs PyNative':>12}")
    for name, (first, median) in rows.items():
        print(f"{name:<20} {first:>12.2f} {median * 1e3:>10.1f} {base / median:>11.2f}x")
    jit = rows["MindSpore jit"][1]
    print(f"jit speed-up over PyNative: {base / jit:.2f}x ({(1 - jit / base) * 100:.0f}% less time); "
          f"torch eager vs MindSpore jit: {jit / rows['torch eager'][1]:.2f}x faster")


if __name__ == "__main__":
    main()
