"""torch.nn.init -> Parameter.set_data(initializer(...)): a torch script and its conversion, both run.

Deterministic initialisers (zeros_, ones_, constant_, eye_, dirac_) must give the same values. Random ones draw from
different RNGs (MindSpore's streams are not torch's), so they are compared by shape, dtype and statistics: the
sample std (and, for uniform ones, the bound) against torch's on tensors of >= 4096 elements, within 8% relative.
Reason for 8%: the sample std of n draws has relative standard error about 1/sqrt(2n) (1.1% at n = 4096), so 8% is
> 7 standard errors, while a wrong fan (fan_in vs fan_out of a 64x32x3x3 conv: factor sqrt(2)) or a wrong gain
(relu vs leaky_relu: sqrt(2)) is a 30-40% error and fails.
"""
import textwrap

import numpy as np
import pytest

from migrate import convert_source
from tests.training.trainrun import torch_names

STAT_RTOL = 0.08

HEAD = """
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Conv2d(32, 64, 3), nn.ReLU(), nn.Flatten(), nn.Linear(256, 128), nn.Linear(128, 64),
                      nn.Conv1d(16, 64, 5))
"""


def run(body: str):
    import mindspore as ms
    import torch

    from migrate.weights import mindspore_to_torch

    src = textwrap.dedent(HEAD) + textwrap.dedent(body)
    result = convert_source(src)
    assert not result.unsupported and not result.errors, (result.unsupported, result.code)
    assert not torch_names(result.code), result.code  # names, not the prose of a helper's banner
    tns, mns = {}, {}
    exec(compile(src, "<torch>", "exec"), tns)
    exec(compile(result.code, "<ms>", "exec"), mns)
    ref = {k: v.detach().numpy() for k, v in tns["model"].state_dict().items()}
    got = {k: np.asarray(v) for k, v in mindspore_to_torch(mns["model"], tns["model"]).items()}
    assert isinstance(mns["model"], ms.nn.Cell)
    return result, ref, got


def stats_match(ref, got, bound=False):
    assert ref.shape == got.shape and ref.dtype == got.dtype
    np.testing.assert_allclose(got.std(), ref.std(), rtol=STAT_RTOL)
    assert abs(got.mean() - ref.mean()) < 8 * ref.std() / np.sqrt(ref.size)  # both means ~ 0: 8 standard errors
    if bound:
        np.testing.assert_allclose(np.abs(got).max(), np.abs(ref).max(), rtol=0.01)


def test_apply_fn_kaiming_conv_fan_out_zeros_bias_constant():
    result, ref, got = run("""
def init_fn(m):
    if isinstance(m, (nn.Conv2d, nn.Conv1d)):
        nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
        nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Linear):
        nn.init.kaiming_uniform_(m.weight, a=0.1)
        torch.nn.init.constant_(m.bias, 0.5)
model.apply(init_fn)
""")
    assert "model.apply(init_fn)" in result.code
    assert "HeNormal(negative_slope=0, mode='fan_out', nonlinearity='relu')" in result.code
    for k in ("0.weight", "5.weight"):  # conv2d (64,32,3,3) fan_out = 64*9; conv1d (64,16,5) as (64,16,1,5)
        stats_match(ref[k], got[k].reshape(ref[k].shape))
    for k in ("3.weight", "4.weight"):
        stats_match(ref[k], got[k], bound=True)
    for k in ("0.bias", "5.bias", "3.bias", "4.bias"):
        np.testing.assert_array_equal(got[k], ref[k])
    assert ref["3.bias"][0] == 0.5


