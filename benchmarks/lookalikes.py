"""The look-alike property (tests/core/test_lookalikes.py) over many generated programs.

    python benchmarks/lookalikes.py [--examples 10000]

Prints the number of programs checked, the failures (each a minimal program, by hypothesis's shrinking) and the
rate. `make test` runs 300 of them.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--examples", type=int, default=10_000)
    args = ap.parse_args()
    env = dict(os.environ, MSMIGRATE_LOOKALIKE_EXAMPLES=str(args.examples))
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "tests/core/test_lookalikes.py"], cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    print(proc.stdout[-3000:])
    verdict = "0 failures" if proc.returncode == 0 else "FAILURES (minimal programs above)"
    print(f"look-alike programs: {args.examples} generated, {verdict}, {seconds:.0f} s "
          f"({args.examples / seconds:.0f} programs/s)")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main())
