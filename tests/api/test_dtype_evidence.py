"""Dtype evidence decides guards and helpers (issue 24): each is written only where MindSpore would otherwise be
silently different on an input the evidence allows. Three kinds of proof, every one running both frameworks:

* LOUD: where torch accepts an input and MindSpore raises (float functions of integer/bool tensors, cat/stack of
  mixed dtypes), the conversion is the plain call and MindSpore still raises (measured on 2.10);
* KEPT: where MindSpore is silent (sinc of bool, l1_loss(reduction='sum') and nansum of int32) and the evidence
  allows the case, the guard or helper stays and the result matches torch;
* PLAIN: where the evidence says floating, the plain MindSpore call is written and matches torch.
"""
import numpy as np
import pytest

from migrate.core.resolve import BOOL, FLOATING, INTEGER, UNKNOWN
from tests.api.cases import HEADER
from tests.harness import Case, convert_case, rng_array, run_case, run_case_loud

I32 = np.array([0, 1, 5], dtype="int32")
B = np.array([True, False, True])

# every float function that lost its guard: MindSpore raises on an integer and a bool input where torch computes
LOUD_FUNCS = ["sigmoid", "tanh", "exp", "log", "expm1", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
              "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erf", "erfc", "erfinv", "rsqrt",
              "digamma", "i0", "deg2rad", "rad2deg", "logit"]
LOUD = [
    *(Case(f"torch.{f}", f"{HEADER}# @run\nout = torch.{f}(x)\n", inputs={"x": v}, id=f"torch.{f} {k}")
      for f in LOUD_FUNCS for k, v in (("int32", I32), ("bool", B))),
    *(Case(f"Tensor.{f}", f"{HEADER}# @run\nout = x.{f}()\n", inputs={"x": I32}, id=f"x.{f}() int32")
      for f in LOUD_FUNCS),
    Case("torch.nn.functional.sigmoid", f"{HEADER}# @run\nout = F.sigmoid(x)\n", inputs={"x": I32}, id="F.sigmoid"),
    Case("torch.nn.functional.softsign", f"{HEADER}# @run\nout = F.softsign(x)\n", inputs={"x": I32},
         id="F.softsign"),
    *(Case(f"torch.{f}", f"{HEADER}# @run\nout = torch.{f}([x, y])\n",
           inputs={"x": rng_array(2, 2), "y": rng_array(2, 2, dtype=d)}, id=f"{f} float32+{d}")
      for f in ("cat", "stack", "hstack", "vstack", "dstack", "column_stack", "concat", "row_stack")
      for d in ("int64", "float16", "bool")),
]


@pytest.mark.parametrize("case", LOUD, ids=str)
def test_loud_without_guard(case):
    code = run_case_loud(case)
    assert "is_floating_point" not in code and "_msm_" not in code, code


# MindSpore silently different: the guard / helper stays where the evidence allows the case
KEPT = [
    Case("torch.sinc", f"{HEADER}# @run\nout = torch.sinc(x)\n", inputs={"x": B}, id="sinc of an unknown (bool)"),
    Case("Tensor.sinc", f"{HEADER}# @run\nout = (x > 0).sinc()\n", inputs={"x": rng_array(5)},
         id="sinc of a comparison (bool)"),
    Case("torch.nn.functional.l1_loss", f"{HEADER}# @run\nout = F.l1_loss(x, y, reduction='sum')\n",
         inputs={"x": I32, "y": np.array([3, 0, 1], dtype="int32")}, id="l1 sum of unknowns (int32)"),
    Case("torch.nn.functional.l1_loss", f"{HEADER}# @run\nr = 'sum'\nout = F.l1_loss(x.int(), y.int(), reduction=r)\n",
         inputs={"x": I32, "y": np.array([3, 0, 1], dtype="int32")}, id="l1 of integers, reduction a variable"),
    Case("torch.nansum", f"{HEADER}# @run\nout = torch.nansum(x)\n", inputs={"x": I32}, id="nansum int32"),
]


@pytest.mark.parametrize("case", KEPT, ids=str)
def test_kept_where_silent(case):
    code = run_case(case)
    assert "is_floating_point" in code or "_msm_l1_loss" in code or ".float()" in code, code


