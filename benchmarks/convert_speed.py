"""Conversion throughput on real PyTorch model code: kLOC/s single-process and with --jobs.

The corpus is the source of a model-zoo package fetched with pip (never committed): by default timm's models
(``pip download --no-deps timm``, unpacked into benchmarks/corpus/). Pass ``--corpus DIR`` to use another tree.

    python benchmarks/convert_speed.py [--corpus DIR] [--jobs 2] [--repeat 3]

Prints lines of code, seconds, kLOC/s, kLOC/s per core, the parse-only rates for reference (libcst, Python's
``ast``), convert with the relevance pre-pass off (every statement walked), where the time of one conversion goes
(parse, the passes, imports and code generation), and the share of torch API uses converted.
Target (issue 11): >= 8 kLOC/s per core end to end, >= 1.9x with --jobs 2.

PaConvert (PyTorch -> Paddle, the fastest peer; issue 29) runs on the same tree in the same run, ``--no_format``:
its source is ``git archive``d from its mirror (DIR/PaddlePaddle+PaConvert/repo, ``--mirror`` or
$MSMIGRATE_MIRROR, default ../.mirror beside the checkout) into a throwaway venv under /tmp with the packages it
imports (astor, black, isort) installed there by pip; never a dependency of this project. When that fails the
benchmark says so in one line and prints msmigrate's figures alone. Times are wall seconds and, since a shared
machine's wall time is noise, CPU seconds (this process's, or the child's) too; the ratio is given for both.
"""
from __future__ import annotations

import argparse
import ast
import os
import resource
import shutil
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


PACONVERT_VENV = Path(tempfile.gettempdir()) / "msmigrate-paconvert"


