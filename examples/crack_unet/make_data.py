"""Write a batch of synthetic crack samples to an .npz file for parity runs.

    python examples/crack_unet/make_data.py --n 4 --size 64 --seed 0 -o crack_batch.npz

Keys: `input` (N, 3, H, W) float32 normalised images, `target` (N, 1, H, W) float32 masks in {0, 1}.
The samples come from torch/data.py (numpy generation, the same seed gives the same arrays).
"""
import argparse
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch"))
from data import make_arrays  # noqa: E402  (the reference example's own generator)


def write_npz(path, n, size, seed):
    """Generate n samples and write them atomically (temp file, then rename) to `path`."""
    images, masks = make_arrays(n, size, seed)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(suffix=".npz", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, input=images, target=masks)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    return images.shape, masks.shape


def main():
    parser = argparse.ArgumentParser(description="Write synthetic crack samples (input, target) to an .npz file.")
    parser.add_argument("--n", type=int, default=4, help="number of samples")
    parser.add_argument("--size", type=int, default=64, help="image height and width")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--out", default="crack_batch.npz", help="output .npz path")
    args = parser.parse_args()
    if args.n < 1 or args.size < 8:
        parser.error("--n must be >= 1 and --size >= 8")
    input_shape, target_shape = write_npz(args.out, args.n, args.size, args.seed)
    print(f"wrote {args.out}: input {input_shape}, target {target_shape}")


if __name__ == "__main__":
    main()
