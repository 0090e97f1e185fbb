"""``convert --html``: the conversion report as one self-contained page a person reads.

No scripts and no external resources (fonts, styles and the chart are inline), so the page reads the same
opened from disk, attached to a review or served by a CI artifact store. Built from the
:class:`~migrate.report.Report` and the source texts:

* a summary: files, torch API uses, converted, unsupported, errors, the conversion rate; a bar chart (inline
  SVG) of the most used APIs, converted and unsupported; unsupported uses per API with their reasons; the most
  common reasons; one row a file, linking to its section;
* per file, a side-by-side torch | MindSpore view aligned line by line (difflib): changed lines are tinted,
  the tokens that changed (the converted API, the injected arguments) are highlighted, each
  ``# msmigrate: unsupported`` marker is a red row stating its API and reason, unchanged stretches fold to
  three lines of context around each change. Notebook cells (``# [cell N]``) get a header row.
"""
from __future__ import annotations

import difflib
import html
import os
import re
from collections import Counter, defaultdict

from .report import Report

MARKER = re.compile(r"^(\s*)# msmigrate: unsupported (\S+): (.*)$")
NOTE = re.compile(r"#\s*msmigrate: (?!unsupported)(.*)$")
CELL = re.compile(r"^# \[cell (\d+)\]$")
TOKEN = re.compile(r"\w+|\s+|[^\w\s]")
CONTEXT = 3
TOP_APIS = 15
REASONS_PER_API = 5

