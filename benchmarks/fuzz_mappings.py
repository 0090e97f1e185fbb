"""Differential fuzzing of the mapping table, the Python operators and the module cases (issue 16).

For every entry of the table (``mappings/*.toml``) hypothesis writes calls from the entry's torch signature
(tests/fuzz/strategies.py), the real rewriter converts each, both frameworks run it and dtype, shape, values and
raise-vs-raise are compared (tests/fuzz/engine.py). Prints one line per entry and a summary, appends each entry's
record to a JSON-lines file as it finishes (``--resume`` continues a stopped run), and writes the markdown report.

    PYTHONPATH=$PWD python benchmarks/fuzz_mappings.py                # 200 examples per entry, the whole table
    PYTHONPATH=$PWD python benchmarks/fuzz_mappings.py -n 50 -k Tensor.round -k torch.cat --shrink

Findings are explained (or not) by tests/fuzz/known.py; the report separates the two. Deterministic: the same
code and table give the same examples.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("GLOG_v", "4")  # MindSpore's C++ log: the fuzzer provokes thousands of kernel errors
os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")
if "--opinfo" in sys.argv:  # read by targets() in the worker too
    os.environ["MSMIGRATE_FUZZ_OPINFO"] = "1"
if "--common" in sys.argv:  # read by tests/fuzz/strategies.py when it is imported (the worker inherits it)
    os.environ["MSMIGRATE_FUZZ_COMMON"] = "1"
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from migrate.mapping.table import load_table  # noqa: E402
from tests.fuzz import known  # noqa: E402
from tests.fuzz.driver import fuzz, shrink  # noqa: E402
from tests.fuzz.engine import Outcome, converted  # noqa: E402
from tests.fuzz.families import FAMILIES, HOOKS  # noqa: E402
from tests.fuzz.strategies import calls, fuzzable  # noqa: E402


def targets(table, only, exact=False):
    """(name, strategy or None, reason it is not fuzzed) for every entry and every extra family."""
    out = []
    if os.environ.get("MSMIGRATE_FUZZ_OPINFO") == "1":  # --opinfo: torch's own sample inputs, beside the generator
        from tests.fuzz.opinfo import opinfo_calls

        for entry in table.entries:
            if entry.kind != "function" or (only and not any(
                    (k == entry.torch) if exact else (k in entry.torch) for k in only)):
                continue
            strategy = opinfo_calls(entry.torch)
            if strategy is not None:
                out.append((f"opinfo:{entry.torch}", strategy, None))
        return out
    for entry in table.entries:
        if only and not any((k == entry.torch) if exact else (k in entry.torch) for k in only):
            continue
        why = fuzzable(entry)
        family = FAMILIES.get(entry.torch)
        if family is not None:
            out.append((entry.torch, family, None))
        else:
            out.append((entry.torch, None if why else calls(entry), why))
    for name, strategy in FAMILIES.items():
        if name.startswith("operator:") or name.startswith("module:"):
            if not only or any((k == name) if exact else (k in name) for k in only):
                out.append((name, strategy, None))
    return out


def record(name, report, minimal):
    findings = []
    for key, f in report.findings.items():
        explained = known.explain(f.example.api, f.kind, f.detail, f.example)
        findings.append({"kind": f.kind, "api": f.example.api, "count": f.count, "detail": f.detail, "example": f.example.describe(),
                         "code": f.example.run, "explained": explained})
    return {"name": name, "examples": report.examples, "outcomes": dict(report.outcomes),
            "dtypes": sorted(report.dtypes), "skipped": report.skipped, "findings": findings,
            "minimal": minimal}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-n", type=int, default=200, help="examples per entry (default 200)")
    ap.add_argument("-k", action="append", default=[], help="only entries whose name contains this (repeatable)")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "fuzz_results.jsonl"))
    ap.add_argument("--report", default=str(ROOT / "docs" / "fuzz_report.md"))
    ap.add_argument("--resume", action="store_true", help="skip entries already in --out")
    ap.add_argument("--shrink", action="store_true", help="shrink each unexplained silent finding to a minimal example")
    ap.add_argument("--skip-done-in", action="append", default=[], help="skip targets recorded in this JSON-lines file "
                    "(a second run sharing the table with a first)")
    ap.add_argument("--report-only", nargs="*", metavar="JSONL", help="write the report from these JSON-lines files "
                    "(later records of a target win) into --out and --report, run nothing")
    ap.add_argument("--target-limit", type=float, default=900.0, help="seconds one example may run before it is "
                    "recorded as a hang and the target goes on without it (default 900)")
    ap.add_argument("--common-results", default=str(ROOT / "benchmarks" / "fuzz_results_common.jsonl"),
                    help="with --report-only: the --common run's JSON lines, summarised in their own section")
    ap.add_argument("--exact", action="store_true", help="-k names a target exactly (not a substring)")
    ap.add_argument("--common", action="store_true", help="only the inputs real code passes: float32/int64 tensors, "
                    "non-empty shapes, finite ordinary values (which loud findings a real program hits)")
    ap.add_argument("--opinfo", action="store_true", help="fuzz the function entries on PyTorch's OpInfo sample inputs "
                    "(plain, out= and in-place forms; needs the expecttest package) instead of the generator")
    ap.add_argument("--subset", default="", help="with --report-only: a line saying which targets and forms the "
                    "records cover (a report of a subset says so)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.report_only is not None:
        records, source = {}, {}
        for path in args.report_only or [args.out]:
            for line in Path(path).read_text().splitlines():
                rec = json.loads(line)
                records[rec["name"]] = rec
                source[rec["name"]] = Path(path).name
        counts = {}
        for name in records:
            counts[source[name]] = counts.get(source[name], 0) + 1
        note = ("records merged from " + ", ".join(f"{f} ({n} targets)" for f, n in counts.items()) +
                " (a later file's record of a target replaces an earlier one)") if len(counts) > 1 else ""
        if args.report_only:
            Path(args.out).write_text("".join(json.dumps(r) + "\n" for r in records.values()))
        common = None
        if args.common_results and Path(args.common_results).exists():
            common = [json.loads(line) for line in Path(args.common_results).read_text().splitlines()]
        if args.subset:
            note = f"subset: {args.subset}" + (f"; {note}" if note else "")
        write_report(list(records.values()), Path(args.report), args.n,
                     sum(r.get("seconds", 0) for r in records.values()), common, note)
        return 0
    if not args.worker:
        return supervise(args, argv if argv is not None else sys.argv[1:])

    warnings.simplefilter("ignore")
    table = load_table()
    out = Path(args.out)
    done, skip = {}, set()
    if out.exists():
        for line in out.read_text().splitlines():
            rec = json.loads(line)
            done[rec["name"]] = rec
    for other in args.skip_done_in:
        if Path(other).exists():
            skip |= {json.loads(line)["name"] for line in Path(other).read_text().splitlines()}
    current = Path(str(out) + ".current")
    stopped = _load_stops(out)
    with out.open("a", encoding="utf-8") as fh:
        for name, strategy, why in targets(table, args.k, args.exact):
            if name in done or name in skip:
                continue
            _write_atomic(current, name)
            if strategy is None:
                rec = {"name": name, "examples": 0, "outcomes": {}, "dtypes": [], "skipped": why, "findings": [],
                       "minimal": None}
            else:
                t = time.time()
                stops = {int(i): Outcome(kind, detail) for i, (kind, detail) in stopped.get(name, {}).items()}
                # after a stop, MindSpore no longer runs the inputs torch refuses: a segfault there can be
                # state-dependent (an earlier refused input's out-of-bounds access brings a later example down)
                report = fuzz(name, strategy, args.n, HOOKS.get(name), not stops, stops=stops,
                              progress=lambda i, name=name: _write_atomic(current, f"{name}\n{i}"))
                minimal = None
                silent = [f.kind for f in report.findings.values() if f.kind in ("value", "dtype", "shape")
                          and not known.explain(f.example.api, f.kind, f.detail, f.example)]
                if args.shrink and silent:
                    found = shrink(strategy, set(silent), n=args.n, hook=HOOKS.get(name))
                    if found:
                        ex, oc = found
                        minimal = {"kind": oc.kind, "detail": oc.detail, "example": ex.describe(),
                                   "inputs": {k: v.tolist() for k, v in ex.inputs.items()},
                                   "dtypes": {k: str(v.dtype) for k, v in ex.inputs.items()},
                                   "code": ex.run, "converted": converted(ex)}
                rec = record(name, report, minimal)
                rec["seconds"] = round(time.time() - t, 2)
                flags = " ".join(f"{f['kind']}{'' if f['explained'] else '!'}" for f in rec["findings"])
                print(f"{name:50s} {report.examples:4d} ex {time.time() - t:6.1f}s  {flags}", flush=True)
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
            done[name] = rec
            if name.startswith("torch.distributed.") and strategy is not None:
                # MindSpore's communication init leaves the process unable to create a device context: every
                # later example would raise "Create device context failed" (measured); a fresh worker goes on
                current.unlink(missing_ok=True)
                return RESTART
    current.unlink(missing_ok=True)
    return 0


RESTART = 3  # the worker's exit code asking for a fresh worker (not a crash)
MAX_STOPS = 40  # examples of one target that may stop the worker before the target is given up


def _write_atomic(path: Path, text: str) -> None:
    """A crash while the marker is written must not leave it empty (MindSpore's ops run on other threads)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def _stops_path(out: Path) -> Path:
    return Path(str(out) + ".stops")


def _load_stops(out: Path) -> dict:
    """{target: {example index: [kind, detail]}}: the examples that stopped a worker (see ``supervise``)."""
    path = _stops_path(out)
    return json.loads(path.read_text()) if path.exists() else {}


def supervise(args, argv) -> int:
    """Run the targets in a worker process. An example that kills it (MindSpore segfaults on some inputs) is
    recorded as a ``crash`` outcome, one that runs past ``--target-limit`` seconds (torch's own
    polygamma(2, -1.01e10) never returns) as a ``hang``; the worker restarts and the target runs again with that
    example recorded and skipped (``.stops`` file beside ``--out``), so its other examples are still compared.
    A target that stops the worker more than MAX_STOPS times is recorded with what it stopped on."""
    import subprocess

    out = Path(args.out)
    if not args.resume:
        out.unlink(missing_ok=True)
        _stops_path(out).unlink(missing_ok=True)
    current = Path(str(out) + ".current")
    while True:
        current.unlink(missing_ok=True)  # a stopped run's marker: its age is no hang of this worker
        proc = subprocess.Popen([sys.executable, __file__, "--worker", "--resume",
                                 *[a for a in argv if a != "--resume"]])
        hung = False
        while proc.poll() is None:
            time.sleep(2)
            if current.exists() and time.time() - current.stat().st_mtime > args.target_limit:
                hung = True
                proc.kill()
                proc.wait()
        if proc.returncode == RESTART:
            continue
        if proc.returncode == 0 or not current.exists():
            break
        if proc.returncode == 1 and not hung:  # a Python error of the harness (its traceback above), not a crash
            print("the fuzz worker failed (traceback above): stopping", flush=True)
            return 1
        name, _, index = current.read_text().partition("\n")
        if not name:  # not a target's example: nothing to record
            print(f"worker stopped (exit {proc.returncode}) outside any target, restarting", flush=True)
            current.unlink()
            continue
        if hung:
            kind, detail = "hang", (f"no result after {args.target_limit:.0f} s: the example did not return (the "
                                    "worker was stopped)")
        else:
            kind, detail = "crash", f"the process died (exit {proc.returncode}): MindSpore crashed on this example"
        stops = _load_stops(out)
        mine = stops.setdefault(name, {})
        print(f"{name:50s} {kind.upper()} ({'limit' if hung else f'exit {proc.returncode}'}) at example "
              f"{index or '?'}, restarting after it", flush=True)
        if index and len(mine) < MAX_STOPS:
            mine[index] = [kind, detail]
            _stops_path(out).write_text(json.dumps(stops))
        else:  # given up: the target's record says what it stopped on
            kinds = [k for k, _ in mine.values()] + [kind]
            rec = {"name": name, "examples": len(kinds), "outcomes": {k: kinds.count(k) for k in set(kinds)},
                   "dtypes": [], "skipped": "",
                   "findings": [{"kind": kind, "api": name, "count": len(kinds), "code": "",
                                 "detail": detail + f"; {len(kinds)} examples stopped the worker, the target's other "
                                 "examples are not recorded", "example": "",
                                 "explained": known.explain(name, kind, "", None)}], "minimal": None}
            with out.open("a", encoding="utf-8") as fh:
                fh.write(json.dumps(rec) + "\n")
        current.unlink()
    records = {}
    for line in out.read_text().splitlines():
        rec = json.loads(line)
        records[rec["name"]] = rec
    write_report(list(records.values()), Path(args.report), args.n, sum(r.get("seconds", 0) for r in records.values()))
    return 0


def write_report(records, path: Path, n: int, seconds: float, common=None, note: str = "") -> None:
    for r in records:  # records written before an explanation class existed: re-read from the description
        for f in r["findings"]:
            if not f["explained"]:
                f["explained"] = known.explain_text(f.get("api", r["name"]), f["kind"], f["detail"], f["example"])
    fuzzed = [r for r in records if r["examples"]]
    examples = sum(r["examples"] for r in fuzzed)
    dtypes = sorted({d for r in fuzzed for d in r["dtypes"]})
    outcomes = {}
    for r in fuzzed:
        for k, v in r["outcomes"].items():
            outcomes[k] = outcomes.get(k, 0) + v
    unexplained = [(r, f) for r in fuzzed for f in r["findings"] if not f["explained"]]
    explained = [(r, f) for r in fuzzed for f in r["findings"] if f["explained"]]
    silent_unexplained = [(r, f) for r, f in unexplained if f["kind"] in ("value", "dtype", "shape")]
    lines = [
        "# Differential fuzzing of the mapping table",
        "",
        "Written by `benchmarks/fuzz_mappings.py` (issue 16). Each example is a torch call written by hypothesis from",
        "the entry's torch signature, converted by the real rewriter and run in both frameworks; dtype, shape, values",
        "and raise-vs-raise are compared (`tests/fuzz/engine.py` states the tolerances and why).",
        "",
        f"- targets: {len(records)} ({len(fuzzed)} fuzzed, {len(records) - len(fuzzed)} not fuzzed: reasons below)",
        f"- examples: {examples} (up to {n} per target), input dtypes seen: {', '.join(dtypes)}",
        f"- outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())),
        f"- findings: {len(explained) + len(unexplained)} (target x kind), {len(explained)} explained, "
        f"{len(unexplained)} unexplained, of which {len(silent_unexplained)} silent (value/dtype/shape)",
        f"- run time: {seconds / 60:.1f} min",
        *([f"- {note}"] if note else []),
        "",
        "Outcome kinds: `value`/`dtype`/`shape` both ran and disagree (silently wrong numbers); `ms_raises` torch ran",
        "and the converted code raised; `torch_raises` torch refused a call the converted code computed.",
        "",
        "## Unexplained findings",
        "",
        "| target | kind | count | example | detail |",
        "|---|---|---|---|---|",
    ]
    for r, f in sorted(unexplained, key=lambda rf: (rf[1]["kind"] not in ("value", "dtype", "shape"), rf[0]["name"])):
        lines.append(f"| `{f.get('api', r['name'])}` | {f['kind']} | {f['count']} | `{_cell(f['example'])}` | "
                     f"{_cell(f['detail'])} |")
    lines += ["", "## Explained findings", "", "| target | kind | count | explanation |", "|---|---|---|---|"]
    for r, f in explained:
        lines.append(f"| `{f.get('api', r['name'])}` | {f['kind']} | {f['count']} | {_cell(f['explained'])} |")
    if common:
        lines += _common_section(common)
    lines += ["", "## Not fuzzed", "", "| target | reason |", "|---|---|"]
    for r in records:
        if not r["examples"]:
            lines.append(f"| `{r['name']}` | {_cell(r['skipped'])} |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(fuzzed)} targets fuzzed, {examples} examples, {len(unexplained)} unexplained findings "
          f"({len(silent_unexplained)} silent); report: {path}")


def _common_section(records) -> list[str]:
    """The --common run: the inputs real code passes (float32/int64, non-empty shapes, finite ordinary values)."""
    for r in records:
        for f in r["findings"]:
            if not f["explained"]:
                f["explained"] = known.explain_text(f.get("api", r["name"]), f["kind"], f["detail"], f["example"])
    fuzzed = [r for r in records if r["examples"]]
    examples = sum(r["examples"] for r in fuzzed)
    unexplained = [(r, f) for r in fuzzed for f in r["findings"] if not f["explained"]]
    silent = [(r, f) for r, f in unexplained if f["kind"] in ("value", "dtype", "shape")]
    loud = [(r, f) for r, f in unexplained if f["kind"] == "ms_raises"]
    lines = ["", "## Common inputs (`--common`)", "",
             "The same targets, drawn from what real programs pass: float32 and int64 tensors, non-empty shapes of rank",
             "1-3, finite ordinary values (seed, code and table as above). A loud finding here is one a real program can",
             "hit; a silent one is a bug to fix, however few examples show it.", "",
             f"- targets: {len(fuzzed)}, examples: {examples}",
             f"- unexplained findings: {len(unexplained)}, of which {len(silent)} silent and {len(loud)} ms_raises", "",
             "| target | kind | count | example | detail |", "|---|---|---|---|---|"]
    for r, f in sorted(unexplained, key=lambda rf: (rf[1]["kind"] not in ("value", "dtype", "shape"), rf[0]["name"])):
        lines.append(f"| `{f.get('api', r['name'])}` | {f['kind']} | {f['count']}/{r['examples']} | "
                     f"`{_cell(f['example'])}` | {_cell(f['detail'])} |")
    return lines


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")[:300]


if __name__ == "__main__":
    sys.exit(main())
