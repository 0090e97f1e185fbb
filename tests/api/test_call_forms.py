"""Call forms real code writes that the signature-driven cases never made (issue 30): ``out=`` (same shape, other
shape, other dtype, a tuple), ``inplace=True`` on functional calls, in-place ``_foreach_*_`` results. Each ran and
gave other numbers (or another shape or dtype) than torch before its fix; each compares both frameworks."""
import numpy as np
import pytest

from tests.api.cases import HEADER
from tests.harness import Case, rng_array, run_case

X = {"x": rng_array(3, 4), "y": rng_array(3, 4, seed=1)}
I = {"i": rng_array(3, 4, dtype="int64", low=-3, high=4)}

OUT = [
    # same shape: the result is written into out, aliases of out see it, the call returns out
    ("torch.add", "o = torch.zeros(3, 4)\nalias = o\nr = torch.add(x, y, out=o)\nout = (r, o, alias)"),
    # other shape: torch resizes out (copy_ broadcast into it, or left an empty out empty)
    ("torch.exp", "o = torch.tensor([])\nr = torch.exp(x, out=o)\nout = (r, o)"),
    ("torch.mv", "o = torch.zeros(2, 2)\nr = torch.mv(x, y[0], out=o)\nout = (r, o)"),
    ("torch.sum", "o = torch.zeros(3, 4)\nr = torch.sum(x, 1, True, out=o)\nout = (r, o)"),
    ("torch.masked_select", "o = torch.tensor([])\nr = torch.masked_select(x, x > 0, out=o)\nout = (r, o)"),
    # other dtype: out keeps its dtype (torch casts the result into it)
    ("torch.add", "o = torch.zeros(3, 4, dtype=torch.float64)\nr = torch.add(x, y, out=o)\nout = (r, o)"),
    ("torch.add", "o = torch.zeros(3, 4)\nr = torch.add(i, i, out=o)\nout = (r, o)"),
    ("torch.mul", "o = torch.empty(0, dtype=torch.float64)\nr = torch.mul(x, 2, out=o)\nout = (r, o)"),
    # a tuple out (a literal or a name), and an out that is a fresh tensor
    ("torch.max", "v, j = torch.tensor([]), torch.tensor([], dtype=torch.int64)\nr = torch.max(x, 1, out=(v, j))\n"
                  "out = (tuple(r), v, j)"),
    ("torch.sort", "pair = (torch.tensor([]), torch.tensor([], dtype=torch.int64))\nr = torch.sort(x, out=pair)\n"
                   "out = (tuple(r), pair)"),
    ("torch.exp", "out = torch.exp(x, out=torch.tensor([]))"),
    # out=None is torch's default
    ("torch.exp", "out = torch.exp(x, out=None)"),
]


@pytest.mark.parametrize("api,run", OUT, ids=[r.split("\n")[-2] if "\n" in r else r for _, r in OUT])
def test_out(api, run):
    run_case(Case(api, f"{HEADER}# @run\n{run}\n", inputs={**X, **I}, id=run))


INPLACE = [
    ("torch.nn.functional.relu", "r = F.relu(x, inplace=True)"),
    ("torch.nn.functional.relu", "F.relu(x, True)"),
    ("torch.nn.functional.relu6", "r = F.relu6(x, inplace=True)"),
    ("torch.nn.functional.leaky_relu", "r = F.leaky_relu(x, 0.2, True)"),
    ("torch.nn.functional.leaky_relu", "r = F.leaky_relu(input=x, inplace=True)"),
    ("torch.nn.functional.hardtanh", "r = F.hardtanh(x, -0.5, 0.5, True)"),
    ("torch.nn.functional.elu", "r = F.elu(x, inplace=True)"),
    ("torch.nn.functional.selu", "r = F.selu(x, inplace=True)"),
    ("torch.nn.functional.celu", "r = F.celu(x, inplace=True)"),
    ("torch.nn.functional.silu", "r = F.silu(x, inplace=True)"),
    ("torch.nn.functional.hardswish", "r = F.hardswish(x, inplace=True)"),
    ("torch.nn.functional.hardsigmoid", "r = F.hardsigmoid(x, inplace=True)"),
    ("torch.nn.functional.mish", "r = F.mish(x, inplace=True)"),
    ("torch.nn.functional.rrelu", "r = F.rrelu(x, training=False, inplace=True)"),
    ("torch.nn.functional.dropout", "r = F.dropout(x, 0.5, False, True)"),
    ("torch.nn.functional.threshold", "r = F.threshold(x, 0.1, 20.0, True)"),
    # the flag known only when it runs
    ("torch.nn.functional.relu", "def f(t, flag):\n    return F.relu(t, inplace=flag)\nr = f(x, True)\ns = f(y, False)"),
    # a fresh value: nothing else sees it, the result is all there is
    ("torch.nn.functional.relu", "r = F.relu(x * 2, inplace=True)"),
]