CSS = """
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#ffffff; --panel:#f6f8fa; --ok:#1a7f37;
        --okbg:#dafbe1; --bad:#cf222e; --badbg:#ffebe9; --chg:#fff8c5; --chgtok:#f2cc60; --mark:#ffd7d5; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 -apple-system, "Segoe UI", Roboto, "Noto Sans", Helvetica, Arial, sans-serif;
       color: var(--fg); background: var(--bg); }
main { max-width: 1400px; margin: 0 auto; padding: 24px 20px 64px; }
h1 { font-size: 26px; margin: 0 0 4px; }
h2 { font-size: 20px; margin: 36px 0 10px; border-bottom: 1px solid var(--line); padding-bottom: 6px; } h3 { font-size: 16px; margin: 20px 0 8px; }
p.sub { color: var(--muted); margin: 0 0 20px; }
a { color: #0969da; text-decoration: none; } a:hover { text-decoration: underline; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(150px, 1fr)); gap: 12px; margin: 16px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; background: var(--panel); }
.card .n { font-size: 26px; font-weight: 600; } .card .l { color: var(--muted); font-size: 13px; }
.card.bad .n { color: var(--bad); } .card.ok .n { color: var(--ok); }
.rate { height: 12px; border-radius: 6px; background: var(--badbg); overflow: hidden; margin: 8px 0 0; }
.rate > span { display: block; height: 100%; background: var(--ok); }
.grid2 { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 24px; align-items: start; }
@media (max-width: 900px) { .grid2 { grid-template-columns: minmax(0, 1fr); } }
table.list { border-collapse: collapse; width: 100%; font-size: 14px; }
table.list th, table.list td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line);
     vertical-align: top; overflow-wrap: anywhere; }
table.list th { background: var(--panel); font-weight: 600; }
table.list td.num, table.list th.num { text-align: right; white-space: nowrap; }
code, .code { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
     font-size: 13px; }
.pill { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.pill.ok { background: var(--okbg); color: var(--ok); } .pill.bad { background: var(--badbg); color: var(--bad); }
.pill.err { background: var(--bad); color: #fff; }
.chart .bar { display: grid; grid-template-columns: minmax(9em, 38%) 1fr; gap: 10px; align-items: center;
     margin: 3px 0; }
.chart .name { text-align: right; overflow-wrap: anywhere; line-height: 1.2; }
.chart .track { display: flex; align-items: center; height: 16px; }
.chart .track .c { background: var(--ok); height: 100%; border-radius: 2px 0 0 2px; }
.chart .track .u { background: var(--bad); height: 100%; border-radius: 0 2px 2px 0; }
.chart .track .v { font-size: 12px; color: var(--muted); margin-left: 6px; white-space: nowrap; }
@media (max-width: 700px) { .chart .bar { grid-template-columns: minmax(0, 1fr); gap: 0; margin: 6px 0; }
     .chart .name { text-align: left; } }
.api { border-bottom: 1px solid var(--line); padding: 8px 0; }
.api .head { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
.api .head code { font-weight: 600; font-size: 14px; overflow-wrap: anywhere; }
.api ul { margin: 4px 0 0; padding-left: 20px; font-size: 14px; }
.legend { font-size: 13px; color: var(--muted); margin: 4px 0 0; }
.legend i { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin: 0 4px 0 10px; }
section.file { margin-top: 28px; }
section.file > h3 { display: flex; flex-wrap: wrap; gap: 8px; align-items: baseline; }
section.file > h3 code { font-size: 15px; overflow-wrap: anywhere; }
ul.issues { margin: 6px 0 10px; padding-left: 20px; font-size: 14px; } ul.issues li { overflow-wrap: anywhere; }
.diff { border: 1px solid var(--line); border-radius: 8px; overflow: hidden; }
table.sbs { border-collapse: collapse; width: 100%; table-layout: fixed; }
table.sbs col.ln { width: 3.6em; } table.sbs col.src { width: 50%; }
table.sbs thead th { background: var(--panel); text-align: left; padding: 6px 10px; font-size: 13px;
     border-bottom: 1px solid var(--line); }
table.sbs td { padding: 0 8px; vertical-align: top; white-space: pre-wrap; overflow-wrap: anywhere; line-height: 1.45; }
table.sbs td.ln { color: var(--muted); text-align: right; user-select: none; padding-right: 6px;
     border-right: 1px solid var(--line); font-size: 12px; }
table.sbs td.src + td.ln { border-left: 1px solid var(--line); }
tr.chg td.src { background: var(--chg); } tr.chg td.src mark { background: var(--chgtok); border-radius: 2px; }
tr.add td.src.r { background: var(--okbg); } tr.del td.src.l { background: var(--badbg); }
tr.add td.src.r mark, tr.del td.src.l mark { background: transparent; }
tr.unsup td.src.l { background: var(--badbg); box-shadow: inset 3px 0 0 var(--bad); }
tr.marker td { background: var(--mark); color: #82071e; font-family: -apple-system, "Segoe UI", Roboto, Arial,
     sans-serif; font-size: 13px; white-space: normal; padding: 4px 10px; }
tr.marker b { font-family: ui-monospace, Menlo, Consolas, monospace; }
tr.note td.src.r { color: var(--muted); background: var(--panel); }
tr.fold td { background: var(--panel); color: var(--muted); font-size: 12px; text-align: center; padding: 2px; }
tr.cell td { background: #ddf4ff; color: #0550ae; font-weight: 600; font-size: 13px; padding: 3px 10px;
     white-space: normal; }
.err { color: var(--bad); }
.first { border: 1px solid var(--bad); border-left-width: 4px; border-radius: 8px; padding: 10px 14px; margin: 16px 0;
     background: #fffafa; }
.first h2 { margin: 0 0 6px; border: 0; padding: 0; font-size: 18px; color: var(--bad); }
.first ol { margin: 0; padding-left: 22px; font-size: 14px; } .first li { margin: 4px 0; overflow-wrap: anywhere; }
.first .why { color: var(--muted); }
.pill.rank0 { background: var(--bad); color: #fff; } .pill.rank1, .pill.rank2 { background: var(--badbg); color: var(--bad); }
.pill.rank3, .pill.rank4 { background: var(--panel); color: var(--muted); border: 1px solid var(--line); }
p.narrow { display: none; }
/* Narrow screens: the two sides interleave (torch line, then its MindSpore line) like a unified diff. */
@media (max-width: 700px) {
  main { padding: 14px 10px 40px; } h1 { font-size: 22px; }
  p.narrow { display: block; font-size: 13px; color: var(--muted); margin: 4px 0; }
  table.sbs, table.sbs tbody { display: block; } table.sbs thead, table.sbs colgroup { display: none; }
  table.sbs tr { display: grid; grid-template-columns: 2.8em minmax(0, 1fr); }
  table.sbs td { font-size: 12px; padding: 0 6px; } table.sbs td.src + td.ln { border-left: 0; }
  tr.eq td.ln:nth-child(1), tr.eq td.src.l, tr.del td.ln:nth-child(3), tr.del td.src.r,
  tr.add td.ln:nth-child(1), tr.add td.src.l { display: none; }
  tr.fold td, tr.cell td { grid-column: 1 / -1; }
  tr.chg td.src.l, tr.chg td.ln:nth-child(1) { background: var(--badbg); }
  tr.chg td.src.r, tr.chg td.ln:nth-child(3) { background: var(--okbg); }
  tr.chg td.src.l mark { background: #ffcecb; } tr.chg td.src.r mark { background: #aceebb; }
  tr.chg td.ln:nth-child(1)::before { content: "− "; } tr.chg td.ln:nth-child(3)::before { content: "+ "; }
  tr.del td.ln:nth-child(1)::before { content: "− "; } tr.add td.ln:nth-child(3)::before { content: "+ "; }
  tr.del td.ln:nth-child(1) { background: var(--badbg); } tr.add td.ln:nth-child(3) { background: var(--okbg); }
  tr.eq.unsup td.src.r { background: var(--badbg); box-shadow: inset 3px 0 0 var(--bad); }
}
"""


