"""How far converted code is from what a MindSpore engineer would write by hand (issue 24), before and after.

Converts the crack U-Net example and the model folders of the research-repository corpus
(/work/shared/corpus/research_repos.md: each repo at its pinned commit, from the git object stores under
/work/.mirror) twice: with the reference checkout's code (``--before``, default /work/main: main at 530cd0a when
this benchmark was written) and with this checkout's code. It prints, for each, the team's yardstick
(/work/shared/tools/idiom_measure.py, whose measure is replicated in ``measure`` below): growth (output lines / torch
lines), helper lines and their share of the output (top-level defs and classes the conversion added), helper-free
files, ``set_train(True)`` added, ``is_floating_point()`` guards added, ``_msm*`` helper calls, files still importing
torch; and the issue's goals next to them. Fetched code goes to benchmarks/corpus/idiom (git-ignored), conversions
to a temporary folder (``--out`` keeps them).

    .venv/bin/python benchmarks/idiom.py                    # before and after, crack + corpus (several minutes)
    .venv/bin/python benchmarks/idiom.py --after-only       # this checkout only
    .venv/bin/python benchmarks/idiom.py --only crack       # sets whose name contains a text
    .venv/bin/python benchmarks/idiom.py --after-only --rank   # and which helpers account for most helper lines
"""
from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS_LIST = Path("/work/shared/corpus/research_repos.md")
MIRROR = Path("/work/.mirror")
FETCHED = ROOT / "benchmarks" / "corpus" / "idiom"
CRACK = ROOT / "examples" / "crack_unet" / "torch"
GOALS = "goal: growth <= 1.10x, helper lines <= 5% of output, >= 75% helper-free files, no dtype guard where the " \
        "evidence says floating, crack model.py and losses.py define no helper"


