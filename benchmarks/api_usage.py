"""Rank torch APIs by how often real code uses them, and say for each whether msmigrate's table converts it.

The corpus is the source of real packages fetched with ``pip download --no-deps`` (never committed; unpacked into
benchmarks/corpus/src/): model zoos (timm, torchvision, segmentation_models_pytorch) and training-heavy libraries
(pytorch-lightning, pytorch-ignite, accelerate), plus the repository's own crack U-Net example. Each package is
scanned the way ``msmigrate scan`` does (a conversion with nothing written), so a use counts exactly when the
converter sees a torch API there.

    python benchmarks/api_usage.py [--out docs/api_usage.md] [--json FILE] [--top 300] [--jobs 2]
    python benchmarks/api_usage.py --from-json FILE [--out ...]   # re-render a measurement without scanning

Per API: uses, how many were converted ("mapped"), refused for an argument or a form ("unsupported", with the
most frequent reason) and absent from the table ("missing"). Tensor methods that the table lacks are not seen by
the converter (a method call is only recognised through the table), so they are counted apart: every call of a
name that ``torch.Tensor`` defines, in files that import torch. That count over-estimates (the receiver may be a
list or a module; ``x.view`` and ``d.items`` look alike) and is a ranking aid, not a coverage figure.
"""
from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import time
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CORPUS = ROOT / "benchmarks" / "corpus"
# (distribution, version, top-level import folders in the wheel, role). torchvision 0.28 is the release built for
# torch 2.13; --no-deps keeps pip from fetching any torch.
PACKAGES = [
    ("timm", "1.0.31", ["timm"], "model zoo"),
    ("torchvision", "0.28.0", ["torchvision"], "model zoo"),
    ("segmentation_models_pytorch", "0.6.0", ["segmentation_models_pytorch"], "model zoo"),
    ("pytorch_lightning", "2.6.6", ["pytorch_lightning"], "training"),
    ("pytorch_ignite", "0.5.5", ["ignite"], "training"),
    ("accelerate", "1.15.0", ["accelerate"], "training"),
]
LOCAL = [("crack_unet (examples)", ROOT / "examples" / "crack_unet" / "torch", "real model")]
MISSING_REASON = "no MindSpore mapping in msmigrate's table"


def fetch(dist: str, version: str, folders: list[str]) -> Path:
    """The unpacked .py sources of one wheel (downloaded once into benchmarks/corpus/)."""
    target = CORPUS / "src" / f"{dist}-{version}"
    if target.exists():
        return target
    wheels = list(CORPUS.glob(f"{dist}-{version}-*.whl"))
    if not wheels:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        f"{dist.replace('_', '-')}=={version}", "-d", str(CORPUS)], check=True)
        wheels = list(CORPUS.glob(f"{dist}-{version}-*.whl"))
    with zipfile.ZipFile(wheels[0]) as zf:
        names = [n for n in zf.namelist() if n.endswith(".py") and n.split("/", 1)[0] in folders]
        zf.extractall(target, names)
    return target


def tensor_method_names() -> set[str]:
    import torch

    return {n for n in dir(torch.Tensor) if not n.startswith("_")}


def untabled_method_calls(root: Path, names: set[str], tabled: set[str]) -> Counter:
    """Calls ``<expr>.name(...)`` of Tensor method names the table lacks, in files that import torch."""
    counts: Counter = Counter()
    for path in root.rglob("*.py"):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        if not any(isinstance(n, (ast.Import, ast.ImportFrom)) and "torch" in ast.dump(n) for n in tree.body):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                name = node.func.attr
                if name in names and name not in tabled and not (
                        isinstance(node.func.value, ast.Name) and node.func.value.id in ("torch", "nn", "F")):
                    counts[f"Tensor.{name}"] += 1
    return counts


