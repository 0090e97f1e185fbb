"""The verdict: metrics over a layer's outputs (``_combine``), the forward table in torch's order, and the first
divergence and pass/fail of a whole run (``_conclude``)."""
from __future__ import annotations

from . import metrics
from .hooks import ROOT
from .state import _path


def _conclude(report) -> None:
    fd = report.first_divergence
    fd["forward"] = next((r["name"] for r in report.layers if not r["passed"]), None)
    # backward: the layer that turned a matching output gradient into a mismatching input gradient
    order, out_ok, in_bad = [], {}, set()
    for r in report.layer_grads:
        if r["name"] not in order:
            order.append(r["name"])
        if r["kind"] == "out":
            out_ok[r["name"]] = out_ok.get(r["name"], True) and r["passed"]
        elif not r["passed"]:
            in_bad.add(r["name"])
    cands = [k for k in order if k in in_bad and out_ok.get(k, True)]
    chosen = cands[0] if cands else next((r["name"] for r in report.layer_grads if not r["passed"]), None)
    if not any(not g["passed"] for g in report.grads + report.layer_grads if g.get("decisive", True)):
        chosen = None  # layer gradients outside the screen that no parameter gradient confirms: noise (kinks)
    while chosen is not None:
        deeper = [c for c in cands if _path(c).startswith(_path(chosen) + ".") or
                  (_path(chosen) == ROOT and c != chosen)]
        if not deeper:
            break
        chosen = deeper[0]
    fd["backward"] = chosen
    fd["backward_param"] = next((g["name"] for g in report.grads if not g["passed"]), None)
    bad_step = next((s for s in report.steps if not s["passed"]), None)
    if bad_step:
        fd["step"] = bad_step["step"]
        fd["step_detail"] = ("loss differs" if not bad_step["loss_passed"] else
                             f"{bad_step['params_failed']} parameter(s) differ after the update, first "
                             f"{bad_step['first_param']}")
    report.passed = (report.error is None and all(r["passed"] for r in report.layers)
                     and all(g["passed"] for g in report.grads)
                     and all(g["passed"] for g in report.layer_grads if g.get("decisive", True))
                     and all(s["passed"] for s in report.steps))


def _combine(t_outs, m_arrays, rtol, atol) -> dict:
    """Metrics over a layer's outputs: the worst of each measure."""
    if len(t_outs) != len(m_arrays) or not t_outs:
        return {"shape": [list(o.shape) for o in t_outs][:1][0] if t_outs else None, "max_abs": None,
                "max_rel": None, "cosine": None, "within": 0.0, "passed": False, "floor": None, "error": None,
                "ratio": None, "tier": "outputs",
                "note": f"torch gives {len(t_outs)} output tensor(s), MindSpore {len(m_arrays)}"}
    rows = [metrics.compare(t, m, rtol, atol) for t, m in zip(t_outs, m_arrays)]
    if len(rows) == 1:
        return rows[0]
    worst = dict(rows[0])
    if any(r.get("nonfinite") for r in rows):
        worst["nonfinite"] = True
    for r in rows[1:]:
        for k, pick in (("max_abs", max), ("max_rel", max), ("scaled_err", max), ("cosine", min), ("within", min),
                        ("ratio", max)):
            if worst.get(k) is None or r.get(k) is None:
                worst[k] = None
            else:
                worst[k] = pick(worst[k], r[k])
        worst["passed"] = worst["passed"] and r["passed"]
        worst["floor"] = min(worst["floor"], r["floor"]) if None not in (worst.get("floor"), r.get("floor")) else None
        worst["error"] = max(worst["error"], r["error"]) if None not in (worst.get("error"), r.get("error")) else None
        if r.get("note"):
            worst["note"] = r["note"]
    return worst


def layer_tables(run) -> None:
    """The forward table in torch's execution order; one-sided layers listed as unmatched; the layer gradients."""
    report, t_meta, rows, ms_types = run.report, run.t_meta, run.rows, run.ms_types
    for key in run.order:
        path, typ = t_meta[key]
        if key in rows:
            report.layers.append({"index": len(report.layers), "name": key, "path": path, "type": typ,
                                  "ms_type": ms_types[key][1], **rows[key]})
        elif (report.error is None and path not in report.unmatched["torch"]
              and not any(p == path for p, _ in ms_types.values())):
            report.unmatched["torch"].append(path)
    for key, (path, typ) in ms_types.items():
        if key not in t_meta and path not in report.unmatched["ms"] and report.error is None:
            report.unmatched["ms"].append(path)
    if run.backward and report.error is None:
        report.layer_grads = run.grad_rows
