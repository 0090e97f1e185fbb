"""Generated programs that mix torch code with look-alike objects (hypothesis strategies).

A program is a list of chunks. Look-alike chunks use names and method names that torch code uses (``F``, ``nn``,
``torch`` as parameters or locals; ``.relu``, ``.size``, ``.view``, ``.backward``, ``.step`` on objects of plain
classes, strings, lists, dicts, numpy arrays); every line of them ends with ``# lookalike`` and must come out of
the converter byte for byte; a name shadowed by a parameter (a value of unknown type) keeps its receiver and never
becomes a MindSpore module (`# shadowed NAME`). Torch chunks end with ``# torch``: each must be converted (no ``torch``/``F.`` left
on the line) or carry a marker above it.
"""
from __future__ import annotations

from hypothesis import strategies as st

SHADOW = st.sampled_from(["F", "nn", "torch", "optim"])
METHOD = st.sampled_from(["relu", "size", "view", "sum", "mean", "flatten", "to", "cuda", "detach", "item",
                          "backward", "step", "zero_grad", "train", "eval", "permute", "norm", "sort", "add",
                          "numpy", "float", "long", "softmax", "sigmoid", "expand", "repeat", "split"])
VALUE = st.sampled_from(["1", "2.5", "'a'", "None", "[1, 2]", "(3,)", "{'k': 1}"])


@st.composite
def fake_class(draw, k):
    methods = draw(st.lists(METHOD, min_size=1, max_size=4, unique=True))
    lines = [f"class Fake{k}:  # lookalike"]
    for m in methods:
        lines.append(f"    def {m}(self, *args, **kwargs):  # lookalike")
        lines.append(f"        return {draw(VALUE)}  # lookalike")
    obj = f"fake{k}"
    lines.append(f"{obj} = Fake{k}()  # lookalike")
    for m in methods:
        lines.append(f"r{k}_{m} = {obj}.{m}({draw(st.sampled_from(['', '1', '0, 1', 'dim=1']))})  # lookalike")
    return lines


@st.composite
def shadowing_function(draw, k):
    name = draw(SHADOW)
    m = draw(METHOD)
    arg = draw(st.sampled_from(["x", "x, 1", "dim=0"]))
    form = draw(st.sampled_from(["param", "local", "lambda", "comp"]))
    # A parameter is of unknown type: its methods may be converted as tensor methods, but the name itself must
    # never resolve to the torch module it shadows (lines tagged `# shadowed <name>`).
    if form == "param":
        return [f"def g{k}({name}, x):  # lookalike", f"    return {name}.{m}({arg})  # shadowed {name}"]
    if form == "local":
        return [f"def g{k}(x):  # lookalike", f"    {name} = Fake_{k}()  # lookalike",
                f"    return {name}.{m}({arg})  # lookalike",
                f"class Fake_{k}:  # lookalike", f"    def {m}(self, *a, **kw):  # lookalike",
                "        return 0  # lookalike"]
    if form == "lambda":
        return [f"g{k} = lambda {name}, x: {name}.{m}({arg})  # shadowed {name}"]
    return [f"g{k} = [{name}.{m}({arg}) for {name} in []]  # shadowed {name}"]


@st.composite
def builtin_lookalike(draw, k):
    return [draw(st.sampled_from([
        f"s{k} = 'a,b'.split(',')  # lookalike",
        f"l{k} = [3, 1, 2].index(1)  # lookalike",
        f"d{k} = {{'a': 1}}.get('a')  # lookalike",
        f"n{k} = np.zeros((2, 3)).reshape(3, 2).sum(0)  # lookalike",
        f"t{k} = 'torch'.upper()  # lookalike",
        f"q{k} = [1, 2].copy()  # lookalike",
    ]))]


@st.composite
def torch_chunk(draw, k):
    return [draw(st.sampled_from([
        f"x{k} = torch.randn(2, 3)  # torch",
        f"y{k} = torch.zeros(4).view(2, 2)  # torch",
        f"z{k} = F.relu(torch.ones(3))  # torch",
        f"m{k} = nn.Linear(3, 4)  # torch",
        f"c{k} = nn.Conv2d(3, 8, 3, padding=1)  # torch",
        f"s{k} = torch.ones(2, 3).sum(dim=1)  # torch",
        f"w{k} = torch.cat([torch.ones(2), torch.zeros(2)])  # torch",
        f"p{k} = F.softmax(torch.randn(2, 5), dim=-1)  # torch",
        f"u{k} = torch.frobnicate(1)  # torch",
        f"v{k} = getattr(nn, 'ReLU')()  # torch",
    ]))]


@st.composite
def program(draw):
    chunks = draw(st.lists(st.sampled_from(["fake", "shadow", "builtin", "torch"]), min_size=1, max_size=8))
    header = ["import numpy as np", "import torch", "import torch.nn as nn", "import torch.nn.functional as F"]
    if draw(st.booleans()):
        header.append("from torch import optim")
    lines = list(header)
    for k, kind in enumerate(chunks):
        lines += draw({"fake": fake_class, "shadow": shadowing_function, "builtin": builtin_lookalike,
                       "torch": torch_chunk}[kind](k))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    return newline.join(lines) + newline
