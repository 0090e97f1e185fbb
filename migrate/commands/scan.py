"""``msmigrate scan``: count a project's torch API uses and say which ones msmigrate cannot convert."""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path

from .. import exitcodes

HELP = "count a project's torch API uses and list the unsupported ones (never executes or writes anything)"
DESCRIPTION = """\
Scan PyTorch source (a .py file, a .ipynb notebook or a directory) the way `msmigrate convert` would, without
writing anything and without executing the code: per-API use counts, each unsupported use with file:line and the
reason, and totals.
Use it to size a migration before converting.

--format text (default) or json. Notebook uses are named nb.ipynb:cell 3:line 4 (json: a "cell" field).
A progress bar is drawn on stderr while a directory is scanned, only when stderr is a terminal, stdout is not
piped (a file is fine) and CI is not set; --quiet turns it off. --jobs N scans with N processes.

  msmigrate scan repo/ --format json > uses.json

""" + exitcodes.help_line("a file could not be read (syntax error, undecodable)", "some use is unsupported")

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_UNSUPPORTED = (exitcodes.OK, exitcodes.FAILED, exitcodes.USAGE,
                                                  exitcodes.UNSUPPORTED)


def add_arguments(p) -> None:
    p.add_argument("path", metavar="PATH", help="a .py file, a .ipynb notebook or a directory")
    p.add_argument("--format", choices=("text", "json"), default="text", help="output format (default text)")
    p.add_argument("--jobs", "-j", type=int, default=1, metavar="N", help="scan with N processes (default 1)")
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar")


def summarise(report) -> dict:
    """Per-API counts (converted + unsupported uses), unsupported uses and totals from a conversion report."""
    from ..report import record_dict

    converted = sum((f.apis for f in report.files), Counter())
    unsupported = Counter(u.api for u in report.unsupported)
    apis = [
        {"api": api, "uses": converted[api] + unsupported[api], "converted": converted[api],
         "unsupported": unsupported[api]}
        for api in sorted(set(converted) | set(unsupported), key=lambda a: (-(converted[a] + unsupported[a]), a))
    ]
    return {
        "files": len(report.files),
        "api_uses": sum(a["uses"] for a in apis),
        "converted_uses": sum(converted.values()),
        "unsupported_uses": len(report.unsupported),
        "distinct_apis": len(apis),
        "unsupported_apis": sorted(unsupported),
        "apis": apis,
        "unsupported": [record_dict(u) for u in report.unsupported],
        "errors": [record_dict(e) for e in report.errors],
    }


def render_text(s: dict) -> str:
    from ..report import where

    lines = [f"{'uses':>6}  {'status':<11}  api"]
    for a in s["apis"]:
        status = "unsupported" if a["unsupported"] and not a["converted"] else (
            "partial" if a["unsupported"] else "supported")
        lines.append(f"{a['uses']:>6}  {status:<11}  {a['api']}")
    if s["unsupported"]:
        lines.append("")
        lines.append("unsupported uses:")
        lines.extend(f"  {where(u['file'], u['line'], u.get('cell'))}: {u['api']}: {u['reason']}"
                     for u in s["unsupported"])
    if s["errors"]:
        lines.append("")
        lines.append("errors:")
        lines.extend(f"  {where(e['file'], e['line'], e.get('cell'))}: {e['message']}" for e in s["errors"])
    lines.append("")
    lines.append(f"files: {s['files']}   torch API uses: {s['api_uses']}   distinct APIs: {s['distinct_apis']}   "
                 f"supported uses: {s['converted_uses']}   unsupported uses: {s['unsupported_uses']} "
                 f"({len(s['unsupported_apis'])} APIs)")
    return "\n".join(lines) + "\n"


def run(args) -> int:
    from ..api import convert_path
    from ..mapping import MappingError

    path = Path(args.path)
    if not path.exists():
        print(f"msmigrate: {path}: no such file or directory", file=sys.stderr)
        return EXIT_USAGE
    if args.jobs < 1:
        print("msmigrate: --jobs must be at least 1", file=sys.stderr)
        return EXIT_USAGE
    from ..progress import Progress

    try:
        with Progress("scanning", "file", quiet=args.quiet) as bar:
            report = convert_path(path, None, jobs=args.jobs, progress=bar)  # out=None: nothing is written
    except MappingError as exc:
        print(f"msmigrate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    summary = summarise(report)
    if args.format == "json":
        sys.stdout.write(json.dumps(summary, indent=2) + "\n")
    else:
        sys.stdout.write(render_text(summary))
    if report.errors:
        return EXIT_INPUT
    return EXIT_UNSUPPORTED if report.unsupported else EXIT_OK
