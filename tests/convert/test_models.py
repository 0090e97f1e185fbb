"""Whole models: convert a U-Net and a ResNet-style classifier, copy the weights, compare outputs in eval mode."""
import numpy as np
import pytest

from migrate import convert_source
from migrate.weights import torch_to_mindspore
from tests.convert.models import RESNET, UNET


def _load(code, name):
    ns = {"__name__": name}
    exec(compile(code, f"<{name}>", "exec"), ns)
    return ns


def _randomise_bn_stats(model):
    import torch

    g = torch.Generator().manual_seed(1)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.copy_(torch.randn(m.num_features, generator=g) * 0.1)
            m.running_var.copy_(torch.rand(m.num_features, generator=g) + 0.5)


@pytest.mark.parametrize("source,cls,kwargs,shape", [
    (UNET, "UNet", {"in_channels": 3, "n_classes": 2}, (2, 3, 32, 32)),
    (RESNET, "ResNet", {"num_classes": 10}, (2, 3, 32, 32)),
])
def test_converted_model_matches_torch(source, cls, kwargs, shape):
    import mindspore as ms
    import torch

    result = convert_source(source)
    assert not result.unsupported and not result.errors, result.unsupported
    assert "import torch" not in result.code and "from torch" not in result.code
    torch.manual_seed(0)
    t_model = _load(source, "t")[cls](**kwargs).eval()
    with torch.no_grad():
        _randomise_bn_stats(t_model)
    m_model = _load(result.code, "m")[cls](**kwargs)
    m_model.set_train(False)
    torch_to_mindspore(t_model.state_dict(), m_model)
    x = np.random.default_rng(0).standard_normal(shape).astype("float32")
    with torch.no_grad():
        expected = t_model(torch.from_numpy(x)).numpy()
    got = m_model(ms.Tensor(x)).asnumpy()
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("source", [UNET, RESNET])
def test_conversion_is_idempotent(source):
    once = convert_source(source).code
    twice = convert_source(once)
    assert twice.code == once
    assert twice.api_calls == 0 or not twice.unsupported


def test_comments_and_layout_survive():
    code = convert_source(UNET).code
    assert '"""A small U-Net."""' in code
    assert "# in-place is a torch memory detail" in code
    assert "    def construct(self, x):" in code
    assert "self.block = nn.SequentialCell(\n            nn.Conv2d(" in code
