"""Conversion throughput on real PyTorch model code: kLOC/s single-process and with --jobs.

The corpus is the source of a model-zoo package fetched with pip (never committed): by default timm's models
(``pip download --no-deps timm``, unpacked into benchmarks/corpus/). Pass ``--corpus DIR`` to use another tree.

    python benchmarks/convert_speed.py [--corpus DIR] [--jobs 2] [--repeat 3]

Prints lines of code, seconds, kLOC/s, kLOC/s per core, the parse-only rates for reference (libcst, Python's
``ast``), convert with the relevance pre-pass off (every statement walked), where the time of one conversion goes
(parse, the passes, imports and code generation), and the share of torch API uses converted.
Target (issue 11): >= 8 kLOC/s per core end to end, >= 1.9x with --jobs 2.
"""
from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import libcst as cst

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent))

from migrate.api import convert_path  # noqa: E402
from migrate.core import relevance  # noqa: E402
from migrate.core.resolve import Project  # noqa: E402


def fetch_timm(dest: Path) -> Path:
    target = dest / "timm"
    if target.exists():
        return target
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "timm", "-d", tmp], check=True)
        wheel = next(Path(tmp).glob("timm-*.whl"))
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(dest, [n for n in zf.namelist() if n.startswith("timm/") and n.endswith(".py")])
    return target


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    corpus = args.corpus or fetch_timm(ROOT / "corpus")
    files = sorted(corpus.rglob("*.py"))
    loc = sum(p.read_text(encoding="utf-8", errors="replace").count("\n") for p in files)
    print(f"corpus: {corpus} ({len(files)} files, {loc / 1000:.1f} kLOC)")

    texts = [p.read_text(encoding="utf-8") for p in files]
    t0 = time.perf_counter()
    for text in texts:
        cst.parse_module(text)
    parse_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    for text in texts:
        ast.parse(text)
    ast_s = time.perf_counter() - t0
    relevance.ENABLED = False
    walk_all_s = min(_timed(corpus, 1) for _ in range(max(1, args.repeat - 1)))
    relevance.ENABLED = True
    shares = _profile(files)

    rows = []
    for jobs in (1, args.jobs):
        best = min(_timed(corpus, jobs) for _ in range(args.repeat))
        rows.append((jobs, best))
    report = convert_path(corpus)
    print(f"{'mode':<22}{'seconds':>9}{'kLOC/s':>9}{'kLOC/s/core':>13}")
    print(f"{'ast.parse only':<22}{ast_s:>9.2f}{loc / ast_s / 1000:>9.1f}{loc / ast_s / 1000:>13.1f}")
    print(f"{'libcst parse only':<22}{parse_s:>9.2f}{loc / parse_s / 1000:>9.1f}{loc / parse_s / 1000:>13.1f}")
    print(f"{'convert, walk all':<22}{walk_all_s:>9.2f}{loc / walk_all_s / 1000:>9.1f}{loc / walk_all_s / 1000:>13.1f}")
    for jobs, secs in rows:
        rate = loc / secs / 1000
        print(f"{f'convert --jobs {jobs}':<22}{secs:>9.2f}{rate:>9.1f}{rate / jobs:>13.1f}")
    print(f"speed-up with --jobs {args.jobs}: {rows[0][1] / rows[1][1]:.2f}x; "
          f"relevance pre-pass: {walk_all_s / rows[0][1]:.2f}x; convert / libcst parse: {rows[0][1] / parse_s:.2f}x")
    print("where one conversion's time goes: " + ", ".join(f"{k} {v:.0%}" for k, v in shares.items()))
    print(f"torch API uses: {report.api_calls}, converted: {report.converted} ({report.conversion_rate:.1%}), "
          f"unsupported: {len(report.unsupported)}, files with errors: {len({e.file for e in report.errors})}")


def _profile(files) -> dict[str, float]:
    """Shares of convert time: libcst parse, each pass, and the rest (imports, code generation, report lines)."""
    from migrate.core import pipeline

    spent: dict[str, float] = {"parse": 0.0}
    original_passes, original_parse = pipeline.PASSES, pipeline.cst.parse_module

    def timed_pass(p):
        def run(module, ctx):
            t = time.perf_counter()
            out = p.run(module, ctx)
            spent[p.name] = spent.get(p.name, 0.0) + time.perf_counter() - t
            return out
        return pipeline.Pass(p.name, run, p.applies, p.methods)

    def timed_parse(text):
        t = time.perf_counter()
        out = original_parse(text)
        spent["parse"] += time.perf_counter() - t
        return out

    pipeline.PASSES = tuple(timed_pass(p) for p in original_passes)
    pipeline.cst.parse_module = timed_parse
    project = Project(files[0].parent) if files else None
    t0 = time.perf_counter()
    try:
        for p in files:
            pipeline.convert(p.read_text(encoding="utf-8"), str(p), project)
    finally:
        pipeline.PASSES, pipeline.cst.parse_module = original_passes, original_parse
    total = time.perf_counter() - t0
    shares = {k: v / total for k, v in spent.items()}
    shares["imports, code, report"] = 1 - sum(shares.values())
    return shares


def _timed(corpus: Path, jobs: int) -> float:
    t0 = time.perf_counter()
    convert_path(corpus, jobs=jobs)
    return time.perf_counter() - t0


if __name__ == "__main__":
    main()
