"""``--report DIR`` writes DIR/repro.py and DIR/repro_inputs.npz: a standalone reproduction of the first divergence.

When the forward parted at a source line that stands alone (a simple statement reading tensors and plain values,
not ``self``: lines.capture_line), repro.py runs that line alone: torch's statement and MindSpore's on the same
inputs (torch's values of the names they read there, in the .npz), each in its own module's namespace, and
compares the variable (``write_line_repro``). Otherwise it reproduces the first divergent layer or parameter
gradient (``write_repro``):

repro.py imports torch, MindSpore and numpy only (never msmigrate): it imports the torch model and its port from
their files (a converted port is copied into DIR/port/, the temporary conversion being gone after the run),
builds both with the same keyword arguments, loads the weights parity started from (torch's state_dict and the
MindSpore parameters as parity copied them, both in the .npz), runs both eagerly in train mode with dropout-like
layers off, and compares what diverged first: the output of the first divergent layer (forward), or else the
gradient of the first divergent parameter under the sum of the outputs (backward). It prints the difference and
exits 1 when it reproduces (the difference is above LINE_RATIO x the float32 screen), 0 when it does not.
"""
from __future__ import annotations

import os

import numpy as np

TEMPLATE = r'''"""Reproduces a divergence msmigrate parity found, with torch, MindSpore and numpy only.

    python repro.py        # prints the difference; exit 1: reproduced, 0: not reproduced

{what}
"""
import importlib
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH = {torch_spec}  # (import root, module, class or factory)
PORT = {ms_spec}
KWARGS = {kwargs}
CHECK = {check}  # what to compare
RTOL, ATOL, FACTOR = {rtol!r}, {atol!r}, {factor!r}  # reproduced when max|t - m| > FACTOR * (ATOL + RTOL * max|t|)
DROP = re.compile(r"Drop(out|Path|Block)|StochasticDepth")


def load(spec, other_roots=()):
    root, module, name = spec
    root = root if os.path.isabs(root) else os.path.join(HERE, root)
    top = module.split(".")[0]
    for k in [k for k in sys.modules if k == top or k.startswith(top + ".")]:
        del sys.modules[k]  # the other side's module of the same name
    sys.path.insert(0, root)
    try:
        return getattr(importlib.import_module(module), name)(**KWARGS)
    finally:
        sys.path.remove(root)


def main():
    import mindspore as ms
    import torch

    data = np.load(os.path.join(HERE, "repro_inputs.npz"))
    inputs = [data[k] for k in sorted((k for k in data.files if k.startswith("input")), key=lambda k: int(k[5:]))]
    t_model = load(TORCH)
    t_model.load_state_dict({{k[2:]: torch.from_numpy(data[k]) for k in data.files if k.startswith("t:")}})
    t_model.train()
    for m in t_model.modules():
        if any(DROP.search(c.__name__) for c in type(m).__mro__):
            m.eval()
        if getattr(m, "inplace", None) is True:
            m.inplace = False
    m_model = load(PORT)
    params = dict(m_model.parameters_and_names())
    for k in data.files:
        if k.startswith("m:") and k[2:] in params:
            params[k[2:]].set_data(ms.Tensor(data[k]))
    m_model.set_train(True)
    for _, c in m_model.cells_and_names():
        if any(DROP.search(k.__name__) for k in type(c).__mro__):
            c.set_train(False)
    kind, t_name, m_name = CHECK
    if kind == "forward":
        got = {{}}
        module = t_model if t_name == "" else t_model.get_submodule(t_name)
        module.register_forward_hook(lambda mod, args, out: got.setdefault("t", out))
        cell = dict(m_model.cells_and_names())[m_name]
        construct = cell.construct

        def wrapped(*args, **kw):
            out = construct(*args, **kw)
            got.setdefault("m", out)
            return out

        cell.construct = wrapped
        with torch.no_grad():
            t_model(*[torch.from_numpy(x) for x in inputs])
        m_model(*[ms.Tensor(x) for x in inputs])
        first = lambda v: v[0] if isinstance(v, (tuple, list)) else v  # noqa: E731
        t, m = first(got["t"]).detach().numpy(), first(got["m"]).asnumpy()
        what = f"output of layer {{t_name or '(root)'}}"
    else:
        out = t_model(*[torch.from_numpy(x) for x in inputs])
        outs = out if isinstance(out, (tuple, list)) else [out]
        sum(o.sum() for o in outs if o.is_floating_point()).backward()
        t = dict(t_model.named_parameters())[t_name].grad.numpy()

        def loss(*xs):
            out = m_model(*xs)
            outs = out if isinstance(out, (tuple, list)) else [out]
            total = outs[0].sum()
            for o in outs[1:]:
                total = total + o.sum()
            return total

        trainable = m_model.trainable_params()
        grads = ms.value_and_grad(loss, None, trainable)(*[ms.Tensor(x) for x in inputs])[1]
        index = [i for i, p in enumerate(trainable) if p.name == m_name or p is params.get(m_name)][0]
        m = grads[index].asnumpy().reshape(t.shape)
        what = f"gradient of {{t_name}} (sum of the outputs as the loss)"
    diff = float(np.abs(t.astype(np.float64) - m.astype(np.float64)).max()) if t.shape == m.shape else float("inf")
    tol = ATOL + RTOL * float(np.abs(t).max())
    print(f"{{what}}: torch {{t.shape}}, MindSpore {{m.shape}}; max|torch - MindSpore| = {{diff:.3g}} "
          f"({{diff / tol:.3g}}x the float32 screen {{tol:.3g}})")
    reproduced = diff > FACTOR * tol
    print("REPRODUCED" if reproduced else "not reproduced")
    return 1 if reproduced else 0


if __name__ == "__main__":
    sys.exit(main())
'''


