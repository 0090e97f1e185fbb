"""The parity report: data, JSON (parity.json), terminal table.

parity.json schema (all numbers are floats; null where not computed):

    passed            bool: forward, backward and steps all within tolerance, no error
    tolerances        {rtol, atol, grad_rtol, k_torch, eps, reference}: the float32 screen passes an element when
                      |torch - ms| <= atol + rtol * max|torch| (gradients: grad_rtol); a tensor failing it is judged
                      against a float64 torch run: floor = k_torch * ||torch32 - ref|| + eps * ||sum|terms|||
    every compared row carries: floor, error, ratio (= error / floor; passed == ratio <= 1), tier ("float32":
                      the screen decided, per element, against torch's gradient routed as MindSpore routed its
                      ReLU / max-pool kinks; "routing": a parameter gradient within how far noise at the kink
                      layers whose routing in MindSpore is not known moves torch's (2-norms);
                      "float64": the reference decided, 2-norms; "shape"), and for tier float64: torch_err
                      (||torch32 - ref||), terms (||S|| or null), screen {floor, error, ratio}, routing?
    settings          {mode, steps, optimizer, lr, loss, inputs}
    determinism       [str]: what was made deterministic (dropout, drop-path and DropBlock disabled, inplace turned off)
    layers            [{index, name, path, type, shape, max_abs, max_rel, cosine, within, passed,
                        nonfinite_torch, nonfinite_ms, note?}]   forward, in torch execution order
    layer_grads       [{name, type, kind: "out"|"in", index, shape, max_abs, max_rel, cosine, within,
                        passed, decisive}]   gradient at each layer's outputs / inputs, in backward order;
                      decisive is false when the model has parameters: then the parameter gradients decide
                      and layer gradients only locate where a failing one's error entered
    grads             [{name, ms_name, shape, max_abs, max_rel, cosine, within, passed}]   parameters
    steps             [{step, loss_torch, loss_ms, passed, params_failed, first_param}]
    final_params      [{name, ms_name, shape, max_abs, ..., passed}]   after the last step
    unmatched         {torch: [path], ms: [path]}   layers present on one side only (not failures)
    first_divergence  {forward: layer|null, backward: layer|null, backward_param: name|null,
                       step: int|null, step_detail: str|null,
                       line: null | {torch: "file.py:LINE", ms: "file.py:LINE", variable, function, call,
                                     torch_code, ms_code, ratio, max_abs, torch_context, ms_context: [[n, text]],
                                     mappings: [{torch, ms, rule, source, notes}] (the mapping-table entries
                                     behind the torch calls of that line), ...}: the first source line and variable where the forward values part
                                     (migrate/parity/lines.py; only when the forward diverged)}
    first_nonfinite   {torch: layer|null, ms: layer|null}   first layer whose output holds NaN/Inf
    error             str|null   an exception raised by the MindSpore side, with the layer running it
    weights           {torch_only: [name], ms_only: [name]}   tensors with no counterpart (not copied)
    reference         {ran, tensors}   whether the float64 reference ran, and how many tensors it judged
    timing            {torch_s, mindspore_s, compare_s, routing_s?, reference_s?, locate_s?}   seconds of each run
                      (hooks and comparisons included; compare_s: the forward comparisons inside mindspore_s)
    jit               null, or with --jit: {ok, vanished, differing, outputs, loss, gradients, error}
                      (migrate.jitcheck: the MindSpore model in PyNative vs under ms.jit)
"""
from __future__ import annotations

import json
import math
import os
import sys
from dataclasses import asdict, dataclass, field


