"""``msmigrate mappings``: list every torch API in the mapping table with its MindSpore form."""
from __future__ import annotations

import json
import sys

from .. import exitcodes

HELP = "list the torch APIs msmigrate converts (and those it knows it cannot), with their MindSpore targets"
DESCRIPTION = """\
List every API in the mapping table (mappings/*.toml): the torch name, its kind, the MindSpore target (or the
template forms / named rule that produce it), argument renames and defaults that differ, notes, and for APIs
that cannot be converted the reason. Argument-level limits (values that are refused) are listed too.

--format text (default) is one block per API; md is the table checked in as docs/supported_apis.md
(regenerate with `msmigrate mappings --format md > docs/supported_apis.md`); json is machine-readable.
--filter keeps APIs whose torch name contains the given text.

  msmigrate mappings --filter interpolate

""" + exitcodes.help_line()

EXIT_OK, EXIT_INPUT, EXIT_USAGE = exitcodes.OK, exitcodes.USAGE, exitcodes.USAGE  # an invalid table: input error


def add_arguments(p) -> None:
    p.add_argument("--format", choices=("text", "md", "json"), default="text", help="output format (default text)")
    p.add_argument("--filter", metavar="TEXT", default="", help="only APIs whose torch name contains TEXT")


def describe(entry) -> dict:
    """One entry as plain data (the json format; text and md are rendered from it)."""
    star = entry.unsupported.get("*")
    if star:
        target, status = None, "unsupported"
    elif entry.ms == "=":
        target, status = "(same method)", "supported"
    elif entry.ms:
        target, status = entry.ms if entry.kind != "method" else f"Tensor.{entry.ms}", "supported"
    elif entry.inplace and entry.inplace != "forms":
        value = f"<{entry.inplace} conversion>"
        target, status = f"{{self}} = {value}" if entry.rebind else f"{{self}}.copy_({value})", "supported"
    else:
        target, status = None, "supported"
    forms = [{"template": f.template, **({"when": list(f.when)} if f.when else {}),
              **({"absent": list(f.absent)} if f.absent else {})} for f in entry.forms]
    limits = {name: reason for name, reason in entry.unsupported.items() if name != "*"}
    for name in limits:
        if entry.allow.get(name):
            limits[name] += f" (accepted: {', '.join(entry.allow[name])})"
    out = {
        "torch": entry.torch, "kind": entry.kind, "status": status, "mindspore": target,
        "file": entry.source.split(":", 1)[0],
    }
    if forms:
        out["forms"] = forms
    if entry.rule:
        out["rule"] = entry.rule
    if entry.helper:  # composed MindSpore code written into the converted file (migrate/helpers)
        out["helper"] = entry.helper
    if entry.inplace:  # a whole statement x.op_(...) is written back with copy_ (or rebinds x)
        out["inplace"] = {"value": entry.inplace, "write": "rebind" if entry.rebind else "copy_"}
    if entry.rename:
        out["rename"] = dict(entry.rename)
    if entry.fill:
        out["defaults"] = dict(entry.fill)
    if entry.inject:
        out["adds"] = dict(entry.inject)
    if entry.drop:
        out["drops"] = list(entry.drop)
    if limits:
        out["limits"] = limits
    if star:
        out["reason"] = star
    if entry.notes:
        out["notes"] = entry.notes
    return out


def _target_text(d: dict) -> str:
    if d["status"] == "unsupported":
        return "unsupported"
    parts = []
    inplace = d.get("inplace")
    wrap = (lambda v: v) if not inplace else (
        (lambda v: f"{{self}} = {v}") if inplace["write"] == "rebind" else (lambda v: f"{{self}}.copy_({v})"))
    if d.get("mindspore"):
        parts.append(d["mindspore"])
    for f in d.get("forms", ()):
        cond = f" (when {', '.join(f['when'])})" if f.get("when") else ""
        parts.append(f"{wrap(f['template'])}{cond}")
    if d.get("rule") and not parts:
        parts.append(f"rule {d['rule']}")
    return " | ".join(parts) or "?"


def _details(d: dict) -> list[str]:
    out = []
    if d.get("rename"):
        out.append("renames " + ", ".join(f"{k}->{v}" for k, v in d["rename"].items()))
    if d.get("defaults"):
        out.append("torch defaults kept: " + ", ".join(f"{k}={v}" for k, v in d["defaults"].items()))
    if d.get("adds"):
        out.append("adds " + ", ".join(f"{k}={v}" for k, v in d["adds"].items()))
    if d.get("rule") and (d.get("mindspore") or d.get("forms")):
        out.append(f"rule {d['rule']}")
    if d.get("helper"):
        out.append(f"helper {d['helper']}: its MindSpore code is written into the converted file")
    for name, reason in d.get("limits", {}).items():
        out.append(f"refuses {name}: {reason}")
    if d.get("reason"):
        out.append(d["reason"])
    if d.get("notes"):
        out.append(d["notes"])
    return out


def render_text(rows: list[dict]) -> str:
    lines = []
    for d in rows:
        lines.append(f"{d['torch']}  [{d['kind']}]  -> {_target_text(d)}")
        lines.extend(f"    {x}" for x in _details(d))
    supported = sum(d["status"] == "supported" for d in rows)
    lines.append(f"{len(rows)} APIs: {supported} supported, {len(rows) - supported} known unsupported")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_md(rows: list[dict]) -> str:
    supported = sum(d["status"] == "supported" for d in rows)
    out = [
        "# Supported APIs",
        "",
        "Generated by `msmigrate mappings --format md > docs/supported_apis.md` from `mappings/*.toml`; do not edit",
        "by hand (a test fails when this file differs from a fresh generation). Every supported entry is proven by a",
        "parity test in `tests/api/` that runs torch and the converted MindSpore code on the same inputs.",
        "",
        f"{len(rows)} APIs: {supported} supported, {len(rows) - supported} known unsupported.",
    ]
    by_file: dict[str, list[dict]] = {}
    for d in rows:
        by_file.setdefault(d["file"], []).append(d)
    for file, items in by_file.items():
        out += ["", f"## {file}", "", "| torch | kind | MindSpore | details |", "|---|---|---|---|"]
        for d in items:
            target = "**unsupported**" if d["status"] == "unsupported" else f"`{_md(_target_text(d))}`"
            out.append(f"| `{d['torch']}` | {d['kind']} | {target} | {_md('; '.join(_details(d)))} |")
    return "\n".join(out) + "\n"


def collect(filter_text: str = "") -> list[dict]:
    from ..mapping import load_table

    return [describe(e) for e in load_table().entries if filter_text in e.torch]


def run(args) -> int:
    from ..mapping import MappingError

    try:
        rows = collect(args.filter)
    except MappingError as exc:
        print(f"msmigrate: {exc}", file=sys.stderr)
        return EXIT_INPUT
    if args.format == "json":
        sys.stdout.write(json.dumps({"apis": rows, "total": len(rows),
                                     "supported": sum(d["status"] == "supported" for d in rows)}, indent=2) + "\n")
    elif args.format == "md":
        sys.stdout.write(render_md(rows))
    else:
        sys.stdout.write(render_text(rows))
    return EXIT_OK
