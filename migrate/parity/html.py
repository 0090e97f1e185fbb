"""parity.html: one self-contained page (inline CSS and SVG, no scripts, no external resources)."""
from __future__ import annotations

import html
import math

_CSS = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:24px;color:#222;max-width:1150px}
h1{font-size:22px;margin:0 0 8px} h2{font-size:17px;margin:26px 0 8px;border-bottom:1px solid #ddd}
.verdict{padding:10px 14px;border-radius:6px;font-weight:600;margin:10px 0}
.ok{background:#e6f4ea;color:#185c2b}.bad{background:#fce8e6;color:#8a1c12}
table{border-collapse:collapse;width:100%;font-size:12.5px}
th,td{padding:3px 8px;border-bottom:1px solid #eee;text-align:right;white-space:nowrap}
th{background:#f6f6f6;position:sticky;top:0} td.l,th.l{text-align:left}
td.l{white-space:normal;overflow-wrap:break-word}
.scroll{overflow-x:auto;max-width:100%} .scroll>svg{display:block}
.kv ul{margin:0;padding-left:18px} .kv li{margin:1px 0}
@media (max-width:700px){body{margin:12px} h1{font-size:19px} table{font-size:12px}}
tr.fail td{background:#fff4f2;color:#8a1c12} tr.first td{background:#f9d3cd;font-weight:700}
.muted{color:#777} .kv td{text-align:left;border:none;padding:1px 10px 1px 0;white-space:normal}
svg text{font:11px system-ui,sans-serif}
"""


def render_html(report) -> str:
    d = report.to_dict()
    fd = d["first_divergence"]
    verdict = ("ok", report.summary()) if d["passed"] else ("bad", report.summary())
    parts = [
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'><title>msmigrate parity</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>msmigrate parity: torch vs MindSpore</h1>",
        f"<div class='verdict {verdict[0]}'>{_e(verdict[1])}</div>",
        _settings(d),
        _scroll(_lines(fd.get("line"))),
        "<h2>Per-layer error over its noise floor (forward outputs and output gradients; above 1× diverges)</h2>",
        _scroll(_plot(d)),
        _scroll(_table_layers(d, fd.get("forward"))),
        _scroll(_table_grads(d)),
        _scroll(_table_layer_grads(d, fd.get("backward"))),
        _scroll(_table_steps(d, fd.get("step"))),
        _unmatched(d),
        "</body></html>",
    ]
    return "\n".join(p for p in parts if p)


def _scroll(part: str) -> str:
    """Wide tables and the plot scroll sideways inside the page instead of running off its edge."""
    if not part:
        return part
    head, sep, rest = part.partition("<table") if part.lstrip().startswith("<h2") else ("", "", part)
    return f"{head}<div class='scroll'>{sep}{rest}</div>"


def _name(name: str) -> str:
    """A layer or parameter name that wraps at its dots and underscores (never mid-word) in a narrow column."""
    return _e(name).replace(".", ".<wbr>").replace("_", "_<wbr>")


def _lines(ln) -> str:
    """The first divergent source line, both sides, in context."""
    if not ln:
        return ""

    def block(ctx, mark):
        return "".join(f"<div class='{'bad' if n == mark else 'muted'}'><code>{n:>5}  {_e(text)}</code></div>"
                       for n, text in ctx)

    return (f"<h2>First divergent line: variable <code>{_e(ln['variable'])}</code> in {_e(ln['function'])} "
            f"(ratio {_n(ln.get('ratio'))}×)</h2><table class='kv'>"
            f"<tr><td class='muted'>torch {_e(ln['torch'])}</td><td>{block(ln['torch_context'], ln['torch_line'])}</td></tr>"
            f"<tr><td class='muted'>MindSpore {_e(ln['ms'])}</td><td>{block(ln['ms_context'], ln['ms_line'])}</td></tr>"
            + "".join(f"<tr><td class='muted'>mapping</td><td><code>{_e(mp['torch'])} → {_e(mp['ms'] or '(forms)')}"
                      f"</code>{' rule ' + _e(mp['rule']) if mp.get('rule') else ''} "
                      f"<span class='muted'>{_e(mp.get('source') or '')}</span></td></tr>"
                      for mp in ln.get("mappings") or [])
            + "</table>")


def _e(x) -> str:
    return html.escape(str(x))


def _n(v, digits=3) -> str:
    if v is None:
        return "-"
    if isinstance(v, str):
        return _e(v)
    return f"{v:.{digits}e}" if (v != 0 and (abs(v) < 1e-2 or abs(v) >= 1e4)) else f"{v:.{digits + 2}g}"


def _settings(d) -> str:
    t, s = d["tolerances"], d["settings"]
    rule = [f"a tensor passes when error / noise floor ≤ 1 (a real slip reads 30× to 1e6×, a marginal case 1.2×)",
            f"float32 screen: |torch − ms| ≤ {t['atol']:g} + {t['rtol']:g}·max|torch| for every element "
            f"(gradients: {t.get('grad_rtol', t['rtol']):g}·max|torch|)",
            f"outside it, a float64 torch run decides: error = ‖ms − ref‖, floor = {t.get('k_torch', 32):g}·‖torch32 − "
            f"ref‖ (gradients {t.get('k_torch_grad', 128):g}·) + eps·‖Σ|terms|‖",
            "at ReLU / max-pool elements within rounding of the kink, torch's backward takes MindSpore's decision "
            "(tier 'routing': kinks whose routing is not known)",
            "parameter gradients decide the backward; layer gradients locate it (why: docs/parity.md)"]
    rows = [("verdict rule", rule),
            ("mode", s.get("mode")), ("loss", s.get("loss")),
            ("loss value", f"torch {s.get('loss_torch')}  /  MindSpore {s.get('loss_ms')}"),
            ("inputs", ", ".join(f"{'x'.join(map(str, i['shape']))} {i['dtype']}" for i in s.get("inputs", []))),
            ("steps", f"{s.get('steps')} ({s.get('optimizer')}, lr={s.get('lr')})" if s.get("steps") else "none")]
    fd = d["first_divergence"]
    rows += [("first divergence", f"forward: {fd['forward'] or '—'}; backward: {fd['backward'] or '—'}"
              f" (first parameter: {fd['backward_param'] or '—'}); step: "
              f"{fd['step'] or '—'}" + (f" ({fd['step_detail']})" if fd.get("step_detail") else ""))]
    nf = d["first_nonfinite"]
    if nf["torch"] or nf["ms"]:
        rows.append(("NaN/Inf first at", f"torch: {nf['torch'] or '—'}; MindSpore: {nf['ms'] or '—'}"))
    if d.get("error"):
        rows.append(("MindSpore error", d["error"]))
    for note in d.get("determinism", []):
        rows.append(("note", note))
    def cell(v):
        return "<ul>" + "".join(f"<li>{_e(x)}</li>" for x in v) + "</ul>" if isinstance(v, list) else _e(v)
    return "<table class='kv'>" + "".join(f"<tr><td class='muted'>{_e(k)}</td><td>{cell(v)}</td></tr>"
                                         for k, v in rows) + "</table>"


def _plot(d) -> str:
    layers = d["layers"]
    if not layers:
        return "<p class='muted'>no layers compared</p>"
    grads, grad_ok = {}, {}
    for g in d["layer_grads"]:
        if g["kind"] == "out" and isinstance(g.get("ratio"), (int, float)):
            grads[g["name"]] = max(grads.get(g["name"], 0.0), g["ratio"])
            grad_ok[g["name"]] = grad_ok.get(g["name"], True) and g["passed"]
    W, H, L, R, T, B = 1100, 360, 60, 110, 34, 100  # B, R: room for the layer names, slanted
    n = len(layers)

    def val(v):
        if isinstance(v, str):  # inf / nan written as text
            return 1e6
        return None if v is None else max(float(v), 1e-12)

    vals = [val(r.get("ratio")) for r in layers] + [val(v) for v in grads.values()] + [1.0, 1e-3, 10.0]
    vals = [v for v in vals if v is not None]
    lo = math.floor(math.log10(min(vals))) if vals else -12
    hi = math.ceil(math.log10(max(vals))) if vals else 0
    hi = max(hi, lo + 1)

    def x(i):
        return L + (W - L - R) * (i + 0.5) / n

    def y(v):
        return T + (H - T - B) * (hi - math.log10(v)) / (hi - lo)

    out = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{W}' height='{H}' viewBox='0 0 {W} {H}' "
           "role='img' aria-label='per-layer error over noise floor'>",
           f"<rect x='{L}' y='{T}' width='{W - L - R}' height='{H - T - B}' fill='#fafafa' stroke='#ccc'/>"]
    for e in range(lo, hi + 1):
        yy = y(10.0 ** e)
        out.append(f"<line x1='{L}' x2='{W - R}' y1='{yy:.1f}' y2='{yy:.1f}' stroke='#e3e3e3'/>"
                   f"<text x='{L - 6}' y='{yy + 4:.1f}' text-anchor='end'>1e{e}</text>")
    ty = y(1.0)
    out.append(f"<line x1='{L}' x2='{W - R}' y1='{ty:.1f}' y2='{ty:.1f}' stroke='#e69500' stroke-dasharray='5,4'/>"
               f"<text x='{W - R - 4}' y='{ty - 4:.1f}' text-anchor='end' fill='#b07000'>noise floor (1×)</text>")
    first = d["first_divergence"]["forward"]
    back = d["first_divergence"]["backward"]
    for i, r in enumerate(layers):
        if r["name"] == first:
            out.append(f"<line x1='{x(i):.1f}' x2='{x(i):.1f}' y1='{T}' y2='{H - B}' stroke='#c5221f' "
                       f"stroke-width='1.5'/><text x='{x(i) + 4:.1f}' y='{H - B - 6}' fill='#c5221f'>"
                       f"first divergence: {_e(first)}</text>")
        if r["name"] == back:
            out.append(f"<line x1='{x(i):.1f}' x2='{x(i):.1f}' y1='{T}' y2='{H - B}' stroke='#8e44ad' "
                       f"stroke-width='1.5' stroke-dasharray='4,3'/><text x='{x(i) + 4:.1f}' y='{H - B - 20}' "
                       f"fill='#8e44ad'>backward diverges: {_e(back)}</text>")
    fwd_pts, grad_pts = [], []
    for i, r in enumerate(layers):
        v = val(r.get("ratio"))
        if v is not None:
            fwd_pts.append((x(i), y(v), r["passed"], r["name"], v))
        if r["name"] in grads:
            grad_pts.append((x(i), y(val(grads[r["name"]])), r["name"], grads[r["name"]]))
    if len(fwd_pts) > 1:
        out.append("<polyline fill='none' stroke='#1a73e8' stroke-width='1.2' points='"
                   + " ".join(f"{px:.1f},{py:.1f}" for px, py, *_ in fwd_pts) + "'/>")
    if len(grad_pts) > 1:
        out.append("<polyline fill='none' stroke='#8e44ad' stroke-width='1' stroke-dasharray='3,2' points='"
                   + " ".join(f"{px:.1f},{py:.1f}" for px, py, *_ in grad_pts) + "'/>")
    for px, py, ok, name, v in fwd_pts:
        out.append(f"<circle cx='{px:.1f}' cy='{py:.1f}' r='{3 if ok else 4.5}' fill='{'#1a73e8' if ok else '#c5221f'}'>"
                   f"<title>{_e(name)}: error / floor {v:.3g}</title></circle>")
    for px, py, name, v in grad_pts:
        ok = grad_ok.get(name, True)
        sz = 4 if ok else 7
        out.append(f"<rect x='{px - sz / 2:.1f}' y='{py - sz / 2:.1f}' width='{sz}' height='{sz}' "
                   f"fill='{'#8e44ad' if ok else '#c5221f'}' stroke='#8e44ad'>"
                   f"<title>{_e(name)}: output gradient, error / floor {v:.3g}</title></rect>")
    step = max(1, n // 40)
    for i in range(0, n, step):
        out.append(f"<text transform='translate({x(i):.1f},{H - B + 8}) rotate(40)' fill='#555'>"
                   f"<title>{_e(layers[i]['name'])}</title>{_e(_short(layers[i]['name']))}</text>")
    out.append(f"<text x='14' y='{T + (H - T - B) / 2:.0f}' transform='rotate(-90 14 {T + (H - T - B) / 2:.0f})' "
               "text-anchor='middle'>error / noise floor</text>")
    lx, ly = L + 4, 14
    out.append(f"<circle cx='{lx}' cy='{ly - 4}' r='3' fill='#1a73e8'/><text x='{lx + 8}' y='{ly}'>forward output"
               f"</text><rect x='{lx + 110}' y='{ly - 6}' width='4' height='4' fill='#8e44ad'/><text x='{lx + 120}' "
               f"y='{ly}'>output gradient</text><circle cx='{lx + 230}' cy='{ly - 4}' r='4' fill='#c5221f'/>"
               f"<text x='{lx + 238}' y='{ly}'>outside tolerance (red)</text>")
    out.append("</svg>")
    return "".join(out)


def _short(name: str, n: int = 24) -> str:
    """A layer name that fits under the plot: its last dotted parts whole (``…blocks.3.attn.proj``), the full name in
    the label's tooltip and in the tables."""
    if len(name) <= n:
        return name
    parts, out = name.split("."), ""
    while parts and len(parts[-1]) + len(out) + 1 <= n - 1:
        out = parts.pop() + ("." + out if out else "")
    return "…" + (out or name[-(n - 1):])


def _row(cells, cls=""):
    return f"<tr class='{cls}'>" + "".join(cells) + "</tr>"


def _metric_cells(r):
    return [f"<td>{_n(r.get('max_abs'))}</td>", f"<td>{_n(r.get('cosine'), 6)}</td>",
            f"<td>{_pct(r.get('within'))}</td>", f"<td>{_n(r.get('floor'))}</td>", f"<td>{_n(r.get('error'))}</td>",
            _ratio_cell(r), f"<td>{_e(r.get('tier', ''))}</td>",
            f"<td>{'ok' if r['passed'] else 'FAIL'}</td>"]


def _ratio_cell(r) -> str:
    """error / floor, with a bar on a log scale: 1x is the floor, a real slip sits far right."""
    v = r.get("ratio")
    if v is None:
        return "<td>-</td>"
    if isinstance(v, str):
        v = math.inf
    text = "inf" if math.isinf(v) else (f"{v:.2g}×" if v < 100 else f"{v:.3g}×" if v < 1e4 else f"{v:.1e}×")
    pos = 0.0 if v <= 0 else min(1.0, max(0.0, (math.log10(v) + 3) / 9)) if math.isfinite(v) else 1.0
    colour = "#1e8e3e" if v <= 1 else ("#e69500" if v <= 10 else "#c5221f")
    bar = (f"<svg width='60' height='8' aria-hidden='true'><rect width='60' height='8' fill='#eee'/>"
           f"<rect x='20' width='1' height='8' fill='#888'/><rect width='{max(2, 60 * pos):.0f}' height='8' "
           f"fill='{colour}' opacity='0.8'/></svg>")
    return f"<td title='error / noise floor (1× = the floor)'>{bar} {_e(text)}</td>"


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.2f}%"


_MHEAD = ("<th>max abs</th><th>cosine</th><th>within screen</th><th>noise floor</th><th>error</th>"
          "<th>ratio</th><th>judged on</th><th>status</th>")


def _table_layers(d, first) -> str:
    rows = []
    for r in d["layers"]:
        cls = "first" if r["name"] == first else ("" if r["passed"] else "fail")
        shape = "x".join(map(str, r.get("shape") or [])) + (
            " | " + "x".join(map(str, r["shape_ms"])) if r.get("shape_ms") else "")
        rows.append(_row([f"<td>{r['index']}</td>", f"<td class='l'>{_name(r['name'])}</td>",
                          f"<td class='l'>{_e(r['type'])}</td>", f"<td class='l'>{_e(shape)}</td>",
                          *_metric_cells(r), f"<td class='l'>{_e(r.get('note', ''))}</td>"], cls))
    return ("<h2>Forward: layer outputs (torch execution order)</h2><table><tr><th>#</th><th class='l'>layer</th>"
            f"<th class='l'>type</th><th class='l'>shape</th>{_MHEAD}<th class='l'>note</th></tr>"
            + "".join(rows) + "</table>")


def _table_grads(d) -> str:
    if not d["grads"]:
        return ""
    rows = [_row([f"<td class='l'>{_name(g['name'])}</td>", f"<td class='l'>{_name(g['ms_name'])}</td>",
                  f"<td class='l'>{'x'.join(map(str, g.get('shape') or []))}</td>", *_metric_cells(g)],
                 "" if g["passed"] else "fail") for g in d["grads"]]
    return ("<h2>Backward: parameter gradients</h2><table><tr><th class='l'>torch name</th>"
            f"<th class='l'>MindSpore name</th><th class='l'>shape</th>{_MHEAD}</tr>" + "".join(rows) + "</table>")


def _table_layer_grads(d, first) -> str:
    if not d["layer_grads"]:
        return ""
    rows = [_row([f"<td class='l'>{_name(g['name'])}</td>", f"<td class='l'>{_e(g['kind'])}[{g['index']}]</td>",
                  *_metric_cells(g), f"<td class='l'>{_e(g.get('note', ''))}</td>"],
                 "first" if g["name"] == first and not g["passed"] else
                 ("" if g["passed"] or not (g.get("decisive", True) or first) else "fail"))
            for g in d["layer_grads"]]
    lead = ("" if any(g.get("decisive", True) for g in d["layer_grads"]) else
            "<p class='muted'>The parameter gradients decide the backward verdict; these locate where a failing "
            "one's error entered. A layer gradient outside the float32 screen while every parameter gradient is "
            "within its floor is not a divergence (inputs within rounding of a ReLU / max-pool kink routed "
            "differently, then spread by the layers before them).</p>")
    return ("<h2>Backward: gradients at layer outputs / inputs (backward order)</h2>" + lead + "<table><tr>"
            f"<th class='l'>layer</th><th class='l'>gradient at</th>{_MHEAD}<th class='l'>note</th></tr>"
            + "".join(rows) + "</table>")


def _table_steps(d, first) -> str:
    if not d["steps"]:
        return ""
    rows = [_row([f"<td>{s['step']}</td>", f"<td>{_n(s['loss_torch'], 6)}</td>", f"<td>{_n(s['loss_ms'], 6)}</td>",
                  f"<td>{s['params_failed']}</td>", f"<td class='l'>{_e(s['first_param'] or '')}</td>",
                  f"<td>{'ok' if s['passed'] else 'FAIL'}</td>"],
                 "first" if s["step"] == first else ("" if s["passed"] else "fail")) for s in d["steps"]]
    bad = [p for p in d["final_params"] if not p["passed"]]
    extra = ""
    if bad:
        extra = ("<p>Parameters and buffers outside tolerance after the last step:</p><table><tr>"
                 f"<th class='l'>torch name</th><th class='l'>MindSpore name</th>{_MHEAD}</tr>"
                 + "".join(_row([f"<td class='l'>{_name(p['name'])}</td>", f"<td class='l'>{_name(p['ms_name'])}</td>",
                                 *_metric_cells(p)], "fail") for p in bad) + "</table>")
    return ("<h2>Training steps</h2><table><tr><th>step</th><th>loss torch</th><th>loss MindSpore</th>"
            "<th>params outside tol</th><th class='l'>first</th><th>status</th></tr>" + "".join(rows) + "</table>"
            + extra)


def _unmatched(d) -> str:
    u = d["unmatched"]
    if not u["torch"] and not u["ms"]:
        return ""
    return ("<h2>Unmatched layers (one side only; not failures)</h2>"
            f"<p><b>torch only:</b> {_e(', '.join(u['torch']) or '—')}<br>"
            f"<b>MindSpore only:</b> {_e(', '.join(u['ms']) or '—')}</p>")
