"""MS009: ``reversed()`` over a Python list in compiled code.

U-Net decoders often walk their skip connections with ``zip(self.ups, reversed(skips))``. PyNative runs it as
Python; under ``ms.jit`` MindSpore 2.10 compiles it into something else (measured: the crack U-Net's decoder was fed
the wrong skips and its convolutions failed on the channel count; ``tests/parity/test_parity_jit.py`` shows a model
whose eager parity holds and whose compiled forward differs). ``xs[::-1]`` compiles as intended.
``msmigrate convert --jit`` rewrites the simple loop form itself.
"""
from __future__ import annotations

import libcst as cst

from ..core import Context, Rule, walk


class ReversedList(Rule):
    ID = "MS009"
    NAME = "reversed-in-graph"
    MESSAGE = "reversed() over a Python list does not compile as in PyNative on MindSpore 2.10"
    FIX = "iterate over xs[::-1] instead of reversed(xs)"
    VALID = [
        """
class Net(nn.Cell):
    def construct(self, x):
        skips = []
        for down in self.downs:
            x = down(x)
            skips.append(x)
        for up, skip in zip(self.ups, skips[::-1]):
            x = up(x, skip)
        return x

def order(layers):
    return list(reversed(layers))  # outside compiled code: fine
""",
    ]
    INVALID = [
        """
class Net(nn.Cell):
    def construct(self, x):
        skips = []
        for down in self.downs:
            x = down(x)
            skips.append(x)
        for up, skip in zip(self.ups, reversed(skips)):  # <- flagged
            x = up(x, skip)
        return x
""",
    ]

    def check(self, ctx: Context):
        for func in ctx.compiled:
            for node in walk(func.body):
                if (isinstance(node, cst.Call) and ctx.qualname(node.func) == "reversed" and len(node.args) == 1
                        and isinstance(node.args[0].value, (cst.Name, cst.Attribute))):
                    yield ctx.finding(type(self), node)
