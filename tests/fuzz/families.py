"""Fuzz families beyond the signature-driven calls: Python operators on tensors, mixed-dtype promotion and
modules (construction mode, weight edits). ``FAMILIES`` maps a name to a hypothesis strategy of ``Example``s;
names that are table entries (``torch.nn.BatchNorm1d``) replace the signature-driven generator for that entry.
"""
from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from .strategies import DTYPES, HEADER, Ctx, Example, broadcast_of, shapes

BINARY = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "^", "<<", ">>", "==", "!=", "<", "<=", ">", ">=", "@"]
UNARY = ["-{x}", "~{x}", "abs({x})", "+{x}"]
INPLACE = ["+=", "-=", "*=", "/=", "//=", "%=", "&=", "|=", "^=", "**="]
SCALARS = ["2", "-1", "0", "1.5", "-0.0", "True", "3"]


@st.composite
def binary_ops(draw) -> Example:
    op = draw(st.sampled_from(BINARY))
    shape = draw(shapes())
    ctx = Ctx(draw, shape, draw(st.sampled_from(DTYPES)))
    x = ctx.tensor(shape, ctx.dtype)
    form = draw(st.integers(0, 4))
    if op == "@":
        y = ctx.tensor(tuple(reversed(shape)))
        run = f"out = {x} @ {y}\n"
    elif form == 0:
        run = f"out = {x} {op} {draw(st.sampled_from(SCALARS))}\n"
    elif form == 1:
        run = f"out = {draw(st.sampled_from(SCALARS))} {op} {x}\n"
    else:
        y = ctx.tensor(draw(broadcast_of(shape)))
        run = f"out = {x} {op} {y}\n"
    return Example(f"operator:{op}", f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided), run=run)


@st.composite
def unary_ops(draw) -> Example:
    form = draw(st.sampled_from(UNARY))
    shape = draw(shapes())
    ctx = Ctx(draw, shape, draw(st.sampled_from(DTYPES)))
    x = ctx.tensor(shape, ctx.dtype)
    run = f"out = {form.format(x=x)}\n"
    return Example(f"operator:{form.format(x='x')}", f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided), run=run)


@st.composite
def inplace_ops(draw) -> Example:
    op = draw(st.sampled_from(INPLACE))
    shape = draw(shapes())
    ctx = Ctx(draw, shape, draw(st.sampled_from(DTYPES)))
    x = ctx.tensor(shape, ctx.dtype)
    if draw(st.booleans()):
        other = draw(st.sampled_from(SCALARS))
    else:  # half the time another dtype (a wider one included): torch keeps x's dtype or raises
        other = ctx.tensor(draw(broadcast_of(shape)), draw(st.sampled_from(DTYPES)) if draw(st.booleans()) else None)
    form = draw(st.integers(0, 3))
    if form == 0:  # an alias made before: torch's in-place operator changes it too
        run = f"alias = {x}\n{x} {op} {other}\nout = {x}\n"
        return Example(f"operator:{op}", f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided), run=run,
                       names=("out", "alias"))
    if form == 1:  # no alias anywhere (a local of a function): only the dtype can differ
        run = f"def f(a):\n    t = a.clone()\n    t {op} {other}\n    return t\nout = f({x})\n"
        return Example(f"operator:{op}", f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided), run=run)
    if form == 2:  # through .data, as weight updates write it
        run = f"{x}.data {op} {other}\nout = {x}\n"
        return Example(f"operator:{op}", f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided), run=run)
    run = f"{x} {op} {other}\nout = {x}\n"
    return Example(f"operator:{op}", f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided), run=run)


