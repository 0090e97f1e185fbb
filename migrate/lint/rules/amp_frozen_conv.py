"""MS006: mixed precision applied to a network with frozen fixed-weight convolutions
(article 6.4).

``amp.auto_mixed_precision`` / ``amp.build_train_network`` at level O1-O3 cast convolutions
to float16, including fixed filters such as a Sobel edge detector whose weight is frozen
(``conv.weight.requires_grad = False`` or a ``Parameter(..., requires_grad=False)``): the
edge responses lose precision and the loss curve jitters. Same-file analysis: a class is
"frozen" when it freezes a weight, a network is frozen when its class (or a class it
instantiates, transitively, or a cell passed to it) is frozen. Level O0 (the default) is fine.
"""
from __future__ import annotations

import libcst as cst

from ..core import Context, Rule, walk

AMP = {"mindspore.amp.auto_mixed_precision": ("amp_level", 1),
       "mindspore.train.amp.auto_mixed_precision": ("amp_level", 1),
       "mindspore.amp.build_train_network": ("level", 3),
       "mindspore.train.amp.build_train_network": ("level", 3)}
PARAMETER = {"mindspore.Parameter", "mindspore.common.parameter.Parameter",
             "mindspore.common.Parameter"}


class AmpFrozenConv(Rule):
    ID = "MS006"
    NAME = "amp-frozen-conv"
    MESSAGE = "mixed precision casts the frozen fixed-weight convolution(s) to float16"
    FIX = "keep that sub-cell in float32 (cell.to_float(ms.float32)) or cast its input to float32"
    VALID = [
        """
from mindspore import amp, nn

class Sobel(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.conv.weight.requires_grad = False

net = amp.auto_mixed_precision(Sobel())  # default level O0 casts nothing
other = amp.auto_mixed_precision(nn.Conv2d(1, 2, 3), "O2")  # nothing frozen
""",
    ]
    INVALID = [
        """
from mindspore import amp, nn

class Sobel(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3)
        self.conv.weight.requires_grad = False

class Model(nn.Cell):
    def __init__(self):
        super().__init__()
        self.edge = Sobel()

net = Model()
net = amp.auto_mixed_precision(net, "O2")  # <- flagged
""",
        """
import mindspore as ms
from mindspore import nn, ops

class Edge(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(ms.Tensor(k), requires_grad=False)

    def construct(self, x):
        return ops.conv2d(x, self.w, padding=1)

step = ms.amp.build_train_network(backbone, opt, Edge(), level="O3")  # <- flagged
""",
    ]

    def check(self, ctx: Context):
        frozen = _frozen_classes(ctx)
        if not frozen:
            return
        assigned = _assignments(ctx.module)
        for node in walk(ctx.module):
            if not isinstance(node, cst.Call):
                continue
            spec = AMP.get(ctx.qualname(node.func) or "")
            if spec is None or not _casts(node, *spec):
                continue
            cells = [a.value for a in node.args if a.keyword is None or a.keyword.value in (
                "network", "loss_fn")]
            if any(_contains_frozen(ctx, c, frozen, assigned, set()) for c in cells):
                yield ctx.finding(type(self), node)


def _casts(call: cst.Call, keyword: str, position: int) -> bool:
    """True unless the level is (by default) the literal 'O0'."""
    level = None
    for i, arg in enumerate(call.args):
        if (arg.keyword and arg.keyword.value == keyword) or (arg.keyword is None and i == position):
            level = arg.value
    if level is None:
        return False
    return not (isinstance(level, cst.SimpleString) and level.evaluated_value == "O0")


def _frozen_classes(ctx: Context) -> set[str]:
    classes = {c.name.value: c for c in walk(ctx.module) if isinstance(c, cst.ClassDef)}
    frozen = {name for name, cls in classes.items() if _freezes_weight(ctx, cls)}
    changed = True
    while changed:  # a class that instantiates a frozen class is frozen too
        changed = False
        for name, cls in classes.items():
            if name not in frozen and any(
                    isinstance(n, cst.Call) and isinstance(n.func, cst.Name)
                    and n.func.value in frozen for n in walk(cls)):
                frozen.add(name)
                changed = True
    return frozen


def _freezes_weight(ctx: Context, cls: cst.ClassDef) -> bool:
    """The class freezes a weight and convolves (nn.Conv*, ops.conv2d, ops.Conv2D...)."""
    if not any(isinstance(n, cst.Call) and "conv" in (ctx.qualname(n.func) or "").rpartition(".")[2]
               .lower() for n in walk(cls)):
        return False
    for node in walk(cls):
        if isinstance(node, cst.Assign) and isinstance(node.value, cst.Name) \
                and node.value.value == "False" and any(
                    isinstance(t.target, cst.Attribute) and t.target.attr.value == "requires_grad"
                    for t in node.targets):
            return True
        if isinstance(node, cst.Call) and ctx.qualname(node.func) in PARAMETER and any(
                a.keyword and a.keyword.value == "requires_grad"
                and isinstance(a.value, cst.Name) and a.value.value == "False" for a in node.args):
            return True
    return False


def _assignments(module: cst.Module) -> dict[str, list[cst.BaseExpression]]:
    found: dict[str, list[cst.BaseExpression]] = {}
    for node in walk(module):
        if isinstance(node, cst.Assign):
            for t in node.targets:
                if isinstance(t.target, cst.Name):
                    found.setdefault(t.target.value, []).append(node.value)
    return found


def _contains_frozen(ctx, expr, frozen, assigned, seen) -> bool:
    if isinstance(expr, cst.Name):
        if expr.value in seen:
            return False
        seen.add(expr.value)
        return any(_contains_frozen(ctx, v, frozen, assigned, seen)
                   for v in assigned.get(expr.value, []))
    if isinstance(expr, cst.Call):
        if isinstance(expr.func, cst.Name) and expr.func.value in frozen:
            return True
        return any(_contains_frozen(ctx, a.value, frozen, assigned, seen) for a in expr.args)
    return False
