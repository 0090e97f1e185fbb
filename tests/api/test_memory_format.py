"""memory_format= (a layout hint: MindSpore tensors have none) is dropped by clone and the *_like constructors;
torch.preserve_format / contiguous_format / channels_last are the values real code passes (timm, torchvision)."""
import pytest

from tests.api.cases import X, call_cases
from tests.harness import run_case

CASES = [
    *call_cases("torch.zeros_like", ["torch.zeros_like(x, memory_format=torch.preserve_format)",
                                     "torch.zeros_like(x, dtype=torch.int64, memory_format=torch.contiguous_format)"], X),
    *call_cases("torch.ones_like", ["torch.ones_like(x, memory_format=torch.preserve_format)"], X),
    *call_cases("torch.full_like", ["torch.full_like(x, 2.5, memory_format=torch.preserve_format)"], X),
    *call_cases("torch.empty_like", ["torch.empty_like(x, memory_format=fmt).shape"], X,
                prelude="fmt = torch.preserve_format"),
    *call_cases("torch.rand_like", ["torch.rand_like(x, memory_format=torch.preserve_format).shape"], X),
    *call_cases("torch.randn_like", ["torch.randn_like(x, memory_format=torch.preserve_format).shape"], X),
    *call_cases("Tensor.clone", ["x.clone(memory_format=torch.contiguous_format)", "x.clone()",
                                 "x.clone(memory_format=torch.preserve_format)"], X),
    *call_cases("torch.clone", ["torch.clone(x, memory_format=torch.preserve_format)"], X),
    *call_cases("torch.preserve_format", ["(torch.preserve_format == torch.preserve_format, x + 1)"], X),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_memory_format_dropped(case):
    run_case(case)
