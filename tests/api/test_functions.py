"""torch.* and torch.nn.functional.* functions: converted code computes what torch computed."""
import numpy as np
import pytest

from migrate import convert_source
from tests.api.cases import HEADER, call_cases
from tests.harness import Case, assert_unsupported, rng_array, run_case

X = {"x": rng_array(2, 3, 8, 8)}
X2 = {"x": rng_array(4, 6)}
XY = {"x": rng_array(4, 6), "y": rng_array(4, 6, seed=1)}
MAT = {"a": rng_array(3, 4), "b": rng_array(4, 5, seed=1)}
POS = {"x": np.abs(rng_array(3, 5)) + 0.1}
LOGITS = {"x": rng_array(4, 1, 3, 3), "t": (rng_array(4, 1, 3, 3, seed=1) > 0).astype("float32")}

CASES = [
    # torch.nn.functional
    *call_cases("torch.nn.functional.relu", ["F.relu(x)", "F.relu(input=x)", "F.relu(x, inplace=False)",
                                             "F.relu(inplace=False, input=x)"], X),
    *call_cases("torch.nn.functional.sigmoid", ["F.sigmoid(x)"], X),
    *call_cases("torch.nn.functional.tanh", ["F.tanh(x)"], X),
    *call_cases("torch.nn.functional.gelu", ["F.gelu(x)", "F.gelu(x, approximate='tanh')",
                                             "F.gelu(approximate='none', input=x)"], X),
    *call_cases("torch.nn.functional.leaky_relu", ["F.leaky_relu(x)", "F.leaky_relu(x, 0.2)",
                                                   "F.leaky_relu(negative_slope=0.3, input=x)", "F.leaky_relu(x, s)"],
                X, prelude="s = 0.1"),
    *call_cases("torch.nn.functional.softmax", ["F.softmax(x, dim=1)", "F.softmax(x, 1)", "F.softmax(dim=-1, input=x)",
                                                "F.softmax(x, d)"], X, prelude="d = 2"),
    *call_cases("torch.nn.functional.log_softmax", ["F.log_softmax(x, dim=1)", "F.log_softmax(x, -1)"], X,
                rtol=1e-5, atol=1e-5, why_tolerance="log-sum-exp rounding differs by a few float32 ulps"),
    *call_cases("torch.nn.functional.dropout", ["F.dropout(x, 0.5, False)", "F.dropout(x, p=0.3, training=False)",
                                                "F.dropout(training=False, input=x)"], X),
    *call_cases("torch.nn.functional.dropout", ["F.dropout(x, 0.5)"], {"x": rng_array(64, 64)}, compare="shape"),
    *call_cases("torch.nn.functional.max_pool2d", ["F.max_pool2d(x, 2)", "F.max_pool2d(x, kernel_size=3, stride=2)",
                                                   "F.max_pool2d(stride=1, kernel_size=2, input=x)",
                                                   "F.max_pool2d(x, 3, 2, 1)", "F.max_pool2d(x, k)"], X, prelude="k = 2"),
    *call_cases("torch.nn.functional.avg_pool2d", ["F.avg_pool2d(x, 2)", "F.avg_pool2d(x, kernel_size=3, stride=2)",
                                                   "F.avg_pool2d(stride=1, kernel_size=2, input=x)",
                                                   "F.avg_pool2d(x, 3, 2, 1)", "F.avg_pool2d(x, k)",
                                                   "F.avg_pool2d(x, 3, 2, (1, 0))", "F.avg_pool2d(x, 3, 2, pad, False, False)",
                                                   "F.avg_pool2d(x, 3, 1, padding=[0, 1])"], X, prelude="k = 4\npad = (1, 1)",
                rtol=1e-6, atol=1e-6, why_tolerance="a mean in another order (float32 rounding)"),
    *call_cases("torch.nn.functional.adaptive_avg_pool2d", ["F.adaptive_avg_pool2d(x, 1)",
                                                            "F.adaptive_avg_pool2d(x, output_size=(2, 4))"], X),
    *call_cases("torch.nn.functional.interpolate", [
        "F.interpolate(x, scale_factor=2, mode='bilinear', align_corners=False)",
        "F.interpolate(x, scale_factor=2.0, mode='bilinear')",
        "F.interpolate(x, size=(12, 20), mode='bilinear', align_corners=True)",
        "F.interpolate(x, scale_factor=2)", "F.interpolate(x, size=16, mode='nearest')",
        "F.interpolate(mode='bilinear', input=x, size=s, align_corners=False)",
        "F.interpolate(x, scale_factor=f, mode='bilinear')", "F.interpolate(x, scale_factor=(2, f))",
    ], X, prelude="s = (5, 7)\nf = 3"),
    *call_cases("torch.nn.functional.pad", ["F.pad(x, (1, 2))", "F.pad(x, (1, 1, 2, 0), value=3.0)",
                                            "F.pad(x, pad=(1, 1, 1, 1), mode='reflect')",
                                            "F.pad(x, (2, 2, 2, 2), 'replicate')"], X),
    *call_cases("torch.nn.functional.binary_cross_entropy_with_logits", [
        "F.binary_cross_entropy_with_logits(x, t)", "F.binary_cross_entropy_with_logits(x, t, reduction='sum')",
        "F.binary_cross_entropy_with_logits(target=t, input=x, reduction='none')",
    ], LOGITS),
    *call_cases("torch.nn.functional.l1_loss", ["F.l1_loss(x, y)", "F.l1_loss(x, y, reduction='sum')",
                                                "F.l1_loss(target=y, input=x)"], XY),
    *call_cases("torch.nn.functional.mse_loss", ["F.mse_loss(x, y)", "F.mse_loss(x, y, reduction='none')"], XY),
    # torch.*
    *call_cases("torch.cat", ["torch.cat([x, y])", "torch.cat([x, y], 1)", "torch.cat((x, y), dim=-1)",
                              "torch.cat(dim=0, tensors=[x, y])", "torch.cat(parts, d)"], XY,
                prelude="parts = None\nd = 1\n# @run\nparts = [x, y, x]"),
    *call_cases("torch.stack", ["torch.stack([x, y])", "torch.stack([x, y], 1)", "torch.stack((x, y), dim=-1)",
                                "torch.stack(dim=2, tensors=[x, y])"], XY),
    *call_cases("torch.split", ["torch.split(x, 2)", "torch.split(x, [1, 5], dim=1)", "torch.split(x, 3, 1)",
                                "torch.split(dim=0, split_size_or_sections=[1, 3], tensor=x)"], X2),
    *call_cases("torch.chunk", ["torch.chunk(x, 2)", "torch.chunk(x, 3, dim=1)", "torch.chunk(x, 2, 1)",
                                "torch.chunk(dim=1, chunks=2, input=x)"], X2),
    *call_cases("torch.flatten", ["torch.flatten(x)", "torch.flatten(x, 1)", "torch.flatten(x, start_dim=2)",
                                  "torch.flatten(x, 1, 2)", "torch.flatten(end_dim=2, start_dim=1, input=x)"], X),
    *call_cases("torch.reshape", ["torch.reshape(x, (6, 4))", "torch.reshape(x, shape=(-1,))",
                                  "torch.reshape(shape=(2, 12), input=x)", "torch.reshape(x, shp)"], X2,
                prelude="shp = (3, 8)"),
    *call_cases("torch.permute", ["torch.permute(x, (0, 2, 3, 1))", "torch.permute(x, dims=(3, 2, 1, 0))"], X),
    *call_cases("torch.transpose", ["torch.transpose(x, 0, 1)", "torch.transpose(x, dim0=1, dim1=3)",
                                    "torch.transpose(dim1=2, dim0=0, input=x)"], X),
    *call_cases("torch.squeeze", ["torch.squeeze(x)", "torch.squeeze(x, 1)", "torch.squeeze(x, dim=0)"],
                {"x": rng_array(1, 1, 3)}),
    *call_cases("torch.unsqueeze", ["torch.unsqueeze(x, 0)", "torch.unsqueeze(x, dim=-1)",
                                    "torch.unsqueeze(dim=1, input=x)"], X2),
    *call_cases("torch.matmul", ["torch.matmul(a, b)", "torch.matmul(other=b, input=a)"], MAT),
    *call_cases("torch.sum", ["torch.sum(x)", "torch.sum(x, 1)", "torch.sum(x, dim=(0, 2), keepdim=True)",
                              "torch.sum(keepdim=True, dim=1, input=x)"], X, rtol=1e-5, atol=1e-5,
                why_tolerance="float32 sums accumulate in a different order"),
    *call_cases("torch.mean", ["torch.mean(x)", "torch.mean(x, 1)", "torch.mean(x, dim=(2, 3), keepdim=True)",
                               "torch.mean(keepdim=False, dim=-1, input=x)"], X),
    *call_cases("torch.std", ["torch.std(x)", "torch.std(x, 1)", "torch.std(x, dim=1, keepdim=True)",
                              "torch.std(x, unbiased=False)", "torch.std(x, 1, correction=0)", "torch.std(x, False)"],
                X2, rtol=1e-5, atol=1e-5, why_tolerance="float32 variance accumulates in a different order"),
    *call_cases("torch.var", ["torch.var(x)", "torch.var(x, 0)", "torch.var(x, dim=1, unbiased=False, keepdim=True)"],
                X2, rtol=1e-5, atol=1e-5, why_tolerance="float32 variance accumulates in a different order"),
    *call_cases("torch.max", ["torch.max(x)", "torch.max(x, 1)", "torch.max(x, dim=0, keepdim=True)",
                              "torch.max(x, other=y)", "torch.max(x, y)", "torch.max(x, d)", "torch.max(x, d, True)"],
                XY, prelude="d = 1"),
    *call_cases("torch.min", ["torch.min(x)", "torch.min(x, 1)", "torch.min(x, dim=1, keepdim=True)",
                              "torch.min(x, other=y)", "torch.min(x, y)", "torch.min(x, d)"], XY, prelude="d = 0"),
    # out=: the result written into the named tensor (others bound to it see it), and returned
    *[Case(api, f"{HEADER}# @run\na = y\n{stmt}\n", names=("out", "y", "a"), inputs=XY, id=f"{api}:{stmt}")
      for api, stmt in (("torch.round", "out = torch.round(x * 3, out=y)"), ("torch.round", "torch.round(y * 3, out=y)\nout = y"),
                        ("torch.add", "out = torch.add(x, 1.0, out=y)"), ("torch.max", "torch.max(y, x, out=y)\nout = y"),
                        ("torch.mul", "out = torch.mul(input=x, other=2.0, out=y)"))],
    # expressions as the second argument (torchvision's box ops): a helper tells a dim from a tensor at run time
    *call_cases("torch.max", ["torch.max(x[..., None, :2], y[None, :, :2])", "torch.max(x, y + 1)",
                              "torch.max(x, torch.tensor(0.0, dtype=x.dtype))", "torch.max(x.abs(), dims[0])"],
                XY, prelude="dims = [1]"),
    *call_cases("torch.min", ["torch.min(x[..., None, 2:], y[None, :, 2:])", "torch.min(x * 2, y.view_as(x))",
                              "torch.min(x, dims[-1])"], XY, prelude="dims = [0]"),
    *call_cases("torch.argmax", ["torch.argmax(x)", "torch.argmax(x, 1)", "torch.argmax(x, dim=0, keepdim=True)"], X2),
    *call_cases("torch.zeros", ["torch.zeros(2, 3)", "torch.zeros((2, 3))", "torch.zeros(4, dtype=torch.int32)",
                                "torch.zeros(n, m)", "torch.zeros(shape)"], {}, prelude="n, m, shape = 3, 2, (1, 4)"),
    *call_cases("torch.ones", ["torch.ones(2, 3)", "torch.ones((2, 3))", "torch.ones(4, dtype=torch.float64)",
                               "torch.ones(size=(3,))"], {}),
    *call_cases("torch.zeros_like", ["torch.zeros_like(x)", "torch.zeros_like(x, dtype=torch.int32)"], X2),
    *call_cases("torch.ones_like", ["torch.ones_like(x)", "torch.ones_like(input=x)"], X2),
    *call_cases("torch.arange", ["torch.arange(5)", "torch.arange(1, 7)", "torch.arange(0, 1, 0.25)",
                                 "torch.arange(10, dtype=torch.float32)", "torch.arange(start=2, end=8, step=2)"], {}),
    *call_cases("torch.tensor", ["torch.tensor([1.0, 2.0])", "torch.tensor([[1, 2], [3, 4]])",
                                 "torch.tensor([1, 2], dtype=torch.float32)", "torch.tensor(3.5)"], {}),
    *call_cases("torch.from_numpy", ["torch.from_numpy(arr)"], {}, prelude="import numpy as np\narr = np.arange(6.0).reshape(2, 3)"),
    *call_cases("torch.sigmoid", ["torch.sigmoid(x)", "torch.sigmoid(input=x)"], X2),
    *call_cases("torch.tanh", ["torch.tanh(x)"], X2),
    *call_cases("torch.relu", ["torch.relu(x)"], X2),
    *call_cases("torch.exp", ["torch.exp(x)"], X2),
    *call_cases("torch.log", ["torch.log(x)"], POS),
    *call_cases("torch.abs", ["torch.abs(x)"], X2),
    *call_cases("torch.sqrt", ["torch.sqrt(x)"], POS),
    *call_cases("torch.clamp", ["torch.clamp(x, -0.5, 0.5)", "torch.clamp(x, min=0.0)", "torch.clamp(x, max=0.1)",
                                "torch.clamp(max=1.0, min=-1.0, input=x)"], X2),
    *call_cases("torch.where", ["torch.where(x > 0, x, y)", "torch.where(condition=x > y, input=x, other=y)"], XY),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_function(case):
    run_case(case)


@pytest.mark.parametrize("code,api,reason", [
    ("F.interpolate(x, scale_factor=1.5, mode='bilinear')", "torch.nn.functional.interpolate", "not integral"),
    ("F.interpolate(x, size=s, scale_factor=f)", "torch.nn.functional.interpolate", "both given as variables"),
    ("F.interpolate(x, size=4, mode='bicubic')", "torch.nn.functional.interpolate", "bicubic"),
    ("F.softmax(x)", "torch.nn.functional.softmax", "no form"),
    ("torch.mean(x, dtype=torch.float64)", "torch.mean", "not mapped"),
    ("torch.frobnicate(x)", "torch.frobnicate", "no MindSpore mapping"),
    ("torch.max(x, 1, out=(v[0], i))", "torch.max", "out= a subscript"),
])
def test_unsupported_calls(code, api, reason):
    assert_unsupported(HEADER + f"out = {code}\n", api, reason)


def test_a_scale_factor_known_at_run_time_raises_when_it_is_not_integral():
    import mindspore  # noqa: F401 - the converted code imports it

    result = convert_source(HEADER + "f = 1.5\nx = torch.ones(1, 1, 4, 4)\nout = F.interpolate(x, scale_factor=f)\n")
    assert not result.unsupported, result.unsupported
    with pytest.raises(ValueError, match="scale_factor=1.5 is not integral"):
        exec(compile(result.code, "<converted>", "exec"), {"__name__": "converted"})
