"""MS008: operations whose output shape depends on tensor values, in compiled code (article 6.3).

Boolean-mask indexing ``x[mask]``, ``ops.masked_select``, ``ops.nonzero``, ``ops.unique``
produce data-dependent shapes: static graphs need known shapes, so such code compiles into
dynamic-shape graphs (slower, not supported on every backend) or fails with shape errors.
"""
from __future__ import annotations

import libcst as cst

from ..core import Context, Rule, tensor_refs, tensor_names, walk

DYNAMIC_OPS = {"masked_select", "nonzero", "unique", "unique_consecutive", "argwhere",
               "MaskedSelect", "NonZero", "Unique", "UniqueConsecutive"}
COMPARE = (cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual, cst.Equal,
           cst.NotEqual)


class DynamicShape(Rule):
    ID = "MS008"
    NAME = "dynamic-shape"
    MESSAGE = "data-dependent output shape in compiled code"
    FIX = "keep shapes static: ops.select / ops.where with a mask, or a fixed-size top-k"
    VALID = [
        """
class Net(nn.Cell):
    def construct(self, x):
        mask = x > 0
        return ops.select(mask, x, ops.zeros_like(x))
""",
        """
def postprocess(x):  # not compiled
    return x[x > 0]
""",
        """
class Net(nn.Cell):
    def construct(self, x):
        return x[:, 0] + x[self.index]
""",
    ]
    INVALID = [
        """
class Net(nn.Cell):
    def construct(self, x):
        return x[x > 0].sum()  # <- flagged
""",
        """
from mindspore import ops
class Net(nn.Cell):
    def construct(self, x):
        mask = x > 0
        y = x[mask]  # <- flagged
        idx = ops.nonzero(x)  # <- flagged
        return ops.masked_select(x, mask), x.unique()  # <- flagged
""",
    ]

    def check(self, ctx: Context):
        for func in ctx.compiled:
            tensors = tensor_names(ctx, func)
            masks = _mask_names(func, tensors)
            for node in walk(func.body):
                if isinstance(node, cst.Subscript) and _is_mask_index(node, tensors, masks):
                    yield ctx.finding(type(self), node, "boolean-mask indexing gives a "
                                      "data-dependent shape in compiled code")
                elif isinstance(node, cst.Call) and _dynamic_call(ctx, node, tensors):
                    yield ctx.finding(type(self), node)


def _is_comparison(expr: cst.BaseExpression, tensors: set[str]) -> bool:
    return isinstance(expr, cst.Comparison) and any(
        isinstance(t.operator, COMPARE) for t in expr.comparisons) and bool(tensor_refs(expr, tensors))


def _mask_names(func: cst.FunctionDef, tensors: set[str]) -> set[str]:
    masks = set()
    for node in walk(func.body):
        if isinstance(node, cst.Assign) and _is_comparison(node.value, tensors):
            masks.update(t.target.value for t in node.targets if isinstance(t.target, cst.Name))
    return masks


def _is_mask_index(node: cst.Subscript, tensors: set[str], masks: set[str]) -> bool:
    if len(node.slice) != 1 or not isinstance(node.slice[0].slice, cst.Index):
        return False
    index = node.slice[0].slice.value
    return _is_comparison(index, tensors) or (isinstance(index, cst.Name) and index.value in masks)


def _dynamic_call(ctx: Context, node: cst.Call, tensors: set[str]) -> bool:
    name = ctx.qualname(node.func) or ""
    head, _, last = name.rpartition(".")
    if last not in DYNAMIC_OPS:
        return False
    if head.startswith("mindspore"):
        return True
    # tensor method: x.unique(), x.nonzero()
    return isinstance(node.func, cst.Attribute) and bool(tensor_refs(node.func.value, tensors))