@st.composite
def promotion(draw) -> Example:
    """Mixed-dtype calls: torch promotes across its inputs."""
    call = draw(st.sampled_from(["torch.cat([{x}, {y}])", "torch.stack([{x}, {y}])", "torch.where({c}, {x}, {y})",
                                 "torch.add({x}, {y})", "torch.maximum({x}, {y})", "torch.mul({x}, {y})",
                                 "torch.cat([{x}, {y}], dim=-1)", "{x}.add({y})", "torch.eq({x}, {y})",
                                 "torch.hstack([{x}, {y}])", "torch.vstack([{x}, {y}])"]))
    shape = draw(shapes())
    ctx = Ctx(draw, shape, draw(st.sampled_from(DTYPES)))
    x = ctx.tensor(shape, ctx.dtype)
    y = ctx.tensor(shape, draw(st.sampled_from(DTYPES)))
    c = ctx.tensor(shape, "bool", np.asarray(ctx.rng.random(shape) > 0.5))
    run = f"out = {call.format(x=x, y=y, c=c)}\n"
    return Example("promotion:" + call.split("(")[0], f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided),
                   run=run)


FAMILIES = {
    "operator:binary": binary_ops(),
    "operator:unary": unary_ops(),
    "operator:inplace": inplace_ops(),
    "operator:promotion": promotion(),
}


# -- modules: construction mode (issue 16 item 3) and weight edits (item 4) ------------------------------------
# Layers compare in ordinary ranges: inf/nan/1e30 inputs to a layer measure summation order, not the conversion.
MODULE_PROFILES = ("normal", "ints", "positive")
MODES = ["", "m.eval()\n", "m.train()\n", "m.train(False)\n"]
# Weight edits in the forms real code uses; {W} is a tensor of the parameter's shape, {s} a scalar.
EDITS = [
    "m.weight.data = {W}\n",
    "m.weight.data.copy_({W})\n",
    "m.weight.data[...] = {W}\n",
    "m.weight.data[0] = {W}[0]\n",
    "with torch.no_grad():\n    m.weight.copy_({W})\n",
    "with torch.no_grad():\n    m.weight.mul_({s})\n",
    "with torch.no_grad():\n    for p in m.parameters():\n        p.mul_({s})\n",
    "for p in m.parameters():\n    p.data.mul_({s})\n",
    "with torch.no_grad():\n    m.weight.add_({W})\n",
    "with torch.no_grad():\n    m.weight.fill_({s})\n",
    "with torch.no_grad():\n    m.weight.zero_()\n",
    "with torch.no_grad():\n    m.weight[0, 0] = {s}\n",
    "m.weight = nn.Parameter({W})\n",
    "nn.init.constant_(m.weight, {s})\n",
]


def copy_weights(example):
    """Weights of every torch module go to the Cell of the same name; the train/eval mode is NOT aligned (that
    is what the module cases check)."""
    def hook(torch_ns, ms_ns):
        import mindspore as ms
        import torch

        from migrate.weights import torch_to_mindspore

        for key, value in torch_ns.items():
            cell = ms_ns.get(key)
            if isinstance(value, torch.nn.Module) and isinstance(cell, ms.nn.Cell) and list(cell.get_parameters()):
                torch_to_mindspore(value.state_dict(), cell)
    return hook


def _module_example(api, ctor, run, ctx, names=("out",), compare="values"):
    code = f"{HEADER}m = {ctor}\n# @run\n{run}"
    return Example(api, code, ctx.inputs, tuple(ctx.strided), names=names, compare=compare, run=f"m = {ctor}\n{run}")


def _opt(draw, text):
    return text if draw(st.booleans()) else ""


@st.composite
def batchnorm(draw, api, rank):
    c = draw(st.sampled_from([3, 1, 4]))
    n = draw(st.sampled_from([4, 2, 3]))
    spatial = {"torch.nn.BatchNorm1d": draw(st.sampled_from([(), (5,)])), "torch.nn.BatchNorm2d": (3, 2),
               "torch.nn.BatchNorm3d": (2, 2, 3)}[api]
    args = [str(c)] + [a for a in (_opt(draw, "eps=1e-3"), _opt(draw, "momentum=0.3"), _opt(draw, "affine=False"),
                                   _opt(draw, "track_running_stats=False")) if a]
    ctx = Ctx(draw, (n, c, *spatial), "float32", MODULE_PROFILES)
    x = ctx.tensor((n, c, *spatial), "float32")
    mode = draw(st.sampled_from(MODES))
    twice = draw(st.booleans())  # a second call sees the updated running statistics
    run = f"{mode}out = m({x})\n" + (f"out2 = m({x} * 2 + 1)\n" if twice else "")
    return _module_example(api, f"{call_name(api)}({', '.join(args)})", run, ctx,
                           names=("out", "out2") if twice else ("out",))