def scan(root: Path) -> dict:
    """``msmigrate scan`` file by file (a file the converter crashes on is counted, not fatal)."""
    from migrate.api import convert_file, plan

    files, crashed = [], []
    for src, _, display in plan(root, None):
        try:
            files.append(convert_file(src, display))
        except Exception as exc:  # noqa: BLE001 - a converter defect: named in the output, the scan goes on
            crashed.append(f"{src.relative_to(root)}: {type(exc).__name__}: {exc}")
    mapped = sum((f.apis for f in files), Counter())
    missing: Counter = Counter()
    refused: Counter = Counter()
    reasons: dict[str, Counter] = defaultdict(Counter)
    where = []  # every use not converted: (api, file:line, reason), for the JSON
    for f in files:
        for u in f.unsupported:
            where.append((u.api, f"{f.filename}:{u.line}", u.reason))
            if u.reason == MISSING_REASON:
                missing[u.api] += 1
            else:
                refused[u.api] += 1
                reasons[u.api][u.reason] += 1
    return {"files": len(files) + len(crashed), "errors": sum(len(f.errors) for f in files), "crashed": crashed,
            "mapped": mapped, "refused": refused, "missing": missing, "reasons": dict(reasons), "where": where}


def _scan_one(job):
    """One package (run in a worker process with --jobs): the scan, its untabled method calls, its seconds."""
    root, names, tabled = job
    t0 = time.perf_counter()
    s = scan(root)
    return s, untabled_method_calls(root, names, tabled), time.perf_counter() - t0


def measure(jobs: int = 1) -> dict:
    from migrate.mapping import load_table

    table = load_table()
    tabled = set(table.methods)
    names = tensor_method_names()
    sources = [(f"{d} {v}", fetch(d, v, f), role) for d, v, f, role in PACKAGES] + LOCAL
    per_package = []
    total = {k: Counter() for k in ("mapped", "refused", "missing", "methods")}
    reasons: dict[str, Counter] = defaultdict(Counter)
    where = []
    work = [(root, names, tabled) for _, root, _ in sources]
    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            results = pool.map(_scan_one, work, chunksize=1)
    else:
        results = map(_scan_one, work)
    for (label, root, role), (s, methods, seconds) in zip(sources, results):
        where += [(api, f"{label}: {loc}", reason) for api, loc, reason in s["where"]]
        uses = sum(s["mapped"].values()) + sum(s["refused"].values()) + sum(s["missing"].values())
        per_package.append({"package": label, "role": role, "files": s["files"], "errors": s["errors"], "crashed": s["crashed"],
                            "uses": uses,
                            "mapped": sum(s["mapped"].values()), "refused": sum(s["refused"].values()),
                            "missing": sum(s["missing"].values()), "untabled_method_calls": sum(methods.values()),
                            "seconds": round(seconds, 1)})
        for k in ("mapped", "refused", "missing"):
            total[k].update(s[k])
        total["methods"].update(methods)
        for api, c in s["reasons"].items():
            reasons[api].update(c)
        print(f"{label:<40} {uses:>6} uses  {per_package[-1]['mapped'] / max(uses, 1):6.1%} mapped  "
              f"{per_package[-1]['seconds']:>6.1f} s", file=sys.stderr)
    apis = set(total["mapped"]) | set(total["refused"]) | set(total["missing"])
    rows = sorted(({"api": a, "uses": total["mapped"][a] + total["refused"][a] + total["missing"][a],
                    "mapped": total["mapped"][a], "unsupported": total["refused"][a], "missing": total["missing"][a],
                    "reason": reasons[a].most_common(1)[0][0] if reasons[a] else ""} for a in apis),
                  key=lambda r: (-r["uses"], r["api"]))
    return {"entries": len(table), "packages": per_package, "apis": rows,
            "untabled_methods": total["methods"].most_common(),
            "reasons": {a: dict(c) for a, c in reasons.items()}, "not_converted": where}