@dataclass
class ParityReport:
    tolerances: dict
    settings: dict = field(default_factory=dict)
    determinism: list = field(default_factory=list)
    layers: list = field(default_factory=list)
    layer_grads: list = field(default_factory=list)
    grads: list = field(default_factory=list)
    steps: list = field(default_factory=list)
    final_params: list = field(default_factory=list)
    unmatched: dict = field(default_factory=lambda: {"torch": [], "ms": []})
    first_divergence: dict = field(default_factory=lambda: {
        "forward": None, "backward": None, "backward_param": None, "step": None, "step_detail": None, "line": None})
    first_nonfinite: dict = field(default_factory=lambda: {"torch": None, "ms": None})
    error: str | None = None
    passed: bool = False
    jit: dict | None = None
    weights: dict = field(default_factory=lambda: {"torch_only": [], "ms_only": []})
    reference: dict = field(default_factory=lambda: {"ran": False, "tensors": 0})
    timing: dict = field(default_factory=dict)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        return _clean(asdict(self))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, allow_nan=False)

    def write(self, directory) -> dict:
        """Write parity.json and parity.html into ``directory`` (each atomically); return their paths."""
        from .html import render_html

        os.makedirs(directory, exist_ok=True)
        paths = {"json": os.path.join(directory, "parity.json"), "html": os.path.join(directory, "parity.html")}
        _atomic_write(paths["json"], self.to_json())
        _atomic_write(paths["html"], render_html(self))
        return paths

    # ------------------------------------------------------------------ terminal
    def summary(self) -> str:
        fd = self.first_divergence
        if self.passed:
            return (f"PARITY HOLDS: {len(self.layers)} layers, {len(self.grads)} parameter gradients"
                    + (f", {len(self.steps)} steps" if self.steps else "") + " within tolerance")
        parts = []
        if self.error:
            parts.append(f"MindSpore raised: {self.error}")
        if fd["forward"]:
            ln = fd.get("line")
            parts.append(f"forward diverges first at {fd['forward']}"
                         + (f" (first line: {ln['torch']} / {ln['ms']}, variable {ln['variable']})" if ln else ""))
        if fd["backward"] or fd["backward_param"]:
            parts.append(f"backward diverges first at {fd['backward'] or fd['backward_param']}")
        if fd["step"]:
            parts.append(f"training diverges at step {fd['step']} ({fd['step_detail']})")
        return "DIVERGENCE: " + "; ".join(parts or ["see report"])

    def table(self, color: bool | None = None, max_rows: int = 200) -> str:
        color = sys.stdout.isatty() if color is None else color
        red, bold, dim, end = ("\x1b[31m", "\x1b[1m", "\x1b[2m", "\x1b[0m") if color else ("",) * 4
        fd = self.first_divergence
        tol = self.tolerances
        lines = [f"forward: {len(self.layers)} layers compared (screen: error <= {tol['atol']:g} + {tol['rtol']:g} x "
                 f"max|torch|, gradients {tol.get('grad_rtol', tol['rtol']):g}; a tensor outside it is judged on a "
                 f"float64 torch run: ratio = error / noise floor, * marks those; ~ marks parameter gradients "
                 f"passed on the routing term)"]
        head = (f"   {'#':>3}  {'layer':<34} {'type':<18} {'shape':<18} {'max_abs':>9} {'cosine':>9} {'within':>7} "
                f"{'ratio':>9}")
        lines.append(head)
        rows = self.layers if len(self.layers) <= max_rows else _around(self.layers, fd["forward"], max_rows)
        for r in rows:
            if r is None:
                lines.append(f"{dim}   ...{end}")
                continue
            first = r["name"] == fd["forward"]
            mark = ">> " if first else ("x  " if not r["passed"] else "   ")
            line = (f"{mark}{r['index']:>3}  {_cut(r['name'], 34):<34} {_cut(r['type'], 18):<18} "
                    f"{_cut(_shape(r), 18):<18} {_num(r['max_abs']):>9} "
                    f"{_num(r['cosine'], 6):>9} {_pct(r['within']):>7} {_ratio(r):>9}")
            if r.get("note"):
                line += f"  {r['note']}"
            lines.append(f"{bold}{red}{line}{end}" if first else (f"{red}{line}{end}" if not r["passed"] else line))
        ln = fd.get("line")
        if ln:
            lines.append(f"{bold}{red}>> first divergent line: variable {ln['variable']} in {ln['function']} "
                         f"(ratio {_num(ln.get('ratio'))}x, max_abs {_num(ln.get('max_abs'))}){end}")
            lines.append(f"{red}   torch     {ln['torch']}: {ln['torch_code']}{end}")
            lines.append(f"{red}   MindSpore {ln['ms']}: {ln['ms_code']}{end}")
            for mp in ln.get("mappings") or []:
                lines.append(f"{dim}   mapping: {mp['torch']} -> {mp['ms'] or '(forms)'}"
                             + (f", rule {mp['rule']}" if mp.get("rule") else "")
                             + (f" ({mp['source']})" if mp.get("source") else "") + end)
        bad_grads = [g for g in self.grads if not g["passed"]]
        lines.append(f"backward: {len(self.grads)} parameter gradients, {len(bad_grads)} outside tolerance; "
                     f"{len(self.layer_grads)} layer gradients")
        if fd["backward"]:
            lines.append(f"{bold}{red}>> backward diverges first at layer {fd['backward']}{end}")
        if fd.get("backward_param") and fd["backward_param"] != fd.get("backward"):
            lines.append(f"{red}   first parameter gradient outside its floor: {fd['backward_param']}{end}")
        for g in bad_grads[:15]:
            lines.append(f"{red}x  grad {g['name']:<40} max_abs {_num(g['max_abs'])}  cosine {_num(g['cosine'], 6)}  "
                         f"ratio {_ratio(g)}{end}")
        bad_lg = [g for g in self.layer_grads if not g["passed"]]
        shown = [g for g in bad_lg if g.get("decisive", True) or fd["backward"]]
        if len(shown) < len(bad_lg):
            lines.append(f"{dim}   {len(bad_lg) - len(shown)} layer gradient(s) outside the float32 screen while every "
                         f"parameter gradient is within its floor: not a divergence (layer gradients locate, "
                         f"parameter gradients decide; typically inputs within rounding of a ReLU / max-pool kink "
                         f"routed differently, then spread by the convolutions before them){end}")
        bad_lg = shown
        for g in bad_lg[:10]:
            lines.append(f"{red}x  {g['kind']}-grad {g['name'] + '[' + str(g['index']) + ']':<37} max_abs "
                         f"{_num(g['max_abs'])}  cosine {_num(g['cosine'], 6)}  ratio {_ratio(g)}"
                         + (f"  {g['note']}" if g.get("note") else "") + end)
        if len(bad_lg) > 10:
            lines.append(f"   ... {len(bad_lg) - 10} more layer gradients outside their floor")
        judged = [r for r in self.layers + self.grads + self.layer_grads if r.get("tier") == "float64"]
        if judged:
            worst = max(judged, key=lambda r: r["ratio"])
            lines.append(f"{dim}float64 reference: {len(judged)} tensor(s) outside the float32 screen re-judged, "
                         f"{sum(1 for r in judged if r['passed'])} within their noise floor (worst ratio "
                         f"{_ratio(worst)} at {worst['name']}){end}")
        if len(bad_grads) > 15:
            lines.append(f"   ... {len(bad_grads) - 15} more")
        if self.steps:
            lines.append(f"steps ({self.settings.get('optimizer')}, lr={self.settings.get('lr')}):")
            for s in self.steps:
                first = s["step"] == fd["step"]
                line = (f"{'>> ' if first else ('x  ' if not s['passed'] else '   ')}step {s['step']:>3}  "
                        f"loss torch {_num(s['loss_torch'], 7)}  ms {_num(s['loss_ms'], 7)}  "
                        f"params outside tolerance: {s['params_failed']}"
                        + (f" (first: {s['first_param']})" if s["first_param"] else ""))
                lines.append(f"{bold}{red}{line}{end}" if first else line)
        if self.unmatched["torch"] or self.unmatched["ms"]:
            lines.append(f"{dim}unmatched (one side only, not failures): torch {_list(self.unmatched['torch'])}; "
                         f"MindSpore {_list(self.unmatched['ms'])}{end}")
        if self.first_nonfinite["torch"] or self.first_nonfinite["ms"]:
            lines.append(f"{red}NaN/Inf first produced by: torch {self.first_nonfinite['torch']}, "
                         f"MindSpore {self.first_nonfinite['ms']}{end}")
        for note in self.determinism:
            lines.append(f"{dim}note: {note}{end}")
        lines.append((f"{bold}" if color else "") + self.summary() + end)
        return "\n".join(lines)