def esc(text) -> str:
    return html.escape(str(text), quote=True)


def _highlight(a: str, b: str) -> tuple[str, str]:
    """Both lines escaped, with the tokens that differ wrapped in <mark>."""
    ta, tb = TOKEN.findall(a), TOKEN.findall(b)
    sm = difflib.SequenceMatcher(None, ta, tb, autojunk=False)
    out_a, out_b = [], []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        sa, sb = esc("".join(ta[i1:i2])), esc("".join(tb[j1:j2]))
        if op == "equal":
            out_a.append(sa)
            out_b.append(sb)
        else:
            if sa:
                out_a.append(f"<mark>{sa}</mark>")
            if sb:
                out_b.append(f"<mark>{sb}</mark>")
    return "".join(out_a), "".join(out_b)


def _rows(left: str, right: str) -> list[tuple]:
    """Aligned rows: (kind, left line no, left html, right line no, right html, extra)."""
    la, lb = left.splitlines(), right.splitlines()
    sm = difflib.SequenceMatcher(None, la, lb, autojunk=False)
    rows = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            for k in range(i2 - i1):
                rows.append(("eq", i1 + k + 1, la[i1 + k], j1 + k + 1, lb[j1 + k]))
            continue
        # markers and notes on the MindSpore side are rows of their own, the rest is paired line by line
        right_lines = []
        for j in range(j1, j2):
            m = MARKER.match(lb[j])
            right_lines.append(("marker", j + 1, m) if m else ("line", j + 1, lb[j]))
        plain = [r for r in right_lines if r[0] == "line"]
        lefts = list(range(i1, i2))
        pairs = []
        for n in range(max(len(lefts), len(plain))):
            li = lefts[n] if n < len(lefts) else None
            rj = plain[n] if n < len(plain) else None
            pairs.append((li, rj))
        pi = 0
        for item in right_lines:
            if item[0] == "marker":
                rows.append(("marker", None, None, item[1], item[2]))
                continue
            while pi < len(pairs) and pairs[pi][1] is not item:
                li = pairs[pi][0]
                rows.append(("del", li + 1, la[li], None, None))
                pi += 1
            li, rj = pairs[pi]
            pi += 1
            if li is None:
                rows.append(("add", None, None, rj[1], rj[2]))
            else:
                rows.append(("chg", li + 1, la[li], rj[1], rj[2]))
        for li, rj in pairs[pi:]:
            rows.append(("del", li + 1, la[li], None, None))
    return rows


def _markers_to_torch(rows: list[tuple]) -> set[int]:
    """Torch line numbers that a marker points at (the first line after it)."""
    out, pending = set(), False
    for row in rows:
        if row[0] == "marker":
            pending = True
        elif pending and row[1] is not None:
            out.add(row[1])
            pending = False
    return out