COUNTING = [
    "- A use is a call or a reference of a torch API that the converter sees (as `msmigrate scan` reports it). A"
    " method call is recognised through the table: on a receiver known to be a tensor every call counts, and one of"
    " a method the table lacks is *missing*; on a receiver of unknown type, a call that does not fit torch's"
    " signature (`obj.view(a, b, key=1)`) is taken for a look-alike and not counted.",
    "- `f(..., **options)`: counted *mapped*. The converted call passes `**_msmigrate_kwargs(api, options, ...)`,"
    " which checks the keys when the code runs: it renames what the entry maps one to one, drops devices, drops a"
    " dtype only at its default (None or float32) and raises a TypeError for any other key (timm's"
    " `**dd = {'device': ..., 'dtype': ...}` passes; `padding=` through `**` would raise, never be guessed).",
    "- Values told apart when the code runs are counted *mapped*: `x.to(v)` (a device or a dtype), `torch.max(x, v)`"
    " with `v` a name (a dim or a tensor).",
    "- In-place methods: a result used as a value or a chain on one tensor (`v.mul_(b).add_(g)`) is converted"
    " (MindSpore's `x.copy_(v)` returns a tensor sharing x's memory). A basic-index subscript (integers, slices,"
    " `...`, `None`: a view in torch) as the receiver of a whole statement, or the root of its chain"
    " (`boxes[:, 0].add_(w).neg_()`), becomes `boxes[:, 0] = ...` (MindSpore's setitem writes into the tensor); an"
    " index that may be a tensor (`x[i]`, advanced indexing: a copy in torch), a view (`x.view(-1)`), a"
    " `float()`/`to()` result or a subscript whose result is used as a value is *unsupported*.",
    "- `hasattr(torch, 'name')` / `getattr(F, 'name')` with a literal name count as a use of the module (`torch`,"
    " `torch.nn.functional`): *mapped*, since the probe is answered from the table (True where the name converts,"
    " so the branch taken converts; False otherwise, the branch the code wrote for a torch without it). Other uses"
    " of a module as a value (`getattr(torch, name)`, `setattr(torch, ...)`) stay *missing*.",
    "- *Mapped* means converted. A use refused for a stated reason (a table entry that marks the form unsupported,"
    " or `unsupported.\"*\"` entries that only explain why) counts as *unsupported*, never as mapped.",
    "- Names with no honest conversion have refusal entries (mappings/distributed_refused.toml: FSDP,"
    " distributed checkpoints, DTensor, pipelining; facilities_refused.toml: operator registration, dispatcher"
    " internals, ONNX export, the profiler, torchvision's compiled operators, eager quantization, torch.fx, pruning;"
    " accelerators.toml: device calls torch itself cannot make without the device, generator states): their uses are"
    " *unsupported* with that reason, not *missing*, and never *mapped*.",
    "- A custom optimizer (`class Lamb(Optimizer)`) is *unsupported* at its base class (MindSpore optimizers get the"
    " gradients as their call's argument; parameters carry no `.grad`). The torch calls inside its `step`"
    " (`torch._foreach_*`...) still count one by one, mapped when each converts: the class as a whole does not run.",
    "- `Tensor.norm` with a variable `p` is *unsupported*: most of those uses are calls of a submodule named `norm`"
    " (`attn.norm(x)`, `blk.norm(x)`) on a receiver whose type the converter cannot tell; they are counted as the"
    " converter reports them, not dropped from the measure.",
]


def _status(r: dict) -> str:
    if r["missing"]:
        return "missing"
    if r["unsupported"] and not r["mapped"]:
        return "unsupported"
    return "partial" if r["unsupported"] else "mapped"


