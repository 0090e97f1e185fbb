"""MS002: ``if`` / ``while`` conditions that depend on tensor values in compiled code (article 3.3).

The graph compiler must turn such branches into graph control flow: compilation gets slow,
loops are unrolled or rejected, and when the rewrite is impossible compilation fails.
Conditions on Python values are fine and are not reported: ``if self.training``,
``if x is None``, ``if self.debug``, ``if x.shape[1] == 3``, ``if len(xs) > 2``.
"""
from __future__ import annotations

import libcst as cst

from ...core.resolve import YES
from ...core.walk import ScopedVisitor
from ..core import Context, Rule, tensor_names, tensor_refs, walk


class TensorControlFlow(Rule):
    ID = "MS002"
    NAME = "tensor-control-flow"
    MESSAGE = "condition depends on a tensor value in compiled code"
    FIX = "use ops.select / ops.where, or keep this code in PyNative"
    VALID = [
        """
class Net(nn.Cell):
    def construct(self, x, mask=None, scale=2.0):
        if self.training:
            x = self.dropout(x)
        if mask is None:
            mask = x
        if x.shape[1] == 3 and len(x.shape) == 4:
            x = self.rgb(x)
        if scale > 1.0:
            x = x * scale
        while self.steps > 0:
            break
        return x * mask
""",
        """
def train_loop(net, x):  # not compiled: Python control flow on tensors is fine here
    if net(x).sum() > 0:
        return 1
""",
    ]
    INVALID = [
        """
class Net(nn.Cell):
    def construct(self, x):
        y = self.fc(x)
        if y.sum() > 0:  # <- flagged
            y = y * 2
        while ops.reduce_max(y) > 1.0:  # <- flagged
            y = y / 2
        return y
""",
        """
class Sum(nn.Cell):
    def construct(self, xs):
        out = 0
        for x in xs:
            out += self.proj(x)
        total = out
        if total.sum() > 0:  # <- flagged
            total = -total
        return total
""",
        """
import mindspore as ms

@ms.jit
def step(x, threshold):
    if x.max() > threshold:  # <- flagged
        return x
    return -x
""",
    ]

    def check(self, ctx: Context):
        flagged = set()
        for func in ctx.compiled:
            tensors = tensor_names(ctx, func)
            for node in walk(func.body):
                if isinstance(node, (cst.If, cst.While)) and tensor_refs(node.test, tensors):
                    flagged.add(id(node.test))
        # the converter's resolver: a condition whose value is a tensor by its evidence (a reduction of a
        # layer output accumulated in a loop, a comparison of tensors...), whatever names it goes through
        compiled = {id(f) for f in ctx.compiled}
        finder = _TensorConditions(compiled)
        ctx.module.visit(finder)
        flagged.update(finder.found)
        for node in walk(ctx.module):
            if isinstance(node, (cst.If, cst.While)) and id(node.test) in flagged:
                yield ctx.finding(type(self), node.test)


class _TensorConditions(ScopedVisitor):
    """``if`` / ``while`` tests inside compiled functions that the resolver knows to be tensors."""

    def __init__(self, compiled: set[int]) -> None:
        super().__init__()
        self.compiled, self.depth, self.found = compiled, 0, set()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        if id(node) in self.compiled:
            self.depth += 1

    def leave_FunctionDef(self, node: cst.FunctionDef) -> None:
        if id(node) in self.compiled:
            self.depth -= 1

    def visit_If(self, node: cst.If) -> None:
        if self.depth and self.resolver.tensor(node.test) == YES:
            self.found.add(id(node.test))

    visit_While = visit_If