def paconvert(mirror: Path) -> tuple[Path | None, str]:
    """The throwaway venv's python that runs PaConvert (its source under venv/src), or None and why not."""
    python, src = PACONVERT_VENV / "bin" / "python", PACONVERT_VENV / "src"
    probe = [str(python), "-c", "import astor, black, isort, paconvert.converter"]
    env = dict(os.environ, PYTHONPATH=str(src))
    if python.exists() and subprocess.run(probe, env=env, capture_output=True).returncode == 0:
        return python, _paconvert_version(mirror)
    repo = mirror / "PaddlePaddle+PaConvert" / "repo"
    git_dir = repo / ".git" if (repo / ".git").exists() else repo
    if not git_dir.exists():
        return None, f"no mirror at {repo}"
    try:
        shutil.rmtree(PACONVERT_VENV, ignore_errors=True)
        subprocess.run([sys.executable, "-m", "venv", str(PACONVERT_VENV)], check=True, capture_output=True)
        src.mkdir(parents=True)
        archive = subprocess.run(["git", f"--git-dir={git_dir}", "archive", "HEAD"], check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
        pip = subprocess.run([str(python), "-m", "pip", "install", "-q", "astor", "black==22.8.0",
                              "isort==5.11.5"], capture_output=True, text=True, timeout=600)
        if pip.returncode:
            return None, "pip could not install astor/black/isort: " + (pip.stderr.strip().splitlines() or ["?"])[-1]
        if subprocess.run(probe, env=env, capture_output=True).returncode:
            return None, "its modules do not import in the venv"
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"{type(exc).__name__}: {exc}"
    return python, _paconvert_version(mirror)


def _paconvert_version(mirror: Path) -> str:
    repo = mirror / "PaddlePaddle+PaConvert" / "repo"
    git_dir = repo / ".git" if (repo / ".git").exists() else repo
    out = subprocess.run(["git", f"--git-dir={git_dir}", "describe", "--tags", "--always"], capture_output=True,
                         text=True)
    return out.stdout.strip() or "?"


def _run_paconvert(python: Path, corpus: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of one PaConvert run over ``corpus`` (one process), --no_format."""
    with tempfile.TemporaryDirectory() as tmp:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run([str(python), "-m", "paconvert.main", "--in_dir", str(corpus), "--out_dir",
                        str(Path(tmp) / "out"), "--no_format", "--log_dir", str(Path(tmp) / "log")],
                       env=dict(os.environ, PYTHONPATH=str(PACONVERT_VENV / "src")), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", type=Path)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--mirror", type=Path, default=Path(os.environ.get("MSMIGRATE_MIRROR", ROOT.parent.parent /
                                                                         ".mirror")))
    ap.add_argument("--quick", action="store_true", help="only msmigrate --jobs 1 / N and PaConvert, once each")
    args = ap.parse_args()
    if args.quick:
        args.repeat = 1
    corpus = args.corpus or fetch_timm(ROOT / "corpus")
    files = sorted(corpus.rglob("*.py"))
    loc = sum(p.read_text(encoding="utf-8", errors="replace").count("\n") for p in files)
    print(f"corpus: {corpus} ({len(files)} files, {loc / 1000:.1f} kLOC); load average before: "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    rows = []  # (mode, wall s, cpu s, processes)
    if not args.quick:
        texts = [p.read_text(encoding="utf-8") for p in files]
        rows.append(("ast.parse only", *_timed_call(lambda: [ast.parse(t) for t in texts]), 1))
        rows.append(("libcst parse only", *_timed_call(lambda: [cst.parse_module(t) for t in texts]), 1))
        relevance.ENABLED = False
        rows.append(("convert, walk all", *_best(lambda: convert_path(corpus), max(1, args.repeat - 1)), 1))
        relevance.ENABLED = True
        shares = _profile(files)
    by_jobs = {}
    for jobs in (1, args.jobs):
        by_jobs[jobs] = _best(lambda: convert_path(corpus, jobs=jobs), args.repeat)
        rows.append((f"convert --jobs {jobs}", *by_jobs[jobs], jobs))
    python, why = paconvert(args.mirror)
    pa = None
    if python is not None:
        try:
            pa = _best(lambda: _run_paconvert(python, corpus), args.repeat)
            rows.append((f"PaConvert {why}", *pa, 1))
        except subprocess.CalledProcessError as exc:
            why = f"its run failed (exit {exc.returncode})"
    print(f"{'mode':<28}{'wall s':>9}{'CPU s':>9}{'kLOC/s':>9}{'kLOC/CPU s':>12}")
    for mode, wall, cpu, _jobs in rows:
        print(f"{mode:<28}{wall:>9.2f}{cpu:>9.2f}{loc / wall / 1000:>9.1f}{loc / cpu / 1000 if cpu else 0:>12.1f}")
    one, many = by_jobs[1], by_jobs[args.jobs]
    print(f"speed-up with --jobs {args.jobs}: {one[0] / many[0]:.2f}x wall (CPU spent: {many[1] / one[1]:.2f}x "
          f"of --jobs 1); load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if pa is None:
        print(f"PaConvert not run: {why}")
    else:
        print(f"msmigrate / PaConvert, one process: {one[0] / pa[0]:.2f}x wall, {one[1] / pa[1]:.2f}x CPU "
              f"(goal, issue 29: <= 1)")
    if not args.quick:
        print(f"relevance pre-pass: {rows[2][1] / one[0]:.2f}x; convert / libcst parse: {one[0] / rows[1][1]:.2f}x")
        print("where one conversion's time goes: " + ", ".join(f"{k} {v:.0%}" for k, v in shares.items()))
        report = convert_path(corpus)
        print(f"torch API uses: {report.api_calls}, converted: {report.converted} ({report.conversion_rate:.1%}), "
              f"unsupported: {len(report.unsupported)}, files with errors: {len({e.file for e in report.errors})}")


def _timed_call(fn) -> tuple[float, float]:
    """(wall, CPU) seconds of ``fn()``; CPU counts this process and the children it waited for (--jobs)."""
    cpu0 = time.process_time()
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t0
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = time.process_time() - cpu0 + (kids1.ru_utime - kids0.ru_utime) + (kids1.ru_stime - kids0.ru_stime)
    if isinstance(out, tuple):  # a child run that measured itself
        return out
    return wall, cpu


def _best(fn, repeat: int) -> tuple[float, float]:
    runs = [_timed_call(fn) for _ in range(max(1, repeat))]
    return min(r[0] for r in runs), min(r[1] for r in runs)


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


if __name__ == "__main__":
    main()