def cell_numbers(text: str) -> dict[int, str]:
    """Line numbers to show for a notebook's code view: the line within its cell (as reports name them)."""
    out, k = {}, None
    for n, line in enumerate(text.splitlines(), 1):
        if CELL.match(line):
            k = 0
            continue
        if k is not None:
            k += 1
            out[n] = str(k)
    return out


def _render_rows(rows: list[tuple], fid: int, nums: tuple[dict, dict] | None = None) -> str:
    left_no = (lambda n: nums[0].get(n, "")) if nums else (lambda n: n)
    right_no = (lambda n: nums[1].get(n, "")) if nums else (lambda n: n)
    unsup = _markers_to_torch(rows)
    interesting = [i for i, r in enumerate(rows) if r[0] != "eq" or (r[1] in unsup) or CELL.match(r[2] or "")]
    keep = set()
    for i in interesting:
        keep.update(range(max(0, i - CONTEXT), min(len(rows), i + CONTEXT + 1)))
    out, skipped = [], 0

    def flush():
        nonlocal skipped
        if skipped:
            out.append(f'<tr class="fold"><td colspan="4">⋯ {skipped} unchanged line{"s" * (skipped != 1)}'
                       f'</td></tr>')
            skipped = 0

    for i, (kind, ln_l, a, ln_r, b) in enumerate(rows):
        if i not in keep:
            skipped += 1
            continue
        flush()
        if kind == "marker":
            m = b
            out.append(f'<tr class="marker" id="f{fid}-m{ln_r}"><td class="ln"></td><td colspan="3">'
                       f'⚠ unsupported <b>{esc(m.group(2))}</b>: {esc(m.group(3))}</td></tr>')
            continue
        if kind == "eq" and CELL.match(a):
            out.append(f'<tr class="cell"><td colspan="4">{esc(a[2:])}</td></tr>')
            continue
        cls = kind
        if kind == "chg":
            ha, hb = _highlight(a, b)
        else:
            ha = esc(a) if a is not None else ""
            hb = esc(b) if b is not None else ""
        if ln_l in unsup:
            cls += " unsup"
        if b is not None and kind != "eq" and NOTE.search(b):
            cls += " note"
        lid = f' id="f{fid}-L{ln_l}"' if ln_l else ""
        out.append(f'<tr class="{cls}"{lid}><td class="ln">{left_no(ln_l) if ln_l else ""}</td>'
                   f'<td class="src l code">{ha}</td><td class="ln">{right_no(ln_r) if ln_r else ""}</td>'
                   f'<td class="src r code">{hb}</td></tr>')
    flush()
    return "\n".join(out)


def _chart(apis: list[tuple[str, int, int]]) -> str:
    """Horizontal stacked bars (converted | unsupported) for the most used APIs, in CSS (reflows on narrow
    screens: the name goes above its bar)."""
    if not apis:
        return '<p class="sub">No torch API uses found.</p>'
    top = max(c + u for _, c, u in apis) or 1
    rows = []
    for api, conv, uns in apis:
        wc, wu = 100 * conv / top, 100 * uns / top
        bar = f'<span class="c" style="width:{wc:.1f}%"></span>' if conv else ""
        bar += f'<span class="u" style="width:{max(wu, 0.8):.1f}%"></span>' if uns else ""
        label = f"{conv + uns}" + (f" ({uns} unsupported)" if uns else "")
        rows.append(f'<div class="bar" title="{esc(api)}: {conv} converted, {uns} unsupported">'
                    f'<code class="name">{esc(api)}</code><span class="track">{bar}<span class="v">{label}</span>'
                    f'</span></div>')
    return '<div class="chart" role="img" aria-label="torch API uses per API: converted and unsupported">' + \
        "".join(rows) + "</div>"


FIRST = 10  # problems listed under "Fix these first"


