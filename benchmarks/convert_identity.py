"""Byte-identity of conversion before and after a change: convert the same corpora with a reference commit's
converter and with this checkout's, and compare every file's output text, markers and errors.

    python benchmarks/convert_identity.py [--ref cc436b9] [--corpus DIR ...] [--only NAME]

The reference converter is ``git archive REF migrate mappings`` unpacked under /tmp (no worktree is added); its
results are cached in benchmarks/corpus/identity/REF/ (git-ignored), so a rerun converts only with this checkout.
Default corpora (each when present): timm (benchmarks/corpus/timm, see convert_speed.py), torchvision's models
(installed in the venv), the research repositories (benchmarks/corpus/research/src, ``real_models.py
--research --fetch-only``), examples/, and a sample of the standard library. Prints one line per corpus and each
differing file; exits 1 on any difference.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STDLIB_SAMPLE = ("json", "email", "asyncio", "unittest", "importlib", "concurrent", "logging", "http")


def corpora() -> dict[str, Path]:
    out = {}
    timm = ROOT / "benchmarks" / "corpus" / "timm"
    if timm.is_dir():
        out["timm"] = timm
    try:
        import torchvision  # noqa: F401 - only its location

        out["torchvision"] = Path(torchvision.__file__).parent / "models"
    except ImportError:
        pass
    research = ROOT / "benchmarks" / "corpus" / "research" / "src"
    if research.is_dir():
        out["research"] = research
    out["examples"] = ROOT / "examples"
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for name in STDLIB_SAMPLE:
        if (stdlib / name).is_dir():
            out[f"stdlib-{name}"] = stdlib / name
    return out


def worker(corpus: Path, dest: Path) -> None:
    """Convert ``corpus`` with the ``migrate`` package on sys.path; write {file: [code, markers, errors]}."""
    from migrate.api import convert_path

    report = convert_path(corpus)
    out = {}
    for r in report.files:
        out[str(Path(r.filename).relative_to(corpus))] = [
            r.code, [[u.line, u.api, u.reason] for u in r.unsupported], [[e.line, e.message] for e in r.errors]]
    dest.write_text(json.dumps(out, sort_keys=True), encoding="utf-8")


def run(tree: Path, corpus: Path, dest: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), ONEDNN_MAX_CPU_ISA="AVX2", GLOG_v="3")
    subprocess.run([sys.executable, str(Path(__file__).resolve()), "--worker", str(corpus), str(dest)],
                   env=env, check=True, cwd=tree)
    return json.loads(dest.read_text(encoding="utf-8"))


def reference_tree(ref: str) -> Path:
    sha = subprocess.run(["git", "rev-parse", "--short", ref], cwd=ROOT, capture_output=True, text=True,
                         check=True).stdout.strip()
    tree = Path(tempfile.gettempdir()) / f"msmigrate-ref-{sha}"
    if not (tree / "migrate").is_dir():
        tree.mkdir(parents=True, exist_ok=True)
        data = subprocess.run(["git", "archive", "--format=tar", sha, "migrate", "mappings", "pyproject.toml"],
                              cwd=ROOT, capture_output=True, check=True).stdout
        with tempfile.TemporaryFile() as fh:
            fh.write(data)
            fh.seek(0)
            with tarfile.open(fileobj=fh) as tar:
                tar.extractall(tree, filter="data")
    return tree


def main() -> int:
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        worker(Path(sys.argv[2]), Path(sys.argv[3]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", default="cc436b9", help="the commit whose converter is the reference")
    ap.add_argument("--corpus", type=Path, action="append", help="a tree to compare (repeatable; default: all)")
    ap.add_argument("--only", action="append", help="default corpora whose name contains this text")
    args = ap.parse_args()
    # a tree given by path is cached under its name and a hash of its absolute path (two `src` never collide)
    trees = ({f"{p.name}-{hashlib.sha1(str(p.resolve()).encode()).hexdigest()[:8]}": p.resolve() for p in args.corpus}
             if args.corpus else corpora())
    if args.only:
        trees = {k: v for k, v in trees.items() if any(o in k for o in args.only)}
    ref = reference_tree(args.ref)
    cache = ROOT / "benchmarks" / "corpus" / "identity" / ref.name
    cache.mkdir(parents=True, exist_ok=True)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, corpus in trees.items():
            before_file = cache / f"{name}.json"
            before = (json.loads(before_file.read_text(encoding="utf-8")) if before_file.exists()
                      else run(ref, corpus, before_file))
            after = run(ROOT, corpus, Path(tmp) / f"{name}.json")
            differ = sorted(f for f in set(before) | set(after) if before.get(f) != after.get(f))
            lines = sum(v[0].count("\n") for v in after.values())
            print(f"{name}: {len(after)} files, {lines} output lines, {len(differ)} differ")
            for f in differ:
                b, a = before.get(f), after.get(f)
                what = ("missing" if a is None or b is None else
                        "code" if a[0] != b[0] else "markers" if a[1] != b[1] else "errors")
                print(f"  {f}: {what}")
            bad += len(differ)
    print("identical" if not bad else f"{bad} files differ")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
