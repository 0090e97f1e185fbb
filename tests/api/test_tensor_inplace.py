"""In-place tensor methods (mappings/tensor_methods.toml, ``inplace`` entries; migrate/rewrite/inplace.py).

Each case runs a whole statement ``x.op_(...)`` in both frameworks and compares the receiver afterwards (and,
where stated, another name bound to the same tensor, a Parameter, or a layer's output with that Parameter).
"""
import numpy as np
import pytest

from migrate import convert_source
from tests.api.cases import HEADER
from tests.harness import Case, assert_unsupported, rng_array, run_case

X = {"x": rng_array(3, 4)}
XY = {"x": rng_array(3, 4), "y": rng_array(3, 4, seed=1)}
POS = {"x": np.abs(rng_array(3, 4)) + 0.1}
MASK = {**X, "m": rng_array(3, 4, dtype="bool")}
INT = {"x": rng_array(3, 4, dtype="int64", low=-6, high=7)}
TOL = dict(rtol=1e-5, atol=1e-5, why_tolerance="transcendental kernels differ by a few ulps")


def stmt_cases(api, statements, inputs, prelude="", names=("x",), **kw):
    """One case per statement (or statement block), run after setup; the receiver is compared afterwards."""
    return [
        Case(api, f"{HEADER}{prelude}\n# @run\n{s}\n", names=names, inputs=inputs, id=f"{api}:{s}", **kw)
        for s in statements
    ]


def _alias(api, stmt, inputs, **kw):
    """``a = x`` before the statement: torch's in-place op changes ``a`` too; so must the conversion."""
    return stmt_cases(api, [f"a = x\n{stmt}"], inputs, names=("x", "a"), **kw)


UNARY = {n: X for n in "exp_ neg_ abs_ sigmoid_ tanh_ relu_ floor_ ceil_ round_ trunc_ sin_ cos_ square_ sign_".split()}
UNARY.update({n: POS for n in "sqrt_ log_ log1p_ reciprocal_ rsqrt_".split()})

LINEAR = "lin = nn.Linear(3, 2)\n"
LIN_IN = {"inp": rng_array(4, 3, seed=3), "w": rng_array(2, 3, seed=4), "b": rng_array(2, seed=5)}

