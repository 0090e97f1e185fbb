"""Layers used as values, as real model code writes them (``norm_layer=nn.BatchNorm2d``, ``act_layer=nn.GELU``,
``functools.partial(nn.LayerNorm, eps=1e-6)``, a dict of activation classes): the torch name becomes a helper with
torch's signature that builds the MindSpore cell with the arguments adapted (``value`` in the table). Each case
builds the layer through the value, runs both frameworks and compares; BatchNorm cases also compare after
``.eval()`` so that the momentum they were built with shows in the running statistics."""
import pytest

from migrate import convert_source
from tests.api.cases import HEADER, call_cases, layer_cases
from tests.harness import Case, rng_array, run_case

IMG = (2, 4, 8, 8)
BN_RUN = "m(x)\nm.eval()\nout = m(x)"

CASES = [
    *layer_cases("torch.nn.BatchNorm2d", ["f(4)", "f(4, momentum=0.3)", "f(4, 1e-3, 0.5)", "g(4)",
                                          "f(num_features=4, affine=False)", "f(4, track_running_stats=False)"],
                 IMG, prelude="import functools\nf = nn.BatchNorm2d\ng = functools.partial(nn.BatchNorm2d, momentum=0.2)",
                 run=BN_RUN),
    *layer_cases("torch.nn.BatchNorm1d", ["f(4)", "f(4, momentum=0.7, eps=1e-3)"], (6, 4),
                 prelude="f = nn.BatchNorm1d", run=BN_RUN),
    *layer_cases("torch.nn.LayerNorm", ["f(8)", "f([8], eps=1e-6)", "g(8)", "f((8,), 0.1)"], IMG,
                 prelude="import functools\nf = nn.LayerNorm\ng = functools.partial(nn.LayerNorm, eps=1e-6)",
                 rtol=1e-5, atol=1e-5, why_tolerance="a reduction in another order (float32 rounding)"),
    *layer_cases("torch.nn.GroupNorm", ["f(2, 4)", "f(2, 4, eps=1e-2, affine=False)"], IMG,
                 prelude="f = nn.GroupNorm", rtol=1e-5, atol=1e-5,
                 why_tolerance="a reduction in another order (float32 rounding)"),
    *layer_cases("torch.nn.GELU", ["f()", "acts['gelu']()", "f(approximate='tanh')", "f('tanh')"], IMG,
                 prelude="f = nn.GELU\nacts = {'gelu': nn.GELU, 'relu': nn.ReLU}", rtol=1e-6, atol=1e-6,
                 why_tolerance="erf in another order (float32 rounding)"),
    *layer_cases("torch.nn.ReLU", ["f()", "f(inplace=True)", "acts['relu'](True)"], IMG,
                 prelude="f = nn.ReLU\nacts = {'gelu': nn.GELU, 'relu': nn.ReLU}"),
    *layer_cases("torch.nn.ReLU6", ["f(inplace=True)"], IMG, prelude="f = nn.ReLU6"),
    *layer_cases("torch.nn.SiLU", ["f(inplace=True)"], IMG, prelude="f = nn.SiLU", rtol=1e-6, atol=1e-6,
                 why_tolerance="exp in another order (float32 rounding)"),
    *layer_cases("torch.nn.Hardswish", ["f(inplace=True)"], IMG, prelude="f = nn.Hardswish"),
    *layer_cases("torch.nn.Hardsigmoid", ["f()"], IMG, prelude="f = nn.Hardsigmoid"),
    *layer_cases("torch.nn.LeakyReLU", ["f()", "f(0.3, inplace=True)"], IMG, prelude="f = nn.LeakyReLU"),
    *layer_cases("torch.nn.Identity", ["f()", "f(4, unused='x')"], IMG, prelude="f = nn.Identity"),
    *layer_cases("torch.nn.Conv2d", ["f(4, 6, 3)", "f(4, 6, 3, 2, 1, bias=False)", "f(4, 6, (3, 1), padding=(1, 0))",
                                     "f(4, 4, 3, padding='same', groups=2)", "f(4, 6, 3, dilation=2, padding=2)"],
                 IMG, prelude="f = nn.Conv2d", rtol=1e-5, atol=1e-5,
                 why_tolerance="a convolution sums in another order (float32 rounding)"),
    # timm's hiera: [nn.Identity, nn.Conv1d, nn.Conv2d, nn.Conv3d][n]; torchvision's conv_layer=torch.nn.Conv3d
    *layer_cases("torch.nn.Conv1d", ["convs[1](4, 6, 3)", "convs[1](4, 6, 3, 2, 1, bias=False)",
                                     "convs[1](4, 6, kernel_size=(3,), padding=(2,), dilation=2)",
                                     "convs[1](4, 4, 3, padding='same', groups=2)"],
                 (2, 4, 16), prelude="convs = [nn.Identity, nn.Conv1d, nn.Conv2d, nn.Conv3d]", rtol=1e-5, atol=1e-5,
                 why_tolerance="a convolution sums in another order (float32 rounding)"),
    *layer_cases("torch.nn.Conv3d", ["f(4, 6, 3)", "f(4, 6, (3, 1, 3), stride=(1, 2, 1), padding=(1, 0, 1), bias=False)",
                                     "f(4, 4, 3, padding='same', groups=2)", "f(4, 6, 2, padding=1, dilation=2)"],
                 (2, 4, 6, 6, 6), prelude="f = torch.nn.Conv3d", rtol=1e-5, atol=1e-5,
                 why_tolerance="a convolution sums in another order (float32 rounding)"),
    # torchvision's s3d: norm_layer = partial(nn.BatchNorm3d, eps=0.001, momentum=0.001); misc.Conv3dNormActivation
    *layer_cases("torch.nn.BatchNorm3d", ["f(4)", "g(4)", "f(4, 1e-3, 0.5)", "f(4, track_running_stats=False)"],
                 (2, 4, 3, 5, 5), prelude="import functools\nf = torch.nn.BatchNorm3d\n"
                 "g = functools.partial(nn.BatchNorm3d, eps=0.001, momentum=0.001)", run=BN_RUN,
                 rtol=1e-4, atol=1e-5, why_tolerance="batch variance is reduced in a different order (float32 rounding)"),
    *layer_cases("torch.nn.Linear", ["f(8, 3)", "f(8, 3, bias=False)"], IMG, prelude="f = nn.Linear",
                 rtol=1e-5, atol=1e-5, why_tolerance="a matmul sums in another order (float32 rounding)"),
    *layer_cases("torch.nn.Dropout", ["f(0.0)", "f(p=0.0, inplace=True)"], IMG, prelude="f = nn.Dropout"),
    *layer_cases("torch.nn.MaxPool2d", ["f(2)", "f(3, 2, 1)", "f(3, 2, ceil_mode=True)"], IMG,
                 prelude="f = nn.MaxPool2d"),
    # a function as a value (torchvision's ops/misc.py: interpolate = torch.nn.functional.interpolate)
    *call_cases("torch.nn.functional.interpolate", [
        "f(x, scale_factor=2)", "f(x, scale_factor=(2, 3), mode='bilinear')", "f(x, size=(5, 7), mode='bilinear')",
        "f(x, None, 2, 'bilinear', True)", "f(input=x, size=12)"], {"x": rng_array(*IMG)},
        prelude="import torch.nn.functional as F\nf = F.interpolate", rtol=1e-5, atol=1e-5,
        why_tolerance="bilinear weights are computed in float32 differently"),
    *layer_cases("torch.nn.AvgPool2d", ["f(2)", "f(3, 2, 1)", "f(3, 2, 1, count_include_pad=False)",
                                        "f(3, 2, ceil_mode=True)"], IMG, prelude="f = nn.AvgPool2d",
                 rtol=1e-6, atol=1e-6, why_tolerance="a mean in another order (float32 rounding)"),
]

