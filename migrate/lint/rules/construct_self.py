"""MS007: a ``construct`` whose first parameter is not named ``self``.

Measured on MindSpore 2.10: PyNative runs it, but graph compilation under ``ms.jit`` fails
with "The parameters number of the function is 2, but the number of provided arguments is 1".
"""
from __future__ import annotations

import libcst as cst

from ..core import Context, Rule


class ConstructSelf(Rule):
    ID = "MS007"
    NAME = "construct-self"
    MESSAGE = "first parameter of construct is not named 'self'; ms.jit graph compilation fails"
    FIX = "name the first parameter 'self'"
    VALID = [
        """
class Net(nn.Cell):
    def construct(self, x):
        return x
""",
        """
def construct(net, x):  # a plain function, not a Cell method
    return net(x)
""",
    ]
    INVALID = [
        """
class Net(nn.Cell):
    def construct(me, x):  # <- flagged
        return me.fc(x)
""",
        """
class Net(nn.Cell):
    @staticmethod
    def construct(x):  # <- flagged
        return x
""",
    ]

    def check(self, ctx: Context):
        for func in ctx.compiled:
            if func.name.value != "construct" or not _is_method(ctx, func):
                continue
            params = [*func.params.posonly_params, *func.params.params]
            if not params or params[0].name.value != "self":
                yield ctx.finding(type(self), func.name)


def _is_method(ctx: Context, func: cst.FunctionDef) -> bool:
    # compiled ``construct`` functions are found only directly in class bodies, unless a
    # module-level function of that name is jitted or decorated
    return not any(isinstance(stmt, cst.FunctionDef) and stmt is func for stmt in ctx.module.body)