# the evidence says floating: the plain MindSpore call, equal to torch
PLAIN = [
    Case("torch.nn.functional.l1_loss", f"{HEADER}conv = nn.Conv2d(1, 2, 3)\n# @run\n"
         "out = F.l1_loss(conv(x), conv(y), reduction='sum')\n",
         inputs={"x": rng_array(1, 1, 5, 5), "y": rng_array(1, 1, 5, 5, seed=1)}, id="l1 sum of conv outputs",
         rtol=1e-5, atol=1e-5, why_tolerance="a 50-term float32 sum"),
    Case("torch.nn.functional.l1_loss", f"{HEADER}# @run\nout = F.l1_loss(torch.sigmoid(x), y)\n",
         inputs={"x": rng_array(3, 4), "y": rng_array(3, 4, seed=1)}, id="l1 mean (the default)"),
    Case("torch.sinc", f"{HEADER}# @run\nout = torch.sinc(x.float())\n", inputs={"x": I32}, id="sinc of .float()"),
    Case("Tensor.sinc", f"{HEADER}# @run\nout = (x / 2).sinc()\n", inputs={"x": rng_array(4)}, id="sinc of a quotient"),
    Case("torch.nansum", f"{HEADER}# @run\nout = torch.nansum(torch.softmax(x, 1))\n", inputs={"x": rng_array(2, 3)},
         id="nansum of softmax"),
    Case("torch.sigmoid", f"{HEADER}lin = nn.Linear(3, 2)\n# @run\nout = torch.sigmoid(lin(x))\n",
         inputs={"x": rng_array(4, 3)}, id="sigmoid of a layer output"),
    Case("torch.cat", f"{HEADER}conv = nn.Conv2d(2, 2, 1)\n# @run\nout = torch.cat([x, conv(x)], 1)\n",
         inputs={"x": rng_array(1, 2, 3, 3)}, id="cat of feature maps"),
]


@pytest.mark.parametrize("case", PLAIN, ids=str)
def test_plain_where_floating(case):
    code = run_case(case)
    assert "is_floating_point" not in code and "_msm_" not in code, code


@pytest.mark.parametrize("src,kind", [
    ("y = x.float()", FLOATING), ("y = x.long()", INTEGER), ("y = x > 0", BOOL), ("y = torch.argmax(x, 1)", INTEGER),
    ("y = torch.sigmoid(x)", FLOATING), ("y = x.to(torch.int64)", INTEGER), ("y = x.to(torch.float16)", FLOATING),
    ("y = x.float().view(-1)", FLOATING), ("y = x.float()[0]", FLOATING), ("y = x / 2", FLOATING),
    ("y = x * 1.5", FLOATING), ("y = x.long() + 1", INTEGER), ("y = torch.isnan(x)", BOOL),
    ("y = torch.zeros(3, dtype=torch.int32)", INTEGER), ("y = torch.randn(3)", FLOATING),
    ("y = x", UNKNOWN), ("y = x + 1", UNKNOWN), ("y = f(x)", UNKNOWN), ("y = x.sum()", UNKNOWN),
])
def test_evidence_kinds(src, kind):
    """Resolver.dtype: what the source says about the kind of numbers, never a guess (a forward's input, an
    integer sum, an unknown function's result are UNKNOWN)."""
    import libcst as cst

    from migrate.core.walk import ScopedVisitor

    code = f"import torch\n\n\ndef g(x):\n    x = torch.as_tensor(x)\n    {src}\n    return y\n"
    module = cst.parse_module(code)
    seen = {}

    class Probe(ScopedVisitor):
        def visit_Return(self, node):
            seen["kind"] = self.resolver.dtype(node.value)

    module.visit(Probe())
    assert seen["kind"] == kind, (src, seen)


def test_guard_check_can_fail():
    """The KEPT cases fail without their guard: sinc of a bool tensor, written plainly, differs from torch."""
    case = Case("torch.sinc", f"{HEADER}# @run\nout = torch.sinc(x)\n", inputs={"x": B})
    source, result = convert_case(case)
    plain = result.code.replace("(x if x.is_floating_point() else x.float())", "x")
    assert plain != result.code
    import mindspore as ms
    import torch

    ns = {"x": ms.Tensor(B)}
    exec(plain.split("# @run", 1)[1] if "# @run" in plain else plain, {**ns, **_ms_globals()}, ns)
    assert not np.allclose(ns["out"].asnumpy(), torch.sinc(torch.tensor(B)).numpy(), equal_nan=False)


def _ms_globals():
    import mindspore as ms
    from mindspore import nn, ops

    return {"ms": ms, "ops": ops, "nn": nn}