def check_of(report) -> tuple | None:
    """What the repro compares: ("forward", torch module path, MindSpore cell path) or ("grad", torch parameter,
    MindSpore parameter); None when nothing diverged that it can show."""
    fd = report.first_divergence
    if fd.get("forward"):
        row = next((r for r in report.layers if r["name"] == fd["forward"]), None)
        if row is not None:
            path = row["path"]
            return ("forward", "" if path == "(root)" else path, "" if path == "(root)" else path)
    if fd.get("backward_param"):
        g = next((g for g in report.grads if g["name"] == fd["backward_param"]), None)
        if g is not None:
            return ("grad", g["name"], g["ms_name"])
    return None


def write_repro(directory, report, torch_spec, ms_spec, kwargs, inputs, torch_state, ms_state, factor=10.0):
    """Write repro.py and repro_inputs.npz into ``directory``; returns the script's path, or None when there is
    nothing to reproduce. ``torch_spec`` / ``ms_spec``: (import root, dotted module, name); a root inside
    ``directory`` is written relative to it."""
    from .report import _atomic_write

    check = check_of(report)
    if check is None:
        return None
    os.makedirs(directory, exist_ok=True)
    arrays = {f"input{i}": np.asarray(x) for i, x in enumerate(inputs)}
    arrays.update({f"t:{k}": np.asarray(v) for k, v in torch_state.items()})
    arrays.update({f"m:{k}": np.asarray(v) for k, v in ms_state.items()})
    npz = os.path.join(directory, "repro_inputs.npz")
    tmp = npz + ".tmp.npz"
    np.savez(tmp, **arrays)
    os.replace(tmp, npz)

    def rel(spec):
        root = os.path.abspath(spec[0])
        d = os.path.abspath(directory)
        return (os.path.relpath(root, d) if root == d or root.startswith(d + os.sep) else root, spec[1], spec[2])

    ln = report.first_divergence.get("line")
    what = (f"First divergence: {check[0]} at {check[1] or '(root)'}" +
            (f"; first divergent line: torch {ln['torch']} `{ln['torch_code']}`, MindSpore {ln['ms']} "
             f"`{ln['ms_code']}` (variable {ln['variable']})" if ln else ""))
    text = TEMPLATE.format(what=what, torch_spec=repr(rel(torch_spec)), ms_spec=repr(rel(ms_spec)),
                           kwargs=repr(dict(kwargs or {})), check=repr(check), rtol=report.tolerances["rtol"],
                           atol=report.tolerances["atol"], factor=factor)
    path = os.path.join(directory, "repro.py")
    _atomic_write(path, text)
    return path