# functional activations used as values (timm's activation registry: dict(silu=F.silu, relu=F.relu, ...)), called
# later with torch's arguments, positional or keyword, inplace included (the input changes, as torch's does)
ACTS = {"x": rng_array(3, 4)}
_FN = "import copy\nacts = dict(silu=F.silu, mish=F.mish, relu=F.relu, relu6=F.relu6, leaky_relu=F.leaky_relu, elu=F.elu,\n" \
      "            selu=F.selu, hard_swish=F.hardswish, hard_sigmoid=F.hardsigmoid, celu=F.celu)\n"
TOL = dict(rtol=1e-6, atol=1e-6, why_tolerance="exp / tanh in another order (float32 rounding)")
for _name, _api, _calls in (
        ("silu", "silu", ["f(x)", "f(x, inplace=False)"]), ("mish", "mish", ["f(x)"]),
        ("relu", "relu", ["f(x)", "f(input=x)"]), ("relu6", "relu6", ["f(x * 4)"]),
        ("leaky_relu", "leaky_relu", ["f(x)", "f(x, 0.2)", "f(x, negative_slope=0.3)"]),
        ("elu", "elu", ["f(x)", "f(x, 1.0)"]), ("selu", "selu", ["f(x)"]), ("hard_swish", "hardswish", ["f(x * 3)"]),
        ("hard_sigmoid", "hardsigmoid", ["f(x * 3)"]), ("celu", "celu", ["f(x)", "f(x, alpha=0.5)"])):
    CASES += [Case(f"torch.nn.functional.{_api}", f"{HEADER}{_FN}f = acts[{_name!r}]\n# @run\nout = {c}\n",
                   inputs=ACTS, id=f"F.{_api} as a value:{c}", **TOL) for c in _calls]
