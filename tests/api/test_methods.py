"""Tensor and Module methods (recognised by name) and dtypes: converted code computes what torch computed."""
import numpy as np
import pytest

from migrate import convert_source
from tests.api.cases import HEADER, call_cases
from tests.harness import rng_array, run_case

X = {"x": rng_array(2, 3, 4)}
CASES = [
    *call_cases("Tensor.view", ["x.view(6, 4)", "x.view(-1)", "x.view((4, 6))", "x.view(n, -1)"], X, prelude="n = 2"),
    *call_cases("Tensor.reshape", ["x.reshape(6, 4)", "x.reshape((-1, 2))", "x.reshape(n, -1)"], X, prelude="n = 3"),
    *call_cases("Tensor.permute", ["x.permute(2, 0, 1)", "x.permute((1, 0, 2))"], X),
    *call_cases("Tensor.transpose", ["x.transpose(0, 1)", "x.transpose(-1, -2)"], X),
    *call_cases("Tensor.unsqueeze", ["x.unsqueeze(0)", "x.unsqueeze(-1)"], X),
    *call_cases("Tensor.squeeze", ["x.squeeze()", "x.squeeze(0)", "x.squeeze(dim=2)", "x.squeeze(d)"],
                {"x": rng_array(1, 3, 1)}, prelude="d = -1"),
    *call_cases("Tensor.flatten", ["x.flatten()", "x.flatten(1)"], X),
    *call_cases("Tensor.contiguous", ["x.contiguous()"], X),
    *call_cases("Tensor.float", ["x.float()"], {"x": np.arange(6, dtype="int64")}),
    *call_cases("Tensor.mean", ["x.mean()", "x.mean(dim=1)", "x.mean(1, keepdim=True)", "x.mean((0, 2))"], X),
    *call_cases("Tensor.sum", ["x.sum()", "x.sum(dim=1)", "x.sum(-1, keepdim=True)"], X, rtol=1e-5, atol=1e-5,
                why_tolerance="float32 sums accumulate in a different order"),
    *call_cases("Tensor.item", ["x.sum().item()", "x[0, 0, 0].item()"], X, rtol=1e-5, atol=1e-5,
                why_tolerance="float32 sums accumulate in a different order"),
    *call_cases("Tensor.dim", ["x.dim()"], X),
    *call_cases("Tensor.numel", ["x.numel()"], X),
    *call_cases("Tensor.sigmoid", ["x.sigmoid()"], X),
    *call_cases("Tensor.size", ["x.size()", "x.size(1)", "x.size(-1)", "x.size(dim=0)"], X),
    *call_cases("Tensor.detach", ["x.detach()", "(x * 2).detach()"], X),
    *call_cases("Tensor.numpy", ["x.numpy()", "x.detach().numpy()"], X),
    *call_cases("Tensor.cpu", ["x.cpu()"], X),
    *call_cases("Tensor.to", ["x.to(device)", "x.to('cpu')", "x.to(torch.float64)", "x.to(device, torch.float16)",
                              "x.to(dtype=torch.int32)", "x.to(dtype=dt)", "x.to(device=dev, dtype=dt)", "x.to(device, dtype=dt)",
                              "(x * 2).to(dtype=torch.float64)"], X,
                prelude="device = 'cpu'\ndev = 'cpu'\ndt = torch.float64"),
    *call_cases("Tensor.repeat", ["x.repeat(2, 1, 1)", "x.repeat((1, 2, 3))"], X),
    *call_cases("Tensor.softmax", ["x.softmax(dim=1)", "x.softmax(-1)"], X),
    *call_cases(("torch.float32", "torch.float", "torch.int64", "torch.long"), [
        "(torch.zeros(2, dtype=torch.float32), torch.zeros(2, dtype=torch.float), torch.zeros(2, dtype=torch.int64), "
        "torch.zeros(2, dtype=torch.long))"], {}),
    *call_cases(("torch.float16", "torch.half", "torch.float64", "torch.double"), [
        "(x.to(torch.float16), x.to(torch.half), x.to(torch.float64), x.to(torch.double))"], X),
    *call_cases(("torch.int32", "torch.int", "torch.bool", "torch.uint8"), [
        "(torch.ones(2, dtype=torch.int32), torch.ones(2, dtype=torch.int), torch.ones(2, dtype=torch.bool), "
        "torch.ones(2, dtype=torch.uint8))"], {}),
    *call_cases("torch.Tensor", ["isinstance(x, torch.Tensor)"], X),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_method(case):
    run_case(case)


# torch cannot run .cuda() on this CPU-only machine: the MindSpore side is compared with the values a CUDA copy
# holds, which are the input's.
PROVEN_ELSEWHERE = {"Tensor.cuda": "test_cuda_keeps_values"}


@pytest.mark.parametrize("call", ["x.cuda()", "x.cuda(0)", "x.cuda(non_blocking=True)"])
def test_cuda_keeps_values(call):
    import mindspore as ms

    result = convert_source(HEADER + f"out = {call}\n")
    assert result.apis["Tensor.cuda"] == 1 and not result.unsupported
    ns = {"x": ms.Tensor(X["x"])}
    exec(result.code, ns)
    np.testing.assert_array_equal(ns["out"].asnumpy(), X["x"])


@pytest.mark.parametrize("code", [
    "line = 'a,b'\nparts = line.split(',')",
    "import numpy as np\na = np.zeros((2, 3))\nb = a.reshape(3, 2)\nc = np.ones(3).view()",
    "d = {'a': 1}\nk = d.items()",
    "s = 'x.view(2)'  # x.detach() in a comment stays",
    "arr = [3, 1]\narr.sort()",
])
def test_non_tensors_are_left_alone(code):
    result = convert_source(HEADER + code + "\n")
    assert result.code.endswith(code + "\n"), result.code
    assert not result.unsupported


def test_methods_are_not_rewritten_in_files_without_torch():
    code = "def f(x):\n    return x.detach().size(1)\n"
    assert convert_source(code).code == code