LINE_TEMPLATE = r'''"""Reproduces the first divergent line msmigrate parity found, with torch, MindSpore and numpy only.

    python repro.py        # prints the difference; exit 1: reproduced, 0: not reproduced

{what}
The two statements below run on the same inputs (torch's values of the names they read at that line, saved in
repro_inputs.npz), each in the namespace of its own module (its imports and helpers).
"""
import importlib
import os
import sys
import textwrap

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH = {torch_spec}  # (import root, module)
PORT = {ms_spec}
# each statement is read from its file at these lines when it is still there (a fixed port is then what runs), else
# the statement as parity saw it
TORCH_SOURCE, TORCH_CODE = {torch_source!r}, {torch_code!r}
MS_SOURCE, MS_CODE = {ms_source!r}, {ms_code!r}
VARIABLE = {variable!r}  # the value compared after each statement
LITERALS = {literals!r}  # plain values the statements read
RTOL, ATOL, FACTOR = {rtol!r}, {atol!r}, {factor!r}  # reproduced when max|t - m| > FACTOR * (ATOL + RTOL * max|t|)


def namespace(spec):
    root, module = spec
    root = root if os.path.isabs(root) else os.path.join(HERE, root)
    top = module.split(".")[0]
    for k in [k for k in sys.modules if k == top or k.startswith(top + ".")]:
        del sys.modules[k]  # the other side's module of the same name
    sys.path.insert(0, root)
    try:
        return dict(vars(importlib.import_module(module)))
    finally:
        sys.path.remove(root)


def statement(source, saved):
    path, lo, hi = source
    path = path if os.path.isabs(path) else os.path.join(HERE, path)
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()[lo - 1:hi]
    except OSError:
        return saved
    code = textwrap.dedent("\n".join(lines))
    if code.startswith("return "):
        code = "__value__ = " + code[len("return "):]
    try:
        compile(code, path, "exec")
    except SyntaxError:
        return saved
    return code


def first(v):
    return v[0] if isinstance(v, (tuple, list)) else v


def main():
    import mindspore as ms
    import torch

    data = np.load(os.path.join(HERE, "repro_inputs.npz"))
    arrays = {{k[5:]: data[k] for k in data.files if k.startswith("line:")}}
    torch_code, ms_code = statement(TORCH_SOURCE, TORCH_CODE), statement(MS_SOURCE, MS_CODE)
    ns = namespace(TORCH)
    ns.update(LITERALS)
    ns.update({{k: torch.from_numpy(v.copy()) for k, v in arrays.items()}})
    with torch.no_grad():
        exec(compile(torch_code, "torch line", "exec"), ns)
    t = first(ns[VARIABLE]).detach().numpy()
    ns = namespace(PORT)
    ns.update(LITERALS)
    ns.update({{k: ms.Tensor(v.copy()) for k, v in arrays.items()}})
    exec(compile(ms_code, "MindSpore line", "exec"), ns)
    m = first(ns[VARIABLE]).asnumpy()
    print("torch:     " + torch_code.strip())
    print("MindSpore: " + ms_code.strip())
    diff = float(np.abs(t.astype(np.float64) - m.astype(np.float64)).max()) if t.shape == m.shape else float("inf")
    tol = ATOL + RTOL * float(np.abs(t).max()) if t.size else ATOL
    print(f"{{VARIABLE}}: torch {{t.shape}}, MindSpore {{m.shape}}; max|torch - MindSpore| = {{diff:.3g}} "
          f"({{diff / tol:.3g}}x the float32 screen {{tol:.3g}})")
    reproduced = diff > FACTOR * tol
    print("REPRODUCED" if reproduced else "not reproduced")
    return 1 if reproduced else 0


if __name__ == "__main__":
    sys.exit(main())
'''


def write_line_repro(directory, report, capture, torch_spec, ms_spec, factor=10.0):
    """Write repro.py and repro_inputs.npz for the first divergent line (lines.capture_line's ``capture``);
    ``torch_spec`` / ``ms_spec``: (import root, dotted module) of the line's files. Returns the script's path."""
    from .report import _atomic_write

    os.makedirs(directory, exist_ok=True)
    npz = os.path.join(directory, "repro_inputs.npz")
    tmp = npz + ".tmp.npz"
    np.savez(tmp, **{f"line:{k}": np.asarray(v) for k, v in capture["arrays"].items()})
    os.replace(tmp, npz)
    d = os.path.abspath(directory)

    def rel(spec):
        root = os.path.abspath(spec[0])
        return (os.path.relpath(root, d) if root == d or root.startswith(d + os.sep) else root, spec[1])

    fd = report.first_divergence
    ln = fd["line"]
    maps = "; ".join(f"{mp['torch']} -> {mp['ms'] or '(forms)'}" + (f", rule {mp['rule']}" if mp.get("rule") else "")
                     for mp in ln.get("mappings") or [])
    what = (f"First divergent line: torch {ln['torch']} `{ln['torch_code']}`, MindSpore {ln['ms']} `{ln['ms_code']}` "
            f"(variable {ln['variable']} in {ln['function']}; first divergent layer {fd.get('forward') or '-'})."
            + (f"\nThe MindSpore line was written by the mapping {maps}." if maps else ""))
    def src(path, span):
        path = os.path.abspath(path)
        return (os.path.relpath(path, d) if path.startswith(d + os.sep) else path, span[0], span[1])

    text = LINE_TEMPLATE.format(what=what, torch_spec=repr(rel(torch_spec)), ms_spec=repr(rel(ms_spec)),
                                torch_source=src(ln["torch_file"], capture["torch_span"]),
                                ms_source=src(ln["ms_file"], capture["ms_span"]),
                                torch_code=capture["torch"], ms_code=capture["ms"], variable=capture["variable"],
                                literals=capture["literals"], rtol=report.tolerances["rtol"],
                                atol=report.tolerances["atol"], factor=factor)
    path = os.path.join(directory, "repro.py")
    _atomic_write(path, text)
    return path