CASES += [Case("torch.nn.functional.relu", f"{HEADER}f = F.relu\n# @run\ny = x.clone()\nout = f(y, inplace=True)\n",
               names=("out", "y"), inputs=ACTS, id="F.relu as a value, inplace=True")]

# torch's reductions used as values (Lightning's ``reduce_fx: Callable = torch.mean`` and its
# ``self.reduce_fx is torch.mean``, ignite's ``{"MIN": torch.min, "MAX": torch.max, "PRODUCT": torch.prod}``,
# ignite's ``reduction: Callable = torch.norm``), called later with torch's arguments
XY = {"x": rng_array(3, 4), "y": rng_array(3, 4, seed=1)}
RTOL = dict(rtol=1e-5, atol=1e-5, why_tolerance="a reduction in another order (float32 rounding)")
REDUCTIONS = [
    *call_cases("torch.mean", ["f(x)", "f(x, 1)", "f(x, dim=0, keepdim=True)", "f(x, (0, 1))",
                               "f(x, 1, dtype=torch.float64)", "f(x) if f is torch.mean else x"], XY,
                prelude="f = torch.mean", **RTOL),
    *call_cases("torch.max", ["f(x)", "f(x, 1)[0]", "f(x, 1)[1]", "f(x, dim=0, keepdim=True)[0]", "f(x, y)",
                              "ops_['MAX'](x, 0)[0]"], XY,
                prelude="f = torch.max\nops_ = {'MIN': torch.min, 'MAX': torch.max, 'PRODUCT': torch.prod}"),
    *call_cases("torch.min", ["f(x)", "f(x, 1)[0]", "f(x, 1, True)[1]", "f(x, y)", "ops_['MIN'](x, 0)[0]"], XY,
                prelude="f = torch.min\nops_ = {'MIN': torch.min, 'MAX': torch.max, 'PRODUCT': torch.prod}"),
    *call_cases("torch.prod", ["f(x)", "f(x, 1)", "f(x, 0, True)", "f(x, dim=1, dtype=torch.float64)",
                               "ops_['PRODUCT'](x, 0)"], XY,
                prelude="f = torch.prod\nops_ = {'MIN': torch.min, 'MAX': torch.max, 'PRODUCT': torch.prod}", **RTOL),
    *call_cases("torch.norm", ["f(x)", "f(x, 1)", "f(x, 2, 1)", "f(x, p='fro', dim=(0, 1))",
                               "f(x, float('inf'), 0, True)"], XY, prelude="f = torch.norm", **RTOL),
]
CASES += REDUCTIONS


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_layer_used_as_a_value(case):
    code = run_case(case)
    # an adapter, a torch-signature cell class (torch.norm's value is the helper its variable-p calls use), or the
    # MindSpore class itself where the file's only call passes what both read alike (``f = nn.BatchNorm2d; f(4)``)
    assert ("_msmigrate_value_" in code or "_Msmigrate" in code or "f = _msmigrate_norm" in code
            or " = nn." in code or "partial(nn." in code)