def _fix_first(report: Report, fids: dict[str, int], name, sources: dict[str, tuple[str, str]]) -> str:
    """The page opens with what blocks most (migrate/triage.py): failed files, the model's forward, the training
    step, the rest, code nothing calls last; each links to its file's section."""
    from .triage import LABELS, rank

    items = rank(report, {f: src[0] for f, src in sources.items() if src[0]})
    if not items:
        return ""
    by_where = {}
    for f in report.files:
        for rec in [*f.errors, *f.unsupported]:
            by_where.setdefault(rec.where(), f)
    rows = []
    for i in items[:FIRST]:
        f = by_where.get(i.where)
        loc = i.where if f is None else name(f) + i.where[len(f.filename):]
        link = f'<a href="#f{fids[f.filename]}"><code>{esc(loc)}</code></a>' if f is not None else f"<code>{esc(loc)}</code>"
        text = i.text.removeprefix("error: ")
        why = f' <span class="why">({esc(i.context)})</span>' if i.context != LABELS[i.rank] else ""
        rows.append(f'<li><span class="pill rank{i.rank}">{esc(LABELS[i.rank])}</span> {link}: {esc(text)}{why}</li>')
    more = f" ({FIRST} of {len(items)}; the rest are in the files below)" if len(items) > FIRST else ""
    return (f'<div class="first"><h2>Fix these first{more}</h2><ol>{"".join(rows)}</ol></div>')