CASES = [
    *[c for n, inp in UNARY.items() for c in stmt_cases(f"Tensor.{n}", [f"x.{n}()"], inp, **TOL)],
    *[c for n in ("add_", "sub_", "mul_", "div_") for c in stmt_cases(
        f"Tensor.{n}", [f"x.{n}(y)", f"x.{n}(other=y)", f"x.{n}(0.5)", f"x.{n}(v)"], XY, prelude="v = 1.5")],
    *stmt_cases("Tensor.add_", ["x.add_(y, alpha=2)", "x.add_(alpha=0.5, other=y)", "x.add_(y, alpha=k)"], XY,
                prelude="k = -3"),
    *stmt_cases("Tensor.sub_", ["x.sub_(y, alpha=2)"], XY),
    *stmt_cases("Tensor.div_", ["x.div_(y, rounding_mode='floor')", "x.div_(rounding_mode='trunc', other=y)"], XY),
    *stmt_cases("Tensor.add_", ["x.add_(1)", "x.add_(y)"], {**INT, "y": rng_array(3, 4, dtype="int64", seed=1)}),
    *stmt_cases("Tensor.pow_", ["x.pow_(2)", "x.pow_(exponent=0.5)", "x.pow_(e)", "x.pow_(y)"], {**POS, "y": rng_array(3, 4, seed=1)},
                prelude="e = 3", **TOL),
    *stmt_cases("Tensor.clamp_", ["x.clamp_(-0.5, 0.5)", "x.clamp_(min=0.0)", "x.clamp_(max=0.1)",
                                  "x.clamp_(max=1.0, min=-1.0)", "x.clamp_(lo, hi)"], X, prelude="lo, hi = -0.2, 0.3"),
    *stmt_cases("Tensor.clamp_", ["x.clamp_(0, 3)"], INT),
    *stmt_cases("Tensor.clip_", ["x.clip_(-0.5, 0.5)", "x.clip_(min=0.0)"], X),
    *stmt_cases("Tensor.clamp_min_", ["x.clamp_min_(0.1)", "x.clamp_min_(min=lo)"], X, prelude="lo = -0.3"),
    *stmt_cases("Tensor.clamp_max_", ["x.clamp_max_(0.1)", "x.clamp_max_(max=hi)"], X, prelude="hi = 0.3"),
    *stmt_cases("Tensor.masked_fill_", ["x.masked_fill_(m, 0.0)", "x.masked_fill_(mask=m, value=-1.5)",
                                        "x.masked_fill_(value=2.0, mask=m)", "x.masked_fill_(m, v)"], MASK,
                prelude="v = 7.0"),
    *stmt_cases("Tensor.masked_fill_", ["x.masked_fill_(x > 0, 0.0)"], X),
    *stmt_cases("Tensor.lerp_", ["x.lerp_(y, 0.3)", "x.lerp_(end=y, weight=0.7)", "x.lerp_(y, w)"], XY, prelude="w = 0.25"),
    *stmt_cases("Tensor.remainder_", ["x.remainder_(0.7)", "x.remainder_(y)"], XY, **TOL),
    *stmt_cases("Tensor.fmod_", ["x.fmod_(0.7)", "x.fmod_(other=y)"], XY, **TOL),
    *stmt_cases("Tensor.logical_not_", ["x.logical_not_()"], {"x": rng_array(3, 4, dtype="bool")}),
    *stmt_cases("Tensor.zero_", ["x.zero_()"], X),
    *stmt_cases("Tensor.zero_", ["x.zero_()"], INT),
    *stmt_cases("Tensor.fill_", ["x.fill_(1.5)", "x.fill_(value=-2)", "x.fill_(v)", "x.fill_(torch.tensor(3.0))"], X,
                prelude="v = 0.25"),
    *stmt_cases("Tensor.fill_", ["x.fill_(7)"], INT),
    *stmt_cases("Tensor.copy_", ["x.copy_(y)", "x.copy_(y, non_blocking=False)", "x.copy_(y[0])", "x.copy_(y * 2)"], XY),
    *stmt_cases("Tensor.copy_", ["x.copy_(y)"], {**INT, "y": rng_array(3, 4, seed=1) * 3}),  # float -> int truncates
    *stmt_cases("Tensor.unsqueeze_", ["x.unsqueeze_(0)", "x.unsqueeze_(-1)", "x.unsqueeze_(dim=1)", "x.unsqueeze_(d)"],
                X, prelude="d = 2"),
    *stmt_cases("Tensor.squeeze_", ["x.squeeze_()", "x.squeeze_(0)", "x.squeeze_(dim=2)"], {"x": rng_array(1, 3, 1)}),
    *stmt_cases("Tensor.t_", ["x.t_()"], X),
    *stmt_cases("Tensor.transpose_", ["x.transpose_(0, 1)", "x.transpose_(dim0=1, dim1=0)"], X),
    # random: same shape and dtype (values are not comparable)
    *stmt_cases("Tensor.normal_", ["x.normal_()", "x.normal_(0, 0.02)", "x.normal_(mean=1.0)", "x.normal_(std=s)",
                                   "x.normal_(std=0.5, mean=-1)"], X, prelude="s = 3.0", compare="shape"),
    *stmt_cases("Tensor.normal_", ["x.normal_()"], {"x": rng_array(3, 4, dtype="float64")}, compare="shape"),
    *stmt_cases("Tensor.uniform_", ["x.uniform_()", "x.uniform_(-a, a)", "x.uniform_(0.5)", "x.uniform_(to=2.0)"],
                X, prelude="a = 0.1", compare="shape"),
    *stmt_cases("Tensor.uniform_", ["x.uniform_(-1, 1)"], {"x": rng_array(3, 4, dtype="float64")}, compare="shape"),
    # the receiver is an attribute chain
    *stmt_cases("Tensor.mul_", ["s.buf = x\ns.buf.mul_(0.9)\nout = s.buf"], X, names=("x", "out"),
                prelude="import types\ns = types.SimpleNamespace()"),
    # aliases see the change (copy_ updates the tensor object)
    *_alias("Tensor.add_", "x.add_(y)", XY),
    *_alias("Tensor.zero_", "x.zero_()", X),
    *_alias("Tensor.masked_fill_", "x.masked_fill_(x > 0, 0.0)", X),
    *_alias("Tensor.clamp_", "x.clamp_(-0.5, 0.5)", X),
    # the receiver keeps its dtype (an out-of-place add would promote float32 + float64 to float64)
    *stmt_cases("Tensor.add_", ["x.add_(y)"], {"x": rng_array(3, 4), "y": rng_array(3, 4, seed=1, dtype="float64")}),
    *stmt_cases("Tensor.mul_", ["x.mul_(y)"], {"x": rng_array(3, 4), "y": rng_array(3, 4, seed=1, dtype="float64")},
                **TOL),
    # Parameters: weight initialisation and in-place updates under no_grad, then the layer uses the new values
    *stmt_cases("Tensor.zero_", ["lin.bias.data.zero_()\nout = (lin.bias, lin(inp))",
                                 "with torch.no_grad():\n    lin.bias.zero_()\nout = (lin.bias, lin(inp))"],
                LIN_IN, prelude=LINEAR, names=("out",), **TOL),
    *stmt_cases("Tensor.fill_", ["lin.weight.data.fill_(0.5)\nout = (lin.weight, lin(inp))"],
                LIN_IN, prelude=LINEAR, names=("out",), **TOL),
    *stmt_cases("Tensor.copy_", ["lin.weight.data.copy_(w)\nlin.bias.data.copy_(b)\nout = (lin.weight, lin.bias, lin(inp))",
                                 "with torch.no_grad():\n    lin.weight.copy_(w)\nout = lin(inp)"],
                LIN_IN, prelude=LINEAR, names=("out",), **TOL),
    *stmt_cases("Tensor.mul_", ["for p in lin.parameters():\n    p.data.mul_(0.5)\nout = lin(inp)"],
                LIN_IN, prelude=LINEAR, names=("out",), **TOL),
    *stmt_cases("Tensor.normal_", ["lin.weight.data.normal_(0, 0.02)\nout = lin.weight"],
                LIN_IN, prelude=LINEAR, names=("out",), compare="shape"),
    *stmt_cases("Tensor.uniform_", ["lin.weight.data.uniform_(-0.1, 0.1)\nout = lin.weight"],
                LIN_IN, prelude=LINEAR, names=("out",), compare="shape"),
    *stmt_cases("Tensor.relu", ["out = x.relu()"], X, names=("out",)),
    # results used as values: MindSpore's x.copy_(v) returns a tensor sharing x's memory, as torch returns x
    *stmt_cases("Tensor.add_", ["a = x\nz = x.add_(1)\nz.mul_(2)"], X, names=("x", "a", "z")),
    *stmt_cases("Tensor.zero_", ["out = [p.zero_() for p in (x, y)]"], XY, names=("out", "x", "y")),
    *stmt_cases("Tensor.mul_", ["def f(t):\n    return t.mul_(2)\nout = f(x)"], X, names=("out", "x")),
    *stmt_cases("Tensor.sigmoid_", ["out = x.sigmoid_() + 1"], X, names=("out", "x"), **TOL),
    *stmt_cases("Tensor.clamp_", ["out = x.clamp_(min=0.1), x"], X, names=("out",)),
    # chains on one tensor (optimizers: exp_avg.mul_(beta).add_(grad, alpha=1 - beta))
    *stmt_cases("Tensor.add_", ["a = x\nx.mul_(beta).add_(y, alpha=1 - beta)",
                                "out = x.mul_(2).add_(1).neg_()"], XY, prelude="beta = 0.9", names=("x",)),
    *stmt_cases("Tensor.addcmul_", ["x.mul_(0.99).addcmul_(y, y, value=0.01)"], XY, **TOL),
    *stmt_cases("Tensor.clamp_", ["x.add_(y // 2\n# a comment inside the receiver\n).clamp_(min=1)"],
                {**INT, "y": rng_array(3, 4, dtype="int64", seed=1)}),
    # a fresh tensor (no view, never the input itself): the in-place call is its out-of-place counterpart
    *stmt_cases("Tensor.add_", ["out = x.abs().sqrt().add_(1e-8)", "out = torch.zeros(3).add_(2)"], X,
                names=("out", "x"), **TOL),
    *stmt_cases("Tensor.pow_", ["out = (x - y).pow_(2)"], XY, names=("out", "x"), **TOL),
    *stmt_cases("Tensor.unsqueeze_", ["out = torch.ones(3).unsqueeze_(0)"], X, names=("out",)),
    # a comparison is a new (bool) tensor (torchvision's equalize: step.ne(0).unsqueeze_(-1))
    *stmt_cases(("Tensor.unsqueeze_", "Tensor.ne"), ["out = x.ne(0).unsqueeze_(-1)"], X, names=("out", "x")),
    # flip / roll / F.relu6 / F.cosine_similarity copy (timm's mixup, torchvision's MixUp, timm's hard_sigmoid, AdamP)
    *stmt_cases(("Tensor.mul_", "Tensor.flip"), ["out = x.flip(0).mul_(1. - lam)"], X, prelude="lam = 0.3",
                names=("out", "x")),
    *stmt_cases(("Tensor.add_", "Tensor.mul_", "Tensor.roll"), ["out = x.roll(1, 0).mul_(1.0 - lam).add_(x.mul(lam))"],
                X, prelude="lam = 0.3", names=("out", "x"), **TOL),
    *stmt_cases(("Tensor.div_", "torch.nn.functional.relu6"), ["out = F.relu6(x + 3.).div_(6.)"], X,
                names=("out", "x")),
    *stmt_cases(("Tensor.abs_", "torch.nn.functional.cosine_similarity"),
                ["out = F.cosine_similarity(x, y, dim=1, eps=1e-8).abs_()"], XY, names=("out", "x", "y"), **TOL),
    # torch's adamax: an in-place chain on a fresh tensor (converting twice gives the same code)
    *stmt_cases("Tensor.unsqueeze_", ["out = x.abs().add_(0.5).unsqueeze_(0)"], X, names=("out", "x")),
]
# a basic-index subscript (a view in torch) as the receiver of a whole statement, or the root of its chain
# (torchvision's box transforms): x[i] = new value; `a` (bound to x before) sees the change, as torch's view does
SUBSCRIPTS = [
    *_alias("Tensor.sub_", "x[:, 0].sub_(y[:, 1])", XY),
    *_alias(("Tensor.add_", "Tensor.sub_", "Tensor.neg_"), "x[:, 1].add_(x[:, 2]).sub_(0.5).neg_()", X),
    *_alias("Tensor.mul_", "x[:, 0::2].mul_(2)", X),
    *_alias(("Tensor.neg_", "Tensor.add_"), "x[..., 3].neg_().add_(180)", X),
    *_alias(("Tensor.sub_", "Tensor.neg_"), "c = 0.25\nx[..., 0] = x[..., 0].sub_(c).neg_()", X),
    *_alias(("Tensor.sub_", "Tensor.neg_"), "x[:, [1, 3]] = x[:, [3, 1]].sub_(1.0).neg_()", X),  # a list: a copy
    *_alias("Tensor.clamp_", "x[-1, :2].clamp_(min=0)", X),
    *_alias("Tensor.zero_", "x[0].zero_()", X),
    *_alias("Tensor.fill_", "x[:, 1].fill_(2.0)", X),
    *_alias("Tensor.mul_", "n = 2\nx[1:n + 1, 2:].mul_(y[:n, :2])", XY),
    *_alias(("Tensor.mul_", "Tensor.add_", "Tensor.div_"), "x[..., :2].mul_(2).add_(x[..., 2:]).div_(2, rounding_mode='floor')", INT),
    *_alias("Tensor.add_", "x[:, 0].add_(2)", INT),
    # a layer's Parameter through .data (timm's init: qkv.bias.data[n:2 * n].zero_())
    *stmt_cases("Tensor.zero_", ["lin.bias.data[1:].zero_()\nlin.weight.data[0].fill_(0.5)\nout = (lin.weight, lin.bias, lin(inp))"],
                LIN_IN, prelude=LINEAR, names=("out",), **TOL),
]
CASES += SUBSCRIPTS