@pytest.mark.parametrize("api,run", INPLACE, ids=[r for _, r in INPLACE])
def test_inplace_functional(api, run):
    """torch writes the result into the input: the input name (and its aliases) sees it after the call."""
    names = "out = (x, y, alias" + (", r" if "r = " in run else "") + (", s" if "s = " in run else "") + ")"
    run_case(Case(api, f"{HEADER}# @run\nalias = x\n{run}\n{names}\n", inputs=X, id=run,
                  rtol=1e-5, atol=1e-5, why_tolerance="transcendental activations (elu, mish) differ by an ulp"))


@pytest.mark.parametrize("op", ["abs", "neg", "sqrt", "exp", "zero"])
def test_foreach_inplace_returns_the_list(op):
    """torch._foreach_*_ returns the list it updated (the same list object), not None."""
    run_case(Case(f"torch._foreach_{op}_", f"{HEADER}# @run\nxs = [x.abs(), y.abs()]\nr = torch._foreach_{op}_(xs)\n"
                  "out = (r, xs, r is xs)\n", inputs=X, id=op, rtol=1e-5, atol=1e-6))


OTHER = [
    # the in-place flag setter's value is the tensor, as torch returns it (was None: setattr's value)
    ("Parameter.requires_grad_", "r = x.requires_grad_()\nout = r", X),
    ("Parameter.requires_grad_", "r = (x * 2).requires_grad_(True)\nout = r", X),
    # cartesian_prod of one tensor is that tensor (MindSpore's gives an (n, 1) column)
    ("torch.cartesian_prod", "out = torch.cartesian_prod(x[0])", X),
    ("torch.cartesian_prod", "ts = [x[0]]\nout = torch.cartesian_prod(*ts)", X),
    ("torch.cartesian_prod", "ts = [x[0, :2], y[0, :3]]\nout = torch.cartesian_prod(*ts)", X),
    # Softmin without dim: torch's implicit, rank-dependent dim (MindSpore's raised)
    ("torch.nn.Softmin", "m = nn.Softmin()\nout = (m(x), m(x[0]), m(x[None]))", X),
    ("torch.nn.Softmin", "m = nn.Softmin(dim=None)\nout = m(x)", X),
    # Python complex literals: torch infers complex64, MindSpore's Tensor complex128
    ("torch.tensor", "out = torch.tensor([1 + 2j, -3 + 4j])", {}),
    ("torch.conj_physical", "out = torch.conj_physical(torch.tensor([[-1 + 1j, 3 - 3j]]))", {}),
    # an in-place op on a fresh tensor keeps that tensor's dtype (the out-of-place op gives bool)
    ("Tensor.logical_not_", "out = torch.tensor([0., 1., 10., 0.]).logical_not_()", {}),
    ("Tensor.eq_", "out = (x * 2).eq_(x + x)", X),
    # take_along_dim broadcasts input and indices (MindSpore's gather_elements gave the index's (1, 1) shape)
    ("torch.take_along_dim", "out = torch.take_along_dim(x, torch.tensor([[0]]), dim=0)", X),
    ("Tensor.take_along_dim", "out = x.take_along_dim(torch.tensor([[1], [0], [2]]), -1)", X),
    ("Tensor.take_along_dim", "out = x[None].take_along_dim(torch.tensor([[[2, 0, 1, 0]]]), 1)", X),
    # pinv(hermitian=True) of a batch (MindSpore's hermitian kernel gave a (2, 2) result for (2, 3, 3))
    ("torch.linalg.pinv", "a = x[:, :3]\nb = a @ a.T + torch.eye(3)\n"
                          "out = torch.linalg.pinv(torch.stack([b, 2 * b]), hermitian=True)", X),
    # binary_cross_entropy over one element: MindSpore's mean/sum doubled it
    ("torch.nn.functional.binary_cross_entropy", "out = F.binary_cross_entropy(x[0, :1].sigmoid(), y[0, :1].sigmoid())", X),
    ("torch.nn.functional.binary_cross_entropy", "out = F.binary_cross_entropy(x[0, 0].sigmoid(), y[0, 0].sigmoid(), "
                                                 "reduction='sum')", X),
    ("torch.nn.functional.binary_cross_entropy", "out = F.binary_cross_entropy(x.sigmoid(), y.sigmoid(), "
                                                 "weight=y[0].abs())", X),
    # calculate_gain of linear / conv / sigmoid is the int 1 (a tensor of it is int64)
    ("torch.nn.init.calculate_gain", "out = torch.tensor(torch.nn.init.calculate_gain('linear'))", {}),
    ("torch.nn.init.calculate_gain", "out = torch.tensor(torch.nn.init.calculate_gain('conv2d'))", {}),
    # signbit of -0.0 (and -nan) is True (MindSpore's kernel answered False), with out= as well
    ("torch.signbit", "out = torch.signbit(torch.tensor([-0., 1.1, -2.1, 0., float('-nan'), float('-inf')]))", {}),
    ("torch.signbit", "o = torch.tensor([], dtype=torch.bool)\nr = torch.signbit(out=o, input=x.double() * 0 - 0.0)\n"
                      "out = (r, o)", X),
    ("torch.signbit", "out = torch.signbit(i)", I),
    ("Tensor.signbit", "out = (x * 0 - 0.0).signbit()", X),
    # cross and polar broadcast their operands (MindSpore's kernels read past the smaller one)
    ("torch.cross", "a = torch.tensor([[1.0, -2.0, 0.5]])\nb = x[:, :3]\nout = torch.cross(a, b, dim=-1)", X),
    ("torch.cross", "out = torch.cross(x[:1, :3], y[:, :3], 1)", X),
    ("torch.linalg.cross", "out = torch.linalg.cross(x[:, None, :3], y[None, :, :3])", X),
    ("Tensor.cross", "out = x[:1, :3].cross(y[:, :3], dim=1)", X),
    ("Tensor.cross", "out = x[:, :3].cross(y[:, :3])", X),
    ("torch.polar", "out = torch.polar(x.abs()[:, None], y[None])", X),
    # .values / .indices of torch's (values, indices) named tuple (a plain tuple in MindSpore: AttributeError)
    ("torch.max", "out = (torch.max(x, 1).values, torch.max(x, dim=0).indices)", X),
    ("Tensor.topk", "out = (x.topk(2).values, x.topk(2, dim=0).indices)", X),
    ("torch.sort", "out = torch.sort(x, 1, descending=True).indices", X),
    ("torch.cummax", "out = (torch.cummax(x, 0).values, torch.cummin(x, 1).indices)", X),
    ("Tensor.max", "out = x.max(dim=1).values + x.min(1).values", X),
    # size_average=None / reduce=None are torch's defaults, not the deprecated options
    ("torch.nn.MultiLabelSoftMarginLoss", "m = nn.MultiLabelSoftMarginLoss(None, None, None, 'none')\n"
                                          "out = m(x, (y > 0).float())", X),
    ("torch.nn.functional.mse_loss", "out = F.mse_loss(x, y, size_average=None, reduce=None, reduction='sum')", X),
    # copysign takes the sign bit of other, also of -0.0 (MindSpore's kernel took -0.0 as positive)
    ("torch.copysign", "out = torch.copysign(x, torch.tensor([-0.0, 0.0, -1.0, 2.0]))", X),
    ("torch.copysign", "out = (torch.copysign(x, -0.0), torch.copysign(x, 0.0))", X),
    ("torch.copysign", "out = torch.copysign(i, torch.tensor([-0.0, 1.0, -0.0, -2.0], dtype=torch.float64))", I),
    ("Tensor.copysign", "out = x.copysign(y * 0 - 0.0)", X),
    ("Tensor.copysign_", "z = x.clone()\nz.copysign_(-0.0)\nout = z", X),
    # exp / log / trig / erf of integer or bool data: torch computes in float32, MindSpore raised TypeError
    ("torch.log2", "out = torch.log2(torch.tensor([4, 10, 7, 9]))", {}),
    ("Tensor.exp", "out = torch.tensor([[1, 2], [3, -4]]).exp()", {}),
    ("torch.sigmoid", "out = torch.sigmoid(i > 0)", I),
    ("Tensor.sqrt", "t = torch.tensor([True, False])\nout = t.sqrt()", {}),
    ("torch.special.erf", "out = torch.special.erf(torch.tensor([0, 1, -2]))", {}),
    ("torch.log", "o = torch.zeros(4)\nr = torch.log(torch.tensor([4, 10, 7, 9]), out=o)\nout = (r, o)", {}),
    # mvlgamma of x <= (p-1)/2: torch computes it; MindSpore's kernel raised, and under out= gave garbage
    ("torch.special.multigammaln", "o = torch.tensor([])\nr = torch.special.multigammaln(input=x.abs(), p=2, out=o)\n"
                                   "out = (r, o)", X),
    ("torch.mvlgamma", "out = torch.mvlgamma(x.abs() + 0.2, 3)", X),
    ("Tensor.mvlgamma", "out = (x.abs() + 0.1).double().mvlgamma(p=1)", X),
    # a one-element tensor as narrow's start, an int maxnorm / margin: torch takes them, MindSpore raised TypeError
    ("torch.narrow", "out = torch.narrow(x, 0, torch.tensor(1), 2)", X),
    ("Tensor.narrow", "s = torch.tensor(2)\nout = x.narrow(1, s, 2)", X),
    ("Tensor.narrow", "out = x.narrow(-1, -2, 2)", X),
    ("torch.narrow_copy", "out = torch.narrow_copy(x, dim=1, start=-1, length=1)", X),
    ("Tensor.narrow_copy", "out = x.narrow_copy(0, torch.tensor(-1), 1)", X),
    ("Tensor.renorm", "out = x.renorm(2, 0, 1)", X),
    ("torch.renorm", "m = 1\nout = torch.renorm(x, 1, 1, m)", X),
    ("torch.nn.functional.multi_margin_loss", "out = F.multi_margin_loss(x, torch.tensor([0, 2, 1]), margin=2)", X),
    # layout=torch.strided is torch's default (dense tensors), written out: dropped (it was refused)
    ("torch.full", "out = torch.full((2, 3), 1.5, layout=torch.strided)", {}),
    ("torch.eye", "out = torch.eye(3, layout=torch.strided, dtype=torch.float64)", {}),
    ("Tensor.new_zeros", "out = x.new_zeros((2,), layout=torch.strided)", X),
    ("torch.tril_indices", "out = torch.tril_indices(3, 3, layout=torch.strided)", {}),
    # torch's other keyword for the first argument (the table's aliases)
    ("torch.linalg.norm", "out = torch.linalg.norm(input=x)", X),
    ("torch.linalg.matrix_rank", "out = torch.linalg.matrix_rank(input=x)", X),
    # an int sample spacing (MindSpore's fftfreq takes a float d)
    ("torch.fft.fftfreq", "out = torch.fft.fftfreq(5, 2)", {}),
    ("torch.fft.rfftfreq", "d = 3\nout = torch.fft.rfftfreq(6, d=d, dtype=torch.float64)", {}),
]


