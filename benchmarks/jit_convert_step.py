"""The crack U-Net training step as msmigrate converts it: eager (plain `convert`) vs `convert --jit`.

Converts examples/crack_unet/torch twice into a temporary directory, then, in one fresh process per variant,
imports the converted train.py and runs its own `train()` (so the timed code is exactly the converter's output:
forward_fn + grad_fn + optimizer(grads), or the @ms.jit train_step) on fixed batches (batch 8, 3x64x64 by
default). Each step's time is taken between successive batch requests (the loop calls loss.item() every step, so
the device work is done). Prints the first step (compilation for jit), the median of the steps after --warmup,
and the speed-up. The machine's load average is printed with the figures: on a shared machine they move.

    .venv/bin/python benchmarks/jit_convert_step.py [--steps 20] [--warmup 3] [--batch 8] [--size 64]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from migrate.runtime import prepare_mindspore_env  # noqa: E402

prepare_mindspore_env()  # MindSpore's fast oneDNN kernels (migrate/runtime.py), before it is imported


ROOT = Path(__file__).resolve().parents[1]


def worker(folder: str, steps: int, warmup: int, batch: int, size: int) -> None:
    import numpy as np
    import mindspore as ms

    sys.path.insert(0, folder)
    os.chdir(folder)
    import train as script  # the converted train.py
    from losses import CrackLoss
    from model import CrackUNet

    from mindspore.experimental import optim

    ms.set_seed(0)
    rng = np.random.default_rng(0)
    x = ms.Tensor(rng.standard_normal((batch, 3, size, size)).astype(np.float32))
    y = ms.Tensor((rng.random((batch, 1, size, size)) > 0.9).astype(np.float32))
    model = CrackUNet()
    criterion = CrackLoss(edge_weight=0.1)
    optimizer = optim.Adam(model.trainable_params(), lr=3e-3)
    stamps = []

    def loader():
        while True:
            stamps.append(time.perf_counter())
            yield x, y

    total = warmup + steps
    script.train(model, loader(), criterion, optimizer, total, log_every=10 ** 9)
    stamps.append(time.perf_counter())
    times = [b - a for a, b in zip(stamps, stamps[1:])][:total]
    print(json.dumps({"first": times[0], "median": statistics.median(times[warmup:]), "times": times}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker, args.steps, args.warmup, args.batch, args.size)
    sys.path.insert(0, str(ROOT))
    from migrate import convert_path

    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, jit in (("eager", False), ("jit", True)):
            out = Path(tmp) / name
            report = convert_path(ROOT / "examples/crack_unet/torch", out, jit=jit)
            if jit:
                assert [s.wrapped for s in report.jit] == [True], report.jit
            load = os.getloadavg()[0]
            res = subprocess.run([sys.executable, __file__, "--worker", str(out), "--steps", str(args.steps),
                                  "--warmup", str(args.warmup), "--batch", str(args.batch), "--size", str(args.size)],
                                 capture_output=True, text=True, cwd=out)
            if res.returncode:
                sys.exit(res.stderr[-3000:])
            rows[name] = (json.loads(res.stdout.strip().splitlines()[-1]), load, os.getloadavg()[0])
    print(f"crack U-Net step as converted (Adam, BCE + Dice + edge loss), batch {args.batch}, 3x{args.size}x{args.size};"
          f" median of {args.steps} steps after {args.warmup} warm-up; {os.cpu_count()} CPUs")
    print(f"{'variant':<8} {'first step s':>12} {'median ms':>10} {'load before/after':>18}")
    for name, (r, l0, l1) in rows.items():
        print(f"{name:<8} {r['first']:>12.2f} {r['median'] * 1e3:>10.1f} {l0:>9.1f}/{l1:.1f}")
    e, j = rows["eager"][0]["median"], rows["jit"][0]["median"]
    print(f"--jit speed-up over eager: {e / j:.2f}x ({(1 - j / e) * 100:.0f}% less time per step)")


if __name__ == "__main__":
    main()