@pytest.mark.parametrize("case", CASES, ids=str)
def test_inplace(case):
    run_case(case)


@pytest.mark.parametrize("stmt, lo, hi", [("x.uniform_(-0.1, 0.1)", -0.1, 0.1), ("x.uniform_()", 0.0, 1.0),
                                          ("x.uniform_(2)", 2.0, 1.0)])
def test_uniform_range(stmt, lo, hi):
    """Random values: the converted call draws from the same interval (torch's uniform_(2) gives U[1, 2))."""
    import mindspore as ms

    result = convert_source(HEADER + stmt + "\n")
    ns = {"x": ms.Tensor(np.zeros((200, 50), "float32"))}
    exec(result.code, ns)
    v = ns["x"].asnumpy()
    a, b = min(lo, hi), max(lo, hi)
    assert v.min() >= a and v.max() <= b and v.std() > 0.2 * (b - a), (v.min(), v.max())


def test_normal_moments():
    import mindspore as ms

    result = convert_source(HEADER + "x.normal_(1.0, 0.5)\n")
    ns = {"x": ms.Tensor(np.zeros((200, 50), "float32"))}
    exec(result.code, ns)
    v = ns["x"].asnumpy()
    assert abs(v.mean() - 1.0) < 0.05 and abs(v.std() - 0.5) < 0.05