@pytest.mark.parametrize("api,run,inputs", OTHER, ids=[r for _, r, _ in OTHER])
def test_other_forms(api, run, inputs):
    run_case(Case(api, f"{HEADER}# @run\n{run}\n", inputs=inputs, id=run))


def test_optimizer_built_between_the_forward_pass_and_backward():
    """``out = net(x); opt = SGD(net.parameters()); loss = out.mean(); loss.backward(); opt.step()``: the forward
    function starts after the optimizer (it was built inside it, grad_fn read its parameters before: NameError)."""
    code = (f"{HEADER}# @run\nnet = nn.Linear(4, 2)\nnet.weight = nn.Parameter(w.clone())\n"
            "net.bias = nn.Parameter(torch.zeros(2))\nout = net(x)\n"
            "opt = torch.optim.SGD(net.parameters(), lr=0.5, momentum=0.9)\nloss = torch.mean(out * out)\n"
            "loss.backward()\nopt.step()\nres = (net.weight * 1, net.bias * 1)\n")
    run_case(Case("torch.optim.SGD", code, names=("res",), inputs={**X, "w": rng_array(2, 4, seed=2)}))


def _script_both(source: str, name: str):
    """The torch script and its conversion run as scripts (no mode alignment, no weight copy): the named value."""
    from migrate import convert_source

    ns_t: dict = {}
    exec(source, ns_t)  # noqa: S102
    result = convert_source(source)
    assert not result.unsupported, result.unsupported
    ns_m: dict = {}
    exec(result.code, ns_m)  # noqa: S102
    return ns_t[name].detach().resolve_conj().resolve_neg().numpy(), ns_m[name].asnumpy()