def render(data: dict, top: int) -> str:
    rows = data["apis"]
    uses = sum(r["uses"] for r in rows)
    mapped = sum(r["mapped"] for r in rows)
    missing = sum(r["missing"] for r in rows)
    refused = sum(r["unsupported"] for r in rows)
    lines = [
        "# torch API usage in real code",
        "",
        "Regenerate with `python benchmarks/api_usage.py` (downloads the packages below with `pip download --no-deps`"
        " into the git-ignored benchmarks/corpus/ and scans them as `msmigrate scan` does). A use is a call or a"
        " reference of a torch API that the converter sees; *mapped* uses were converted, *unsupported* ones were"
        " refused for an argument or a form (the reason is the most frequent one), *missing* ones have no table"
        " entry.",
        "",
        f"Table entries: **{data['entries']}**. Corpus: {uses} torch API uses over {len(rows)} distinct APIs; "
        f"**{mapped / max(uses, 1):.1%} mapped**, {refused / max(uses, 1):.1%} unsupported, "
        f"{missing / max(uses, 1):.1%} missing.",
        "",
        "| package | role | files | uses | mapped | unsupported | missing | mapped share | untabled method calls |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for p in data["packages"]:
        lines.append(f"| {p['package']} | {p['role']} | {p['files']} | {p['uses']} | {p['mapped']} | {p['refused']} | "
                     f"{p['missing']} | {p['mapped'] / max(p['uses'], 1):.1%} | {p['untabled_method_calls']} |")
    crashed = [f"{p['package']}: {c}" for p in data["packages"] for c in p["crashed"]]
    if crashed:
        lines += ["", "Files the converter crashed on (their uses are not counted):", ""]
        lines += [f"- {c}" for c in crashed]
    lines += ["", "## How uses are counted", "", *COUNTING]
    lines += ["", f"## Ranking (top {top} of {len(rows)})", "",
              "| # | api | uses | mapped | unsupported | missing | status | cumulative share of uses | reason |",
              "| ---: | --- | ---: | ---: | ---: | ---: | --- | ---: | --- |"]
    cum = 0
    for i, r in enumerate(rows[:top], 1):
        cum += r["uses"]
        reason = r["reason"].replace("|", "\\|")
        lines.append(f"| {i} | `{r['api']}` | {r['uses']} | {r['mapped']} | {r['unsupported']} | {r['missing']} | "
                     f"{_status(r)} | {cum / max(uses, 1):.1%} | {reason} |")
    lines += ["", "## Uncovered APIs by uses", "",
              "Every API with a missing or unsupported use, most used first (`api` uses-not-mapped).", ""]
    gaps = sorted((r for r in rows if r["missing"] or r["unsupported"]),
                  key=lambda r: (-(r["missing"] + r["unsupported"]), r["api"]))
    lines.append(", ".join(f"`{r['api']}` {r['missing'] + r['unsupported']}" for r in gaps) or "(none)")
    lines += ["", "## Tensor method names the table lacks", "",
              "Calls `expr.name(...)` where `name` is a `torch.Tensor` method with no table entry, in files that import"
              " torch. The receiver's type is not known here (lists, dicts and modules share names such as `items`,"
              " `apply`, `type`), so this ranks what to add next; it is not a coverage figure.", ""]
    lines.append(", ".join(f"`{n}` {c}" for n, c in data["untabled_methods"][:150]) or "(none)")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(ROOT / "docs" / "api_usage.md"), help="markdown ranking to write")
    p.add_argument("--json", help="also write the measurement as JSON")
    p.add_argument("--top", type=int, default=300, help="rows in the ranking table (default 300)")
    p.add_argument("--jobs", type=int, default=1, help="packages scanned in parallel processes (default 1)")
    p.add_argument("--from-json", help="render the markdown from a measurement written earlier with --json")
    args = p.parse_args(argv)
    data = json.loads(Path(args.from_json).read_text()) if args.from_json else measure(args.jobs)
    Path(args.out).write_text(render(data, args.top), encoding="utf-8")
    if args.json and not args.from_json:
        Path(args.json).write_text(json.dumps(data, indent=1), encoding="utf-8")
    rows = data["apis"]
    uses = sum(r["uses"] for r in rows)
    print(f"entries {data['entries']}  uses {uses}  mapped {sum(r['mapped'] for r in rows) / max(uses, 1):.1%}  "
          f"-> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
