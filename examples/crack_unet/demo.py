"""`make demo`: the whole story on the crack-segmentation U-Net — converted, proven, trained.

1. `msmigrate convert` the PyTorch reference (examples/crack_unet/torch) into demo_out/mindspore;
2. `msmigrate weights` the torch initial weights into a MindSpore checkpoint;
3. `msmigrate parity` both models on one real batch: activations, gradients and 5 SGD steps (SGD checks the step
   exactly; Adam amplifies float noise in near-zero gradients, see `msmigrate parity --help`);
4. train the *converted* MindSpore script (demo_out/mindspore/train.py) with a progress bar;
5. print the crack IoU it reaches on held-out data.

Every step runs the real CLI or the converted script as a subprocess, exactly as a user would.
Options: --steps N (MindSpore training steps, default 150), --out DIR (default demo_out).
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(ROOT))
from migrate.runtime import prepare_mindspore_env  # noqa: E402

BIN = Path(sys.executable).parent
MSMIGRATE = [str(BIN / "msmigrate")] if (BIN / "msmigrate").exists() else [sys.executable, "-m", "migrate.cli"]
ENV = {**os.environ, "PYTHONUNBUFFERED": "1"}
prepare_mindspore_env(ENV)  # fast oneDNN kernels, quiet MindSpore logs (migrate/runtime.py)


def banner(text: str) -> None:
    print(f"\n\033[1m== {text}\033[0m", flush=True)


def run(cmd, cwd=ROOT, ok=(0,)) -> str:
    shown = " ".join(str(c) for c in cmd).replace(str(ROOT) + "/", "")
    print(f"$ {shown}", flush=True)
    proc = subprocess.run([str(c) for c in cmd], cwd=cwd, env=ENV, capture_output=True, text=True)
    out = "\n".join(line for line in (proc.stdout + proc.stderr).splitlines() if "[WARNING]" not in line)
    print(out, flush=True)
    if proc.returncode not in ok:
        sys.exit(f"demo: step failed with exit code {proc.returncode}")
    return out


def train_with_progress(cmd, cwd, steps: int) -> str:
    """Run the converted training script, drawing its `step k/N  loss x` log lines as a progress bar."""
    shown = " ".join(str(c) for c in cmd).replace(str(ROOT) + "/", "")
    print(f"$ {shown}", flush=True)
    proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    lines, start, bar_open = [], time.time(), False
    for line in proc.stdout:
        lines.append(line)
        m = re.match(r"step\s+(\d+)/(\d+)\s+loss\s+([\d.]+)", line)
        if m:
            done, total, loss = int(m[1]), int(m[2]), float(m[3])
            bar = "#" * (30 * done // total)
            print(f"\r  [{bar:<30}] {done:4d}/{total} steps  loss {loss:.4f}  {time.time() - start:5.0f} s",
                  end="", flush=True)
            bar_open = True
        elif "[WARNING]" not in line:
            print(("\n" if bar_open else "") + "  " + line.rstrip(), flush=True)
            bar_open = False
    if proc.wait() != 0:
        sys.exit(f"demo: training failed with exit code {proc.returncode}")
    return "".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--steps", type=int, default=150)
    ap.add_argument("--out", type=Path, default=ROOT / "demo_out")
    args = ap.parse_args()
    out = args.out.resolve()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    t0 = time.time()

    banner("1/5 convert the PyTorch example to MindSpore (source rewriting, nothing is executed)")
    run([*MSMIGRATE, "convert", HERE / "torch", "-o", out / "mindspore", "--report", out / "convert.json"])

    banner("2/5 convert torch weights to a MindSpore checkpoint")
    run([sys.executable, "-c",
         "import sys, torch; sys.path.insert(0, 'examples/crack_unet/torch'); from model import CrackUNet; "
         f"torch.manual_seed(0); torch.save(CrackUNet().state_dict(), r'{out / 'crack_unet_init.pth'}'); "
         "print('saved the torch initial weights')"])
    run([*MSMIGRATE, "weights", out / "crack_unet_init.pth", "-o", out / "crack_unet_init.ckpt",
         "--model", HERE / "torch" / "model.py:CrackUNet"])

    banner("3/5 parity: both frameworks, same batch and weights - activations, gradients, 5 SGD steps")
    run([sys.executable, HERE / "make_data.py", "--n", "2", "--size", "64", "--seed", "7", "-o", out / "batch.npz"])
    run([*MSMIGRATE, "parity", HERE / "torch" / "model.py:CrackUNet", "--ms", out / "mindspore" / "model.py:CrackUNet",
         "--loss", HERE / "torch" / "losses.py:CrackLoss", "--ms-loss", out / "mindspore" / "losses.py:CrackLoss",
         "--data", out / "batch.npz", "--weights", out / "crack_unet_init.pth", "--steps", "5",
         "--optimizer", "sgd", "--lr", "0.05", "--report", out / "parity", "--no-color"])

    banner(f"4/5 train the converted MindSpore script for {args.steps} steps (PyNative)")
    log = train_with_progress([sys.executable, "train.py", "--steps", args.steps, "--log-every", "5",
                               "--n-train", "256", "--n-val", "64", "--out", out / "crack_unet_ms.ckpt"],
                              cwd=out / "mindspore", steps=args.steps)

    banner("5/5 result")
    metrics = re.search(r"held-out:\s*(.*)", log)
    print(f"MindSpore port, {args.steps} steps: {metrics[1] if metrics else 'no metrics printed'}")
    print(f"parity report: {out / 'parity' / 'parity.html'}")
    print(f"converted code: {out / 'mindspore'}   checkpoint: {out / 'crack_unet_ms.ckpt'}")
    print(f"demo finished in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