# Layers as values whose every call passes what the MindSpore class reads as torch's (issue 24): the value is the
# MindSpore class itself, no adapter; both frameworks run (BatchNorm compared after eval(): the momentum shows).
_BLOCK = """
class Block(nn.Module):
    def __init__(self, c, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self._norm_layer = norm_layer
        self.conv = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.bn = norm_layer(c)
        self.bn2 = self._norm_layer(c, eps=1e-3)

    def forward(self, x):
        return self.bn2(self.bn(self.conv(x)))
"""
PLAIN = [
    Case("torch.nn.BatchNorm2d", f"{HEADER}{_BLOCK}m = Block(4)\n# @run\n{BN_RUN}\n", inputs={"x": rng_array(*IMG)},
         id="norm_layer default, self._norm_layer", rtol=1e-5, atol=1e-5,
         why_tolerance="a convolution sums in another order (float32 rounding)"),
    Case("torch.nn.BatchNorm2d", f"{HEADER}import functools\n{_BLOCK}"
         "m = Block(4, norm_layer=functools.partial(nn.BatchNorm2d, affine=False))\n# @run\n" + BN_RUN + "\n",
         inputs={"x": rng_array(*IMG)}, id="partial(nn.BatchNorm2d, affine=False) into a keyword", rtol=1e-5,
         atol=1e-5, why_tolerance="a convolution sums in another order (float32 rounding)"),
    Case("torch.nn.BatchNorm2d", f"{HEADER}{_BLOCK}use_bn = True\nnorm = nn.BatchNorm2d if use_bn else None\n"
         "m = Block(4, norm)\n# @run\n" + BN_RUN + "\n", inputs={"x": rng_array(*IMG)},
         id="a conditional value passed by position", rtol=1e-5, atol=1e-5,
         why_tolerance="a convolution sums in another order (float32 rounding)"),
    *layer_cases("torch.nn.GroupNorm", ["f(2, 4)", "f(2, 4, eps=1e-2, affine=False)"], IMG,
                 prelude="f = nn.GroupNorm", rtol=1e-5, atol=1e-5,
                 why_tolerance="a reduction in another order (float32 rounding)"),
]


@pytest.mark.parametrize("case", PLAIN, ids=lambda c: c.id)
def test_a_value_whose_every_call_agrees_is_the_mindspore_class(case):
    code = run_case(case)
    assert "_Msmigrate" not in code and "_msmigrate_value_" not in code, code