def test_instance_norm_with_running_stats_built_in_a_script_is_in_training_mode():
    """torch modules start in training mode (batch statistics); the InstanceNorm helper Cell started in inference
    mode and normalised with its moving statistics (mean 0, variance 1: the input came back)."""
    src = ("import torch\nimport torch.nn as nn\nm = nn.InstanceNorm2d(3, affine=True, track_running_stats=True)\n"
           "x = torch.arange(54, dtype=torch.float32).reshape(2, 3, 3, 3).sin()\nresult = m(x)\n")
    t, m = _script_both(src, "result")
    np.testing.assert_allclose(m, t, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("expr", ["x.imag", "x.T.imag + 1", "x.real", "x.conj().imag"])
def test_real_and_imag_are_attributes(expr):
    """``x.imag`` is a tensor in torch, a bound method in MindSpore (the method was the value: silent)."""
    src = f"import torch\nx = torch.tensor([[1 + 2j, -3 + 0.5j]])\nresult = {expr}\n"
    t, m = _script_both(src, "result")
    np.testing.assert_allclose(m, t)


@pytest.mark.parametrize("src", [
    "model = nn.Hardswish(inplace=True)\nresult = model(y)\nout = (result, y, alias)",
    "model = nn.LeakyReLU(0.1, True)\nresult = model(y)\nout = (result, y, alias)",
    "model = nn.ReLU(inplace=True)\ny = model(y)\nout = (y, alias * 0 + 1)",  # the name takes the result: left as is
    "class B(nn.Module):\n    def __init__(self):\n        super().__init__()\n        self.act = nn.ReLU6(True)\n"
    "    def forward(self, x):\n        a = self.act(x)\n        return a + x\nout = (B()(y), y)",
])
def test_inplace_module_form(src):
    """A layer built with inplace=True writes its result into its input (torch); MindSpore's layer returned it
    and left the input as it was."""
    code = ("import torch\nimport torch.nn as nn\ny = torch.tensor([[-4.0, -1.5, 0.0, 2.5, 7.0]])\nalias = y\n"
            f"{src}\n")
    from migrate import convert_source

    ns_t: dict = {}
    exec(code, ns_t)  # noqa: S102
    ns_m: dict = {}
    exec(convert_source(code).code, ns_m)  # noqa: S102
    for t, m in zip(ns_t["out"], ns_m["out"]):
        np.testing.assert_allclose(m.asnumpy(), t.detach().numpy(), rtol=1e-6)


@pytest.mark.parametrize("ctor", ["nn.ReflectionPad1d(2)", "nn.ReflectionPad1d((1, 3))", "nn.ReflectionPad2d((1, 2, 0, 1))",
                                  "nn.ReflectionPad3d((1, 0, 2, 1, 0, 1))"])
def test_reflection_pad_padding_attribute_in_torch_order(ctor):
    """MindSpore's ReflectionPad holds padding as pairs, last dim last; torch a flat tuple, last dim first."""
    from migrate import convert_source

    src = f"import torch\nimport torch.nn as nn\nm = {ctor}\nresult = m.padding\n"
    ns_t: dict = {}
    exec(src, ns_t)  # noqa: S102
    ns_m: dict = {}
    exec(convert_source(src).code, ns_m)  # noqa: S102
    assert ns_m["result"] == ns_t["result"]