def test_named_parameters_loop_normal_uniform_trunc_and_modules_loop():
    _, ref, got = run("""
for name, p in model.named_parameters():
    if name.endswith('bias'):
        nn.init.uniform_(p, -0.2, 0.6)
    elif p.dim() == 2:
        nn.init.trunc_normal_(p, std=0.5, a=-0.4, b=0.4)
    else:
        nn.init.normal_(p, mean=0.0, std=0.02)
for m in model.modules():
    if isinstance(m, nn.Conv1d):
        nn.init.xavier_normal_(m.weight, gain=1.5)
""")
    stats_match(ref["0.weight"], got["0.weight"])
    stats_match(ref["5.weight"], got["5.weight"].reshape(ref["5.weight"].shape))
    for k in ("3.weight", "4.weight"):  # truncated at +-0.4 (absolute bounds in both frameworks)
        stats_match(ref[k], got[k])
        assert got[k].min() >= -0.4 and got[k].max() <= 0.4
    allb = np.concatenate([got[k] for k in got if k.endswith("bias")])
    assert allb.min() >= -0.2 and allb.max() <= 0.6 and allb.max() > 0.5 and allb.min() < -0.1


def test_xavier_uniform_orthogonal_eye_dirac_ones():
    _, ref, got = run("""
nn.init.xavier_uniform_(model[4].weight, gain=5.0 / 3)
nn.init.orthogonal_(model[0].weight, gain=2.0)
w = model[5].weight
nn.init.dirac_(w, 4)
nn.init.ones_(model[0].bias)
nn.init.eye_(model[3].weight)
""")
    stats_match(ref["4.weight"], got["4.weight"], bound=True)
    w = got["0.weight"].reshape(64, -1)
    np.testing.assert_allclose(w @ w.T, 4 * np.eye(64), atol=1e-4)
    np.testing.assert_array_equal(got["5.weight"].reshape(ref["5.weight"].shape), ref["5.weight"])
    np.testing.assert_array_equal(got["0.bias"], ref["0.bias"])
    np.testing.assert_array_equal(got["3.weight"], ref["3.weight"])


@pytest.mark.parametrize("code,reason", [
    ("nn.init.kaiming_normal_(model[0].weight, nonlinearity='selu')", "gain"),
    ("nn.init.zeros_(next(model.parameters()))", "written several times"),
    ("nn.init.normal_(model[0].weight, generator=g)", "Generator"),
    ("nn.init.kaiming_uniform_(model[0].weight, mode=m)", "mode"),
])
def test_refused(code, reason):
    result = convert_source(textwrap.dedent(HEAD) + "g = m = None\n" + code + "\n")
    hits = [u for u in result.unsupported if u.api.startswith("torch.nn.init.")]
    assert hits and reason in hits[0].reason, (result.unsupported, result.code)


def test_named_modules():
    _, ref, got = run("""
for name, m in model.named_modules():
    if name == '3':
        nn.init.zeros_(m.weight)
""")
    np.testing.assert_array_equal(got["3.weight"], ref["3.weight"])
    assert not ref["3.weight"].any()


def test_deprecated_aliases_without_underscore():
    """``init.kaiming_normal(w)`` (research code of 2017-2019: CBAM's ResNet): torch's deprecated aliases of the
    in-place initialisers, converted as those (they had no mapping: a marker, and the model did not build)."""
    _, ref, got = run("""
nn.init.kaiming_normal(model[0].weight, mode='fan_out')
nn.init.kaiming_uniform(model[3].weight)
nn.init.xavier_uniform(model[4].weight, gain=2.0)
nn.init.xavier_normal(model[5].weight)
nn.init.normal(model[0].bias, mean=0.5, std=0.1)
nn.init.uniform(model[3].bias, -0.3, 0.3)
nn.init.constant(model[4].bias, 0.25)
""")
    for k in ("0.weight", "3.weight"):
        stats_match(ref[k], got[k])
    assert 0.45 < got["0.bias"].mean() < 0.55 and 0.06 < got["0.bias"].std() < 0.14  # N(0.5, 0.1), 64 draws
    stats_match(ref["4.weight"], got["4.weight"], bound=True)
    stats_match(ref["5.weight"], got["5.weight"].reshape(ref["5.weight"].shape))
    assert got["3.bias"].min() >= -0.3 and got["3.bias"].max() <= 0.3
    np.testing.assert_array_equal(got["4.bias"], ref["4.bias"])