@pytest.mark.parametrize("src, adapter", [
    # a call passing momentum (MindSpore's is 1 - torch's): the adapter builds it
    (f"{_BLOCK}m = Block(4)\nn = nn.BatchNorm2d\nk = n(4, momentum=0.3)\nj = n(4)\n", "= _MsmigrateBatchNorm2d"),
    ("import functools\nf = functools.partial(nn.BatchNorm2d, momentum=0.01)\nm = f(4)\n", "_MsmigrateBatchNorm2d"),
    # the value leaves the file's sight (an imported class builds it)
    ("from torchvision.ops import Conv2dNormActivation\nm = Conv2dNormActivation(3, 4, norm_layer=nn.BatchNorm2d)\n",
     "_MsmigrateBatchNorm2d"),
    # its name is read (timm picks a layer by norm_layer.__name__)
    ("f = nn.BatchNorm2d\nname = f.__name__\nm = f(4)\n", "_MsmigrateBatchNorm2d"),
    # an instance's torch attribute read by name: the adapter's alias of gamma
    ("f = nn.BatchNorm2d\nm = f(4)\nw = m.weight\n", "_MsmigrateBatchNorm2d"),
])
def test_a_value_with_a_call_that_needs_the_adapter_keeps_it(src, adapter):
    code = convert_source(HEADER + src).code
    assert adapter in code, code


def test_a_value_that_disagrees_keeps_the_adapter_and_matches_torch():
    case = Case("torch.nn.BatchNorm2d", f"{HEADER}f = nn.BatchNorm2d\na = f(4)\nm = f(4, momentum=0.3)\n# @run\n"
                f"{BN_RUN}\n", inputs={"x": rng_array(*IMG)}, id="two calls, one with momentum")
    assert "f = _MsmigrateBatchNorm2d" in run_case(case)


def test_a_class_is_still_the_class_for_isinstance_and_subclassing():
    src = ("import torch.nn as nn\nclass Block(nn.Conv2d):\n    pass\n"
           "def is_norm(m):\n    return isinstance(m, (nn.BatchNorm2d, nn.LayerNorm)) or type(m) is nn.GELU\n")
    code = convert_source(src).code
    assert "_msmigrate_value_" not in code
    assert "isinstance(m, (nn.BatchNorm2d, nn.LayerNorm)) or type(m) is nn.GELU" in code


def test_a_layer_with_other_defaults_and_no_adapter_is_refused_as_a_value():
    out = convert_source("import torch.nn as nn\nup = nn.Upsample\n")
    assert [u.api for u in out.unsupported] == ["torch.nn.Upsample"]
    assert "no value adapter" in out.unsupported[0].reason


@pytest.mark.parametrize("call, message", [("f(x, size=4, mode='bicubic')", "bicubic"),
                                           ("f(x, scale_factor=1.5)", "not integral")])
def test_a_function_value_refuses_when_it_runs_what_a_written_call_would_be_refused(call, message):
    import mindspore  # noqa: F401 - the converted code imports it

    src = f"import torch\nimport torch.nn.functional as F\nf = F.interpolate\nx = torch.ones(1, 1, 4, 4)\nout = {call}\n"
    result = convert_source(src)
    assert not result.unsupported, result.unsupported
    with pytest.raises((NotImplementedError, ValueError), match=message):
        exec(compile(result.code, "<converted>", "exec"), {"__name__": "converted"})


# GradScaler as a type (ignite's `scaler: GradScaler | None`, accelerate's `Optional[GradScaler]`, isinstance): the
# class the converted scaler is, ms.amp.DynamicLossScaler
SCALER_TYPE = [
    Case(api, HEADER + f"""import warnings
from typing import Optional
warnings.simplefilter('ignore')
def is_scaler(s: Optional[{api}] = None) -> bool:
    return isinstance(s, {api})
# @run
out = (is_scaler({api}()), is_scaler(None), is_scaler(x))
""", inputs={"x": rng_array(2)}, id=f"{api} as a type") for api in ("torch.cuda.amp.GradScaler", "torch.amp.GradScaler")]


@pytest.mark.parametrize("case", SCALER_TYPE, ids=lambda c: c.id)
def test_grad_scaler_as_a_type(case):
    code = run_case(case)
    assert "Optional[ms.amp.DynamicLossScaler]" in code and "isinstance(s, ms.amp.DynamicLossScaler)" in code
