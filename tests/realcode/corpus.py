"""Real Python that no one here wrote, fetched or located at test time (never committed).

* the standard library of the running interpreter (no torch: conversion must return it byte for byte);
* the installed torch package's ``nn``, ``optim`` and ``utils/data`` sources;
* model packages from the package index (``pip download --no-deps``, pure-Python wheels unpacked into
  ``benchmarks/corpus/``, which git ignores): timm and segmentation_models_pytorch by default.
"""
from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "benchmarks" / "corpus"
#: package index name -> import name (pinned: the corpus must not change under the tests)
PACKAGES = {"timm==1.0.31": "timm", "segmentation-models-pytorch==0.6.0": "segmentation_models_pytorch"}


def stdlib_files() -> list[Path]:
    std = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in std.rglob("*.py")
                  if "site-packages" not in p.parts and "test" not in p.parts and "tests" not in p.parts)


def torch_files() -> list[Path]:
    import importlib.util

    spec = importlib.util.find_spec("torch")
    base = Path(spec.origin).parent
    return sorted(p for d in ("nn", "optim", "utils/data") for p in (base / d).rglob("*.py"))


def fetch(requirement: str) -> Path:
    """The unpacked sources of a package from the index (downloaded once into benchmarks/corpus/)."""
    name = PACKAGES.get(requirement, requirement.split("==")[0].replace("-", "_"))
    target = CORPUS / name
    if target.is_dir() and any(target.rglob("*.py")):
        return target
    CORPUS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        requirement, "-d", tmp], check=True, capture_output=True, timeout=300)
        wheel = next(Path(tmp).glob("*.whl"))
        unpacked = Path(tempfile.mkdtemp(dir=CORPUS, prefix=f".{name}."))
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(unpacked, [n for n in zf.namelist() if n.startswith(f"{name}/") and n.endswith(".py")])
        try:  # atomic: test workers running side by side (pytest -n 2) never see half a package
            os.rename(unpacked / name, target)
        except OSError:  # another worker got there first
            shutil.rmtree(unpacked / name, ignore_errors=True)
        shutil.rmtree(unpacked, ignore_errors=True)
    return target


def sample(files: list[Path], n: int, seed: int = 0) -> list[Path]:
    """A fixed sample (the same files on every run, so a failure reproduces)."""
    files = sorted(files)
    if len(files) <= n:
        return files
    return sorted(random.Random(seed).sample(files, n))
