"""The "arguments from variables" and keyword / shuffled-keyword call styles for every torch.* function and Tensor
method case.

Each parity case of test_torch_math, test_tensor_math, test_methods and test_tensor_inplace whose API call has
literal arguments (numbers, tuples, strings, booleans, None, torch dtypes) is run again with every such literal
bound to a variable first (``torch.sum(x, 1, keepdim=True)`` -> ``v0 = 1; v1 = True; torch.sum(x, v0,
keepdim=v1)``): the converter may not rely on seeing literal values unless it says so with an unsupported marker.
The cases whose conversion needs a literal are listed in NEEDS_LITERAL and checked for that marker instead.

For entries whose table gives the torch signature (``args``), each case is also run with its positional arguments
passed by name and all keywords in reverse order (``torch.clamp(x, -0.5, 0.5)`` -> ``torch.clamp(max=0.5,
min=-0.5, input=x)``).
"""
from __future__ import annotations

import dataclasses

import libcst as cst
import pytest

from migrate.names import dotted
from tests.api import test_methods, test_tensor_inplace, test_tensor_math, test_torch_math
from tests.harness import RUN_MARK, assert_unsupported, run_case

_EMPTY = cst.Module(body=[])


def _is_literal(node: cst.BaseExpression) -> bool:
    if isinstance(node, (cst.Integer, cst.Float, cst.SimpleString)):
        return True
    if isinstance(node, cst.Name):
        return node.value in ("True", "False", "None")
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _is_literal(node.expression)
    if isinstance(node, (cst.Tuple, cst.List)):
        return bool(node.elements) and all(_is_literal(e.value) for e in node.elements)
    if isinstance(node, cst.Attribute):  # torch.float64
        return (dotted(node) or "").startswith("torch.")
    return False


class _Hoist(cst.CSTTransformer):
    """Bind the literal arguments of the first call to the case's API to variables v0, v1..."""

    def __init__(self, api: str):
        super().__init__()
        self.suffix = "." + api.rsplit(".", 1)[-1]
        self.is_method = api.startswith("Tensor.")
        self.api = api
        self.bound: list[tuple[str, str]] = []
        self.done = False

    def _matches(self, call: cst.Call) -> bool:
        name = dotted(call.func) if not self.is_method else None
        if name is not None:
            return name == self.api
        return isinstance(call.func, cst.Attribute) and "." + call.func.attr.value == self.suffix

    def leave_Call(self, original, updated):
        if self.done or not self._matches(updated):
            return updated
        self.done = True
        args = []
        for arg in updated.args:
            if arg.star or not _is_literal(arg.value):
                args.append(arg)
                continue
            name = f"v{len(self.bound)}"
            self.bound.append((name, _EMPTY.code_for_node(arg.value)))
            args.append(arg.with_changes(value=cst.Name(name)))
        return updated.with_changes(args=args)


def _from_variables(case):
    setup, run = case.code.split(RUN_MARK, 1)
    hoist = _Hoist(case.apis[0])
    module = cst.parse_module(run).visit(hoist)
    if not hoist.bound:
        return None
    lines = "".join(f"{n} = {v}\n" for n, v in hoist.bound)
    code = f"{setup}{RUN_MARK}\n{lines}{module.code.lstrip(chr(10))}"
    return dataclasses.replace(case, code=code, id=f"{case}[vars]")