@st.composite
def dropout(draw, api):
    p = draw(st.sampled_from(["0.0", "0.5", "1.0"]))
    ctx = Ctx(draw, (2, 3, 4, 4), "float32", MODULE_PROFILES)
    x = ctx.tensor((2, 3, 4, 4), "float32")
    mode = draw(st.sampled_from(MODES))
    training = mode in ("", "m.train()\n")
    compare = "shape" if (training and p == "0.5") else "values"
    ctor = f"{call_name(api)}({p})" if draw(st.booleans()) else f"{call_name(api)}(p={p})"
    return _module_example(api, ctor, f"{mode}out = m({x})\n", ctx, compare=compare)


@st.composite
def weight_edit(draw, api):
    ctx = Ctx(draw, (2, 4), "float32", MODULE_PROFILES)
    if api == "torch.nn.Linear":
        ctor, shape, xshape = f"nn.Linear(4, 3{_opt(draw, ', bias=False')})", (3, 4), (2, 4)
    else:
        ctor, shape, xshape = "nn.Conv2d(2, 3, 3, padding=1)", (3, 2, 3, 3), (1, 2, 5, 5)
    x = ctx.tensor(xshape, "float32")
    w = ctx.tensor(shape, "float32")
    edit = draw(st.sampled_from(EDITS)).format(W=w, s=draw(st.sampled_from(["0.5", "2.0", "-1.0"])))
    return _module_example(api, ctor, f"{edit}out = m({x})\n", ctx)


@st.composite
def attention(draw):
    e = draw(st.sampled_from([4, 8]))
    h = draw(st.sampled_from([h for h in (1, 2, 4) if e % h == 0]))
    batch_first = draw(st.booleans())
    length, n, s = draw(st.sampled_from([1, 3])), draw(st.sampled_from([1, 2])), draw(st.sampled_from([1, 3, 4]))
    args = [str(e), str(h)] + [a for a in (_opt(draw, "bias=False"), "batch_first=True" if batch_first else "") if a]
    ctx = Ctx(draw, (length, n, e), "float32", MODULE_PROFILES)
    shape_q = (n, length, e) if batch_first else (length, n, e)
    shape_k = (n, s, e) if batch_first else (s, n, e)
    q = ctx.tensor(shape_q, "float32")
    k = ctx.tensor(shape_k, "float32") if draw(st.booleans()) else q
    v = ctx.tensor(shape_k if k != q else shape_q, "float32")
    mode = draw(st.sampled_from(MODES))
    run = f"{mode}out, w = m({q}, {k}, {v})\n"
    return _module_example("torch.nn.MultiheadAttention", f"nn.MultiheadAttention({', '.join(args)})", run, ctx,
                           names=("out", "w"))


@st.composite
def recurrent(draw, api):
    layers = draw(st.sampled_from([1, 2]))
    batch_first = draw(st.booleans())
    args = ["3", "4"] + [a for a in (f"num_layers={layers}" if layers > 1 else "",
                                     "batch_first=True" if batch_first else "", _opt(draw, "bidirectional=True")) if a]
    ctx = Ctx(draw, (5, 2, 3), "float32", MODULE_PROFILES)
    x = ctx.tensor((2, 5, 3) if batch_first else (5, 2, 3), "float32")
    mode = draw(st.sampled_from(MODES))
    return _module_example(api, f"{call_name(api)}({', '.join(args)})", f"{mode}out, h = m({x})\n", ctx,
                           names=("out", "h"))