def render(report: Report, sources: dict[str, tuple[str, str]], title: str = "msmigrate conversion report") -> str:
    """The page. ``sources``: file name (as in the report) -> (torch text, MindSpore text)."""
    converted = sum((f.apis for f in report.files), Counter())
    unsupported = Counter(u.api for u in report.unsupported)
    reasons_by_api = defaultdict(Counter)
    for u in report.unsupported:
        reasons_by_api[u.api][u.reason] += 1
    apis = sorted(set(converted) | set(unsupported), key=lambda a: (-(converted[a] + unsupported[a]), a))
    rate = report.conversion_rate
    dirs = [os.path.dirname(os.path.abspath(f.filename)) for f in report.files]
    root = os.path.commonpath(dirs) if len(dirs) > 1 else ""

    def name(f) -> str:  # file names relative to the common folder of a directory conversion
        return os.path.relpath(os.path.abspath(f.filename), root) if root else f.filename
    n_unsup, n_err = len(report.unsupported), len(report.errors)

    h = [f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         f"<title>{esc(title)}</title><style>{CSS}</style></head><body><main>"]
    h.append(f"<h1>{esc(title)}</h1><p class=\"sub\">PyTorch → MindSpore, by <code>msmigrate convert</code>. "
             "Nothing was executed. Converted lines are tinted with the changed tokens highlighted; red rows are "
             "the places left as torch, with the reason." + (f" Files under <code>{esc(root)}</code>." if root else "")
             + "</p>")
    h.append(_fix_first(report, {f.filename: fid for fid, f in enumerate(report.files)}, name, sources))
    n_failed = len(report.failed_files)
    cards = [("files", len(report.files), ""), ("torch API uses", report.api_calls, ""),
             ("converted", report.converted, "ok"), ("unsupported", n_unsup, "bad" if n_unsup else "ok"),
             ("failed to convert", n_failed, "bad" if n_failed else "ok")]
    h.append('<div class="cards">')
    for label, n, cls in cards:
        h.append(f'<div class="card {cls}"><div class="n">{n}</div><div class="l">{esc(label)}</div></div>')
    h.append(f'<div class="card"><div class="n">{rate:.1%}</div><div class="l">conversion rate</div>'
             f'<div class="rate"><span style="width:{rate * 100:.1f}%"></span></div></div></div>')

    h.append('<div class="grid2"><div>')
    shown = sorted(unsupported, key=lambda a: (-unsupported[a], a))[:TOP_APIS // 2]  # unsupported ones always
    shown += [a for a in apis if a not in shown][:TOP_APIS - len(shown)]
    shown.sort(key=apis.index)
    h.append(f"<h2>Most used APIs</h2>{_chart([(a, converted[a], unsupported[a]) for a in shown])}")
    h.append('<p class="legend"><i style="background:#1a7f37"></i>converted<i style="background:#cf222e"></i>unsupported'
             + (f" · {len(shown)} of {len(apis)} APIs (the most used, and those with unsupported uses)"
                if len(apis) > len(shown) else "") + "</p>")
    h.append("</div><div>")
    h.append("<h2>Most common reasons</h2>")
    reasons = Counter(u.reason for u in report.unsupported)
    if reasons:
        h.append('<table class="list"><tr><th class="num">uses</th><th>reason</th></tr>')
        for reason, n in reasons.most_common(8):
            h.append(f'<tr><td class="num">{n}</td><td>{esc(reason)}</td></tr>')
        h.append("</table>")
    else:
        h.append('<p class="sub">Every torch API use was converted.</p>')
    h.append("</div></div>")

    if unsupported:
        h.append("<h2>Unsupported, per API</h2>")
        for api, n in sorted(unsupported.items(), key=lambda kv: (-kv[1], kv[0])):
            ranked = reasons_by_api[api].most_common()
            rs = "".join(f"<li>{esc(r)}" + (f" <span class=\"pill bad\">×{c}</span>" if c > 1 else "") + "</li>"
                         for r, c in ranked[:REASONS_PER_API])
            if len(ranked) > REASONS_PER_API:  # the rest are in the files' sections
                rest = ranked[REASONS_PER_API:]
                rs += (f"<li>… {len(rest)} other reason{'s' * (len(rest) != 1)} "
                       f"({sum(c for _, c in rest)} uses; see the files below)</li>")
            h.append(f'<div class="api"><div class="head"><code>{esc(api)}</code><span class="pill bad">{n} '
                     f'unsupported</span><span class="pill ok">{converted[api]} converted</span></div>'
                     f'<ul>{rs}</ul></div>')

    h.append('<h2>Files</h2><table class="list"><tr><th>file</th><th class="num">uses</th>'
             '<th class="num">converted</th><th class="num">unsupported</th><th class="num">rate</th></tr>')
    for fid, f in enumerate(report.files):
        if f.errors:
            status = '<span class="pill err">error</span>'
        elif f.unsupported:
            status = f'<span class="pill bad">{len(f.unsupported)}</span>'
        else:
            status = '<span class="pill ok">0</span>'
        frate = f"{f.converted / f.api_calls:.0%}" if f.api_calls else "–"
        h.append(f'<tr><td><a href="#f{fid}"><code>{esc(name(f))}</code></a></td><td class="num">{f.api_calls}'
                 f'</td><td class="num">{f.converted}</td><td class="num">{status}</td><td class="num">{frate}</td>'
                 "</tr>")
    h.append("</table>")

    h.append("<h2>Side by side</h2>")
    for fid, f in enumerate(report.files):
        h.append(f'<section class="file" id="f{fid}"><h3><code>{esc(name(f))}</code>')
        h.append(f'<span class="pill ok">{f.converted} converted</span>')
        if f.unsupported:
            h.append(f'<span class="pill bad">{len(f.unsupported)} unsupported</span>')
        h.append("</h3>")
        if f.errors:
            h.append('<ul class="issues">' + "".join(f'<li class="err">{esc(e.where())}: {esc(e.message)}</li>'
                                                     for e in f.errors) + "</ul></section>")
            continue
        if f.unsupported:
            h.append('<ul class="issues">' + "".join(
                f'<li><code>{esc(u.where())}</code>: <b>{esc(u.api)}</b>: {esc(u.reason)}</li>'
                for u in f.unsupported) + "</ul>")
        left, right = sources.get(f.filename, ("", f.code))
        rows = _rows(left, right)
        nums = (cell_numbers(left), cell_numbers(right)) if f.filename.endswith(".ipynb") else None
        if all(r[0] == "eq" for r in rows):
            h.append('<p class="sub">No change: no torch API use in this file.</p></section>')
            continue
        h.append('<p class="narrow">Narrow screen: each torch line (red, −) is followed by its MindSpore line '
                 '(green, +); unchanged lines are shown once, numbered as in the MindSpore file.</p>')
        h.append('<div class="diff"><table class="sbs"><colgroup><col class="ln"><col class="src"><col class="ln">'
                 '<col class="src"></colgroup><thead><tr><th colspan="2">torch</th><th colspan="2">MindSpore</th>'
                 f'</tr></thead><tbody>{_render_rows(rows, fid, nums)}</tbody></table></div>')
        h.append("</section>")
    h.append("</main></body></html>\n")
    return "".join(h)