class _Keywords(_Hoist):
    """Pass the positional arguments of the call by their torch names (from the entry's signature) and put the
    keywords in reverse order: the keyword and shuffled-keyword styles."""

    def __init__(self, api: str, names):
        super().__init__(api)
        self.names = names
        self.changed = False

    def leave_Call(self, original, updated):
        if self.done or not self._matches(updated):
            return updated
        self.done = True
        args, n = list(updated.args), 0
        out = []
        for arg in args:
            if arg.star:
                return updated
            if arg.keyword is None:
                if n >= len(self.names) or self.names[n].startswith("*"):
                    return updated
                arg = arg.with_changes(keyword=cst.Name(self.names[n]), equal=cst.AssignEqual(
                    whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")))
                n += 1
            out.append(arg)
        if len(out) < 2 and n == 0:
            return updated
        out = [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in reversed(out)]
        self.changed = True
        return updated.with_changes(args=out)


# torch's keyword names are not the table's single signature: overloads (tensor_split(input, sections) /
# (input, indices); randint(high, size) / (low, high, size)) or positional-only parameters (is_tensor(obj, /)).
NO_KEYWORD_FORM = {"torch.tensor_split", "Tensor.tensor_split", "torch.hsplit", "torch.vsplit", "torch.randint",
                   "torch.is_tensor"}


def _keywords(case):
    from migrate.mapping import load_table

    table = load_table()
    api = case.apis[0]
    if api in NO_KEYWORD_FORM:
        return None
    entry = table.methods.get(api[len("Tensor."):]) if api.startswith("Tensor.") else table.lookup(api)
    if entry is None or not entry.args or entry.inplace:
        return None
    setup, run = case.code.split(RUN_MARK, 1)
    names = [a for a in entry.args if a != "self"] if api.startswith("Tensor.") else list(entry.args)
    kw = _Keywords(api, names)
    module = cst.parse_module(run).visit(kw)
    if not kw.changed:
        return None
    return dataclasses.replace(case, code=f"{setup}{RUN_MARK}{module.code}", id=f"{case}[kw-shuffled]")


SOURCES = (test_torch_math, test_tensor_math, test_methods, test_tensor_inplace)
ALL = [v for m in SOURCES for c in m.CASES if (v := _from_variables(c)) is not None]

# case id -> the unsupported reason the converter gives when the value is not a literal
P_LITERAL = "p must be a literal"
DIM_LITERAL = "dim must be a literal: over two axes ops.norm computes a matrix norm"
UNBIASED = "unbiased must be a literal True/False"
FULL = "the dtype torch infers from a non-literal fill_value is unknown"
NEEDS_LITERAL = {
    "torch.std_mean:torch.std_mean(x, unbiased=False)[vars]": UNBIASED,
    "torch.var_mean:torch.var_mean(x, unbiased=False)[vars]": UNBIASED,
    "torch.diff:torch.diff(x, 1)[vars]": "diff only supports n=1",
    "torch.diff:torch.diff(x, n=1, dim=0)[vars]": "diff only supports n=1",
    "torch.full:torch.full((2, 3), 1.5)[vars]": FULL,
    "torch.full:torch.full((2,), 7)[vars]": FULL,
    "torch.full:torch.full(size=(3, 1), fill_value=True)[vars]": FULL,
    "torch.full:torch.full(fill_value=0.5, size=s)[vars]": FULL,
    "Tensor.std:x.std(unbiased=False)[vars]": UNBIASED,
    "Tensor.var:x.var(unbiased=False)[vars]": UNBIASED,
    "Tensor.norm:x.norm(1)[vars]": P_LITERAL,
    "Tensor.norm:x.norm(p=2, dim=1)[vars]": P_LITERAL,
    "Tensor.norm:x.norm(dim=0, keepdim=True)[vars]": DIM_LITERAL,
    "Tensor.norm:x.norm(float('-inf'), dim=1)[vars]": DIM_LITERAL,
    "Tensor.norm:x.norm(2, dim=(-2, -1), keepdim=True)[vars]": P_LITERAL,
    "Tensor.norm:x.norm(p=1, dim=(0, 1))[vars]": P_LITERAL,
    "Tensor.norm:x.norm(float('inf'), dim=(-2, -1))[vars]": DIM_LITERAL,
}

KW = [v for m in SOURCES for c in m.CASES if (v := _keywords(c)) is not None]
CASES = [c for c in ALL if c.id not in NEEDS_LITERAL] + KW


@pytest.mark.parametrize("case", CASES, ids=str)
def test_from_variables(case):
    run_case(case)


@pytest.mark.parametrize("case_id", sorted(NEEDS_LITERAL))
def test_needs_literal_is_marked(case_id):
    case = next(c for c in ALL if c.id == case_id)
    assert_unsupported(case.code, case.apis[0], NEEDS_LITERAL[case_id])


def test_variants_exist():
    assert len(ALL) > 400 and len(KW) > 400, (len(ALL), len(KW))