def test_statement_forms():
    code = convert_source(HEADER + "x.add_(y)\nself.buf.mul_(0.9)\nm.weight.data.zero_()\nx.unsqueeze_(0)\n").code
    assert "x.copy_(x.add(y))" in code
    assert "self.buf.copy_(self.buf.mul(0.9))" in code
    assert "m.weight.data.copy_(ops.zeros_like(m.weight.data))" in code
    assert "x = x.unsqueeze(0)" in code
    assert convert_source(code).code == code  # idempotent


@pytest.mark.parametrize("code, api, reason", [
    ("x.view(-1).add_(1)", "Tensor.add_", "not a name or attribute chain"),  # a view: torch writes through it
    ("x.float().mul_(2)", "Tensor.mul_", "not a name or attribute chain"),  # x itself when x is float32
    ("F.relu(x, inplace=True).mul_(2)", "Tensor.mul_", "not a name or attribute chain"),  # x itself
    ("F.relu6(x, True).div_(6.)", "Tensor.div_", "not a name or attribute chain"),  # inplace positionally: x itself
    ("x.transpose(0, 1).div_(2)", "Tensor.div_", "not a name or attribute chain"),  # a view: torch writes through it
    ("x.unsqueeze_(0).add_(1)", "Tensor.unsqueeze_", "changes the shape"),
    ("x.unsqueeze_(0).add_(1)", "Tensor.add_", "not a name or attribute chain"),
    ("y = x[0].zero_()", "Tensor.zero_", "converted as a whole statement only"),
    ("x[i].mul_(2)", "Tensor.mul_", "torch's advanced indexing gives a copy"),  # i may be a tensor
    ("x[idx, 0].add_(1)", "Tensor.add_", "torch's advanced indexing gives a copy"),
    ("x[:n()].add_(1)", "Tensor.add_", "torch's advanced indexing gives a copy"),  # a call: evaluated twice
    ("x[0][1].fill_(2.0)", "Tensor.fill_", "x[i] is a copy, not a view"),
    ("model.get_w().normal_()", "Tensor.normal_", "not a name or attribute chain"),
    ("x.normal_(0, 1, generator=g)", "Tensor.normal_", "generator"),
    ("x.unsqueeze_(0) if c else None", "Tensor.unsqueeze_", "result is used as a value"),
])
def test_unsupported_inplace(code, api, reason):
    assert_unsupported(HEADER + code + "\n", api, reason)


def test_marker_for_a_receiver_spanning_lines_is_one_comment_line():
    # torchvision's autoaugment shape: a chained in-place call whose receiver holds a comment and a line break
    src = HEADER + ("def f(cum_hist, step):\n    cum_hist.view(-1).add_(step // 2\n    # a comment inside the "
                    "receiver\n    ).clamp_(min=1)\n    return cum_hist\n")
    result = convert_source(src)
    markers = [ln for ln in result.code.splitlines() if "msmigrate: unsupported Tensor.clamp_" in ln]
    assert len(markers) == 1 and "cum_hist.view(-1).add_(step // 2 ).clamp_" not in markers[0]
    assert "the receiver `cum_hist.view(-1).add_(step // 2 )`" in markers[0]
    compile(result.code, "converted.py", "exec")  # still parses


def test_value_and_chain_forms_are_idempotent():
    code = convert_source(HEADER + "z = x.add_(1)\nx.mul_(b).add_(g, alpha=0.1)\nout = x.abs().add_(0.5).unsqueeze_(0)\n"
                          "y = [p.zero_() for p in ps]\n").code
    assert "x.copy_(x.mul(b)).copy_(x.add(g, alpha=0.1))" in code
    assert convert_source(code).code == code
