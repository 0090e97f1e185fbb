"""Train the PyTorch reference and its MindSpore port the same way and print the table of examples/crack_unet/README.md.

Both start from the same initial weights (the torch init, converted with `msmigrate weights`), read the same
synthetic data (same seed) and run the same number of Adam steps; only the shuffling order differs (each framework's
own RNG). Each configuration runs with and without the edge-aware loss (the ablation).

    python examples/crack_unet/compare_training.py [--steps 200] [--seeds 0 1]

The MindSpore side runs the checked-in converter output examples/crack_unet/mindspore/train.py.
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
from migrate.runtime import prepare_mindspore_env  # noqa: E402

ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}
prepare_mindspore_env(ENV)  # fast oneDNN kernels, quiet MindSpore logs (migrate/runtime.py)
METRICS = re.compile(r"held-out:\s*crack IoU ([\d.]+)\s+F1 ([\d.]+)\s+mIoU ([\d.]+)")


def run(cmd, cwd) -> str:
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=ENV, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"failed ({proc.returncode}): {' '.join(map(str, cmd))}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return proc.stdout


def train(framework: str, steps: int, seed: int, edge: float, init: Path, out: Path) -> tuple[float, ...]:
    folder = HERE / framework
    t0 = time.time()
    log = run([sys.executable, "train.py", "--steps", steps, "--seed", seed, "--edge-weight", edge,
               "--init", init, "--out", out, "--log-every", steps], cwd=folder)
    m = METRICS.search(log)
    if not m:
        sys.exit(f"{framework}: no held-out metrics in the log:\n{log[-2000:]}")
    return (*(float(v) for v in m.groups()), time.time() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for seed in args.seeds:
            init_pt, init_ms = tmp / f"init{seed}.pth", tmp / f"init{seed}.ckpt"
            run([sys.executable, "-c", "import sys, torch; sys.path.insert(0, 'torch'); from model import CrackUNet; "
                 f"torch.manual_seed({seed}); torch.save(CrackUNet().state_dict(), r'{init_pt}')"], cwd=HERE)
            run([sys.executable, "-m", "migrate.cli", "weights", init_pt, "-o", init_ms,
                 "--model", HERE / "torch" / "model.py:CrackUNet"], cwd=ROOT)
            for edge in (0.1, 0.0):
                t = train("torch", args.steps, seed, edge, init_pt, tmp / "t.pth")
                m = train("mindspore", args.steps, seed, edge, init_ms, tmp / "m.ckpt")
                rows.append((seed, edge, t, m))
                print(f"seed {seed} edge {edge}: torch IoU {t[0]:.3f} ({t[3]:.0f} s)  "
                      f"MindSpore IoU {m[0]:.3f} ({m[3]:.0f} s)", flush=True)
    print(f"\n{args.steps} Adam steps, batch 8, 64x64, lr 3e-3, 512 training / 128 held-out samples\n")
    print("| seed | edge weight | torch IoU / F1 / mIoU | MindSpore IoU / F1 / mIoU | IoU gap (points) | time torch / MS |")
    print("|---|---|---|---|---|---|")
    for seed, edge, t, m in rows:
        print(f"| {seed} | {edge} | {t[0]:.3f} / {t[1]:.3f} / {t[2]:.3f} | {m[0]:.3f} / {m[1]:.3f} / {m[2]:.3f} | "
              f"{100 * (m[0] - t[0]):+.1f} | {t[3]:.0f} s / {m[3]:.0f} s |")


if __name__ == "__main__":
    main()
