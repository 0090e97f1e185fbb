"""A subscript read with a step (``x[:, 0::2, 0::2, :]``, swin's PatchMerging and LeViT's subsampling) goes through
``_msmigrate_getitem``: MindSpore 2.10's CPU StridedSliceGrad fails ("input memory out of bounds") for a step on a
middle axis of a tensor of 3 or more dimensions, which stopped the backward of both real models. The values are
checked against torch by the harness, the gradients by a parity run of the converted module."""
import numpy as np
import pytest

from migrate import convert_source
from tests.api.cases import HEADER
from tests.harness import Case, rng_array, run_case

X = {"x": rng_array(2, 8, 7, 4)}
CASES = [
    Case("operator x[::step]", HEADER + """
a = x[:, 0::2, 0::2, :]
b = x[..., 1::2, :]
d = x[:, 1:7:3, ::2, 0::2]
e = x[::2, :, ::3]
f = [1, 2, 3, 4][::2]
""", names=("a", "b", "d", "e", "f"), inputs=X, id="steps on middle, first and last axes, a list"),
]

PATCH_MERGING = HEADER + '''
class PatchMerging(nn.Module):  # torchvision's swin_transformer._patch_merging_pad, timm's levit Subsample
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(4 * dim)
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x):
        x0 = x[..., 0::2, 0::2, :]
        x1 = x[..., 1::2, 0::2, :]
        x2 = x[..., 0::2, 1::2, :]
        x3 = x[..., 1::2, 1::2, :]
        x = torch.cat([x0, x1, x2, x3], -1)
        return self.reduction(self.norm(x)) + x[:, ::2, ::2, :2].sum()
'''


@pytest.mark.parametrize("case", CASES, ids=str)
def test_strided_subscripts_keep_torch_values(case):
    out = run_case(case)
    assert out.count("_msmigrate_getitem(") == 5, out  # the four tensors and the helper definition (a list literal is left)


def test_patch_merging_backward_runs_and_matches_torch():
    import torch

    from migrate.parity import compare

    result = convert_source(PATCH_MERGING)
    assert not result.errors and not result.unsupported
    assert "_msmigrate_getitem(x, (..., slice(0, None, 2), slice(0, None, 2), slice(None, None, None)))" in result.code
    t_ns, m_ns = {}, {}
    exec(compile(PATCH_MERGING, "<torch>", "exec"), t_ns)
    exec(compile(result.code, "<mindspore>", "exec"), m_ns)
    torch.manual_seed(0)
    x = np.random.default_rng(0).standard_normal((2, 8, 8, 6)).astype(np.float32)
    r = compare(t_ns["PatchMerging"](6), m_ns["PatchMerging"](6), x)
    assert r.passed and r.error is None, r.table(color=False)
    assert r.grads and all(g["passed"] for g in r.grads)


def test_stores_and_literal_strings_are_left_as_written():
    out = convert_source(HEADER + "def f(x):\n    x[:, ::2] = 0\n    del x[::2]\n    return 'abc'[::-1]\n").code
    assert "_msmigrate_getitem" not in out and "x[:, ::2] = 0" in out and "'abc'[::-1]" in out, out