def _around(rows, name, max_rows):
    idx = next((i for i, r in enumerate(rows) if r["name"] == name), 0)
    lo = max(0, min(idx - max_rows // 2, len(rows) - max_rows))
    out = ([None] if lo > 0 else []) + rows[lo:lo + max_rows]
    return out + ([None] if lo + max_rows < len(rows) else [])


def _ratio(r) -> str:
    """error / noise floor: < 1 passes; a real slip reads 100x, a marginal case 1.2x; * = judged on float64."""
    v = r.get("ratio")
    if v is None:
        return "-"
    if isinstance(v, str) or math.isinf(v) or math.isnan(v):
        return str(v)
    text = f"{v:.2g}x" if v < 100 else f"{v:.3g}x" if v < 1e4 else f"{v:.1e}x"
    return text + ("*" if r.get("tier") == "float64" else "~" if r.get("tier") == "routing" else "")


def _shape(r) -> str:
    s = "x".join(map(str, r.get("shape") or []))
    if r.get("shape_ms") is not None:
        s += "|" + "x".join(map(str, r["shape_ms"]))
    return s or "-"


def _cut(s, n):
    s = str(s)
    return s if len(s) <= n else "…" + s[-(n - 1):]


def _num(v, digits=2) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and (math.isinf(v) or math.isnan(v)):
        return str(v)
    return f"{v:.{digits}g}" if digits > 2 else f"{v:.2e}"


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def _list(items, n=8) -> str:
    return "none" if not items else ", ".join(items[:n]) + (f" (+{len(items) - n})" if len(items) > n else "")


def _clean(v):
    """JSON cannot hold NaN/Inf: write them as strings."""
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return str(v)
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_clean(x) for x in v]
    return v


def _atomic_write(path: str, text: str) -> None:
    from ..io import write_atomic

    write_atomic(path, text)
