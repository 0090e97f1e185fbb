"""MS003: ``print`` calls and debug branches left in compiled code (article 6.5).

In PyNative a print only floods the terminal; under ``ms.jit`` it is compiled into the graph
as a Print operator that runs on every step, in an order the user does not control. A debug
branch (``if self.debug:`` / ``if verbose:``) is reported once at its ``if``; prints inside
it are not reported again.
"""
from __future__ import annotations

import re

import libcst as cst

from ..core import Context, Rule, walk

DEBUG_NAME = re.compile(r"(^|_)(debug|verbose)(_|$)", re.IGNORECASE)


class PrintInGraph(Rule):
    ID = "MS003"
    NAME = "print-in-graph"
    MESSAGE = "print in compiled code runs as a graph operator on every step"
    FIX = "remove it, or debug in PyNative without ms.jit"
    VALID = [
        """
class Net(nn.Cell):
    def construct(self, x):
        return self.fc(x)

def train(net, x):
    print("loss", net(x))  # outside compiled code: fine
""",
    ]
    INVALID = [
        """
class Net(nn.Cell):
    def construct(self, x):
        y = self.fc(x)
        print("y", y.shape)  # <- flagged
        return y
""",
        """
class Loss(nn.Cell):
    def construct(self, logits, labels):
        if self.debug:  # <- flagged
            print("logits", logits.shape)
            print("labels", labels.shape)
        return logits
""",
        """
import mindspore as ms

@ms.jit
def step(x):
    print(x)  # <- flagged
    return x
""",
    ]

    def check(self, ctx: Context):
        for func in ctx.compiled:
            in_debug: set[int] = set()
            for node in walk(func.body):
                if isinstance(node, cst.If) and _is_debug_flag(node.test):
                    prints = [n for n in walk(node.body) if _is_print(ctx, n)]
                    in_debug.update(id(n) for n in prints)
                    yield ctx.finding(type(self), node.test,
                                      f"debug branch in compiled code ({len(prints)} print call(s))",
                                      "delete the debug branch before compiling with ms.jit")
                elif _is_print(ctx, node) and id(node) not in in_debug:
                    yield ctx.finding(type(self), node)


def _is_print(ctx: Context, node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Call) and ctx.qualname(node.func) == "print"


def _is_debug_flag(test: cst.BaseExpression) -> bool:
    if isinstance(test, cst.UnaryOperation):
        return False  # `if not self.debug:` is the production path
    name = test.attr.value if isinstance(test, cst.Attribute) else (
        test.value if isinstance(test, cst.Name) else None)
    return bool(name and DEBUG_NAME.search(name))