# ---------------------------------------------------------------- the yardstick (idiom_measure.py's measure)
def measure_pair(t: str, m: str) -> dict | None:
    """One torch file's text and its conversion: the figures idiom_measure.py counts."""
    try:
        tree, ttree = ast.parse(m), ast.parse(t)
    except SyntaxError:
        return None
    tnames = {n.name for n in ttree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    helper = sum(n.end_lineno - n.lineno + 1 for n in tree.body
                 if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name not in tnames)
    return dict(tl=len(t.splitlines()), ol=len(m.splitlines()), helper=helper,
                settrain=m.count("set_train(True)") - t.count("set_train(True)"),
                guard=m.count("is_floating_point()") - t.count("is_floating_point()"),
                msmcalls=len(re.findall(r"\b_msm\w*\(", m)),
                kept_torch=int(bool(re.search(r"^\s*(import torch\b|from torch\b)", m, re.M))))


def measure(src: Path, out: Path) -> tuple[list[dict], dict]:
    rows, tot = [], dict(tl=0, ol=0, helper=0, settrain=0, guard=0, msmcalls=0, files=0, helperfree=0, kept_torch=0)
    pairs = [(src, out)] if src.is_file() else [(f, out / f.relative_to(src)) for f in sorted(src.rglob("*.py"))]
    for f, o in pairs:
        if not o.exists():
            continue
        r = measure_pair(f.read_text(encoding="utf-8", errors="replace"), o.read_text(encoding="utf-8"))
        if r is None:
            continue
        r["file"] = str(f)
        rows.append(r)
        for k in ("tl", "ol", "helper", "settrain", "guard", "msmcalls", "kept_torch"):
            tot[k] += r[k]
        tot["files"] += 1
        tot["helperfree"] += int(r["helper"] == 0)
    return rows, tot


def helper_defs(t: str, m: str) -> list[tuple[str, int]]:
    """(name, lines) of each top-level def or class the conversion added (what ``measure_pair`` counts as helper)."""
    try:
        tree, ttree = ast.parse(m), ast.parse(t)
    except SyntaxError:
        return []
    tnames = {n.name for n in ttree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    return [(n.name, n.end_lineno - n.lineno + 1) for n in tree.body
            if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name not in tnames]


def ranking(items, per: dict, top: int) -> list[str]:
    """Helper names by the output lines they account for over the corpus (crack example left out): lines, files."""
    lines: dict[str, int] = {}
    files: dict[str, int] = {}
    for name, src in items:
        if name == "crack_unet" or name not in per:
            continue
        out = per[name][1]
        pairs = [(src, out)] if src.is_file() else [(f, out / f.relative_to(src)) for f in sorted(src.rglob("*.py"))]
        for f, o in pairs:
            if not o.exists():
                continue
            for h, n in helper_defs(f.read_text(encoding="utf-8", errors="replace"), o.read_text(encoding="utf-8")):
                lines[h] = lines.get(h, 0) + n
                files[h] = files.get(h, 0) + 1
    total = sum(lines.values()) or 1
    rows = sorted(lines, key=lambda h: -lines[h])[:top]
    return [f"  {lines[h]:6d} lines ({100 * lines[h] / total:4.1f}%) in {files[h]:3d} files  {h}" for h in rows]


def summary(tot: dict) -> str:
    return (f"growth {tot['ol'] / max(tot['tl'], 1):.2f}x, helper lines {tot['helper']} "
            f"({100 * tot['helper'] / max(tot['ol'], 1):.1f}% of output), helper-free files "
            f"{tot['helperfree']}/{tot['files']} ({100 * tot['helperfree'] / max(tot['files'], 1):.0f}%), "
            f"set_train(True) added {tot['settrain']}, dtype guards {tot['guard']}, _msm calls {tot['msmcalls']}, "
            f"files importing torch {tot['kept_torch']}")


# ---------------------------------------------------------------- the corpus
def corpus_entries() -> list[tuple[str, str, list[str]]]:
    """(repo, commit, model paths) for each row of research_repos.md (globs and non-path notes left out)."""
    out = []
    for line in CORPUS_LIST.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or "/" not in cells[0] or not re.fullmatch(r"[0-9a-f]{7,40}", cells[1]):
            continue
        paths = [p for p in re.findall(r"`([^`]+)`", cells[2])
                 if ("/" in p or p.endswith(".py")) and "*" not in p and " " not in p]
        out.append((cells[0], cells[1], [p.rstrip("/") for p in paths]))
    return out


def fetch(repo: str, commit: str, paths: list[str]) -> Path | None:
    """The repo's model paths at ``commit``, extracted with ``git archive`` (no checkout, the store is untouched)."""
    dest = FETCHED / repo.replace("/", "+")
    if all((dest / p).exists() for p in paths):
        return dest
    store = MIRROR / repo.replace("/", "+") / "repo"
    gitdir = store / ".git" if (store / ".git").is_dir() else store
    if not gitdir.exists():
        return None
    dest.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", f"--git-dir={gitdir}", "archive", "--format=tar", commit, *paths],
                             capture_output=True)
    if archive.returncode != 0:
        print(f"  {repo}: git archive failed: {archive.stderr.decode(errors='replace').strip()[:200]}")
        return None
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
    return dest


def convert(code_root: Path, src: Path, out: Path) -> None:
    """``msmigrate convert src -o out`` with the code of ``code_root`` (its own venv and package)."""
    env = dict(os.environ, PYTHONPATH=str(code_root), ONEDNN_MAX_CPU_ISA="AVX2", GLOG_v="3")
    py = code_root / ".venv" / "bin" / "python"
    subprocess.run([str(py), "-m", "migrate.cli", "convert", str(src), "-o", str(out)], cwd=str(code_root),
                   env=env, capture_output=True, timeout=1800)


def sets(only: str | None) -> list[tuple[str, Path]]:
    """(name, torch path) for the crack example and each corpus model path."""
    out = [("crack_unet", CRACK)]
    for repo, commit, paths in corpus_entries():
        if only and only not in repo and only not in "corpus":
            continue
        base = fetch(repo, commit, paths)
        if base is None:
            print(f"  {repo}: not available, left out")
            continue
        out += [(f"{repo}:{p}", base / p) for p in paths if (base / p).exists()]
    return [s for s in out if not only or only in s[0]]


def run(code_root: Path, items, work: Path, label: str) -> tuple[dict, dict]:
    tot_all, per = None, {}
    for name, src in items:
        out = work / label / re.sub(r"[^\w.+-]+", "_", name)
        if src.is_file():
            out = out / src.name
        if not out.exists():
            convert(code_root, src, out)
        _, tot = measure(src, out)
        per[name] = (tot, out)
        if tot_all is None:
            tot_all = {k: 0 for k in tot}
        if name != "crack_unet":
            for k, v in tot.items():
                tot_all[k] += v
    return per, tot_all or {}


def crack_files(out: Path) -> str:
    helpers = []
    for f in ("model.py", "losses.py"):
        _, tot = measure(CRACK / f, out / f if out.is_dir() else out)
        helpers.append(f"{f} helper lines {tot['helper']}")
    return ", ".join(helpers)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="/work/main", help="checkout whose code gives the 'before' figures")
    ap.add_argument("--after-only", action="store_true")
    ap.add_argument("--only", help="sets whose name contains this text (crack, a repo name)")
    ap.add_argument("--out", help="keep the conversions here (reused when present)")
    ap.add_argument("--files", action="store_true", help="print each set's figures")
    ap.add_argument("--rank", type=int, nargs="?", const=25, default=0, metavar="N",
                    help="print the N helpers (default 25) accounting for most helper lines over the corpus")
    args = ap.parse_args()
    items = sets(args.only)
    work = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="idiom_"))
    print(f"{len(items)} sets: the crack example and {len(items) - 1} corpus model paths; conversions in {work}")
    sides = [("after", ROOT)] if args.after_only else [("before", Path(args.before)), ("after", ROOT)]
    for label, code_root in sides:
        per, tot = run(code_root, items, work, label)
        if args.files:
            for name, (t, _) in per.items():
                print(f"  {label:6s} {name:70s} {summary(t)}")
        if "crack_unet" in per:
            crack_tot, crack_out = per["crack_unet"]
            print(f"{label:6s} crack example: {summary(crack_tot)}; {crack_files(crack_out)}")
        if args.rank:
            print(f"{label:6s} helpers by corpus lines (name as written; the same helper in many files counts each time):")
            print("\n".join(ranking(items, per, args.rank)))
        if tot:
            print(f"{label:6s} corpus ({len(per) - ('crack_unet' in per)} model paths): {summary(tot)}")
    print(GOALS)
    if not args.out:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