@st.composite
def encoder_layer(draw):
    batch_first = draw(st.booleans())
    dropout_arg = draw(st.sampled_from(["", ", dropout=0.0"]))
    ctx = Ctx(draw, (3, 2, 8), "float32", MODULE_PROFILES)
    x = ctx.tensor((2, 3, 8) if batch_first else (3, 2, 8), "float32")
    mode = draw(st.sampled_from(MODES))
    training_dropout = dropout_arg == "" and mode in ("", "m.train()\n")
    ctor = f"nn.TransformerEncoderLayer(8, 2, dim_feedforward=16{dropout_arg}{', batch_first=True' if batch_first else ''})"
    return _module_example("torch.nn.TransformerEncoderLayer", ctor, f"{mode}out = m({x})\n", ctx,
                           compare="shape" if training_dropout else "values")


def call_name(api: str) -> str:
    return "nn." + api.rsplit(".", 1)[-1]


MODULES = {
    "torch.nn.BatchNorm1d": batchnorm("torch.nn.BatchNorm1d", 1),
    "torch.nn.BatchNorm2d": batchnorm("torch.nn.BatchNorm2d", 2),
    "torch.nn.BatchNorm3d": batchnorm("torch.nn.BatchNorm3d", 3),
    "torch.nn.Dropout": dropout("torch.nn.Dropout"),
    "torch.nn.Dropout2d": dropout("torch.nn.Dropout2d"),
    "torch.nn.Linear": weight_edit("torch.nn.Linear"),
    "torch.nn.Conv2d": weight_edit("torch.nn.Conv2d"),
    "torch.nn.MultiheadAttention": attention(),
    "torch.nn.LSTM": recurrent("torch.nn.LSTM"),
    "torch.nn.GRU": recurrent("torch.nn.GRU"),
    "torch.nn.RNN": recurrent("torch.nn.RNN"),
    "torch.nn.TransformerEncoderLayer": encoder_layer(),
}
FAMILIES.update(MODULES)
HOOKS = {name: copy_weights for name in MODULES}


USER_CELL = '''
class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm1d(c{bn})
        self.drop = nn.Dropout({p})

    def forward(self, x):
        y = self.drop(self.bn(x))
        return y * 2 if self.training else y


class Net(nn.Module):
    def __init__(self, c, freeze=False):
        {init}
        self.block = Block(c)
        self.head = nn.Linear(c, 2)
        if freeze:
            self.block.eval()

    def forward(self, x):
        return self.head(self.block(x)) + (1.0 if self.training else 0.0)
'''
USER_MODES = ["", "m.eval()\n", "m.train()\n", "m.eval()\nm.train()\n", "m.block.eval()\n", "m.train(False)\n"]


@st.composite
def user_cell(draw):
    """Issue 16 item 3: user modules (converted to Cells) built and called with no .train(), nested, frozen in
    __init__, switched later."""
    c = draw(st.sampled_from([3, 4]))
    n = draw(st.sampled_from([2, 5]))
    code = USER_CELL.format(bn=draw(st.sampled_from(["", ", momentum=0.3", ", affine=False"])),
                            p=draw(st.sampled_from(["0.0", "0.5"])),
                            init=draw(st.sampled_from(["super().__init__()", "super(Net, self).__init__()",
                                                       "nn.Module.__init__(self)"])))
    ctor = draw(st.sampled_from([f"Net({c})", f"Net({c}, freeze=True)", f"Block({c})"]))
    ctx = Ctx(draw, (n, c), "float32", MODULE_PROFILES)
    x = ctx.tensor((n, c), "float32")
    mode = draw(st.sampled_from(USER_MODES if ctor.startswith("Net") else USER_MODES[:4]))
    twice = draw(st.booleans())
    run = f"{mode}out = m({x})\n" + (f"out2 = m({x} - 1)\n" if twice else "")
    training = "0.5" in code and not mode.rstrip().endswith(("eval()", "train(False)"))
    ex = Example("module:user_cell", f"{HEADER}{code}\nm = {ctor}\n# @run\n{run}", ctx.inputs, tuple(ctx.strided),
                 names=("out", "out2") if twice else ("out",), compare="shape" if training else "values",
                 run=f"m = {ctor}\n{run}")
    return ex


FAMILIES["module:user_cell"] = user_cell()
HOOKS["module:user_cell"] = copy_weights
