"""Idioms of research GANs, language models and detectors (benchmarks/real_models.py --research: StyleGAN, the
attention-is-all-you-need Transformer, BERT, PaLM, mamba-minimal, YOLO / SSD / RetinaFace) that converted with no
marker and then failed in MindSpore. Each runs here in both frameworks through ``migrate.parity.compare`` (forward,
backward, weights copied by ``migrate.weights``) on a small model written for the test.

* Weight tying through containers (``net[-1].weight = net[0].weight``, ``self.prj.weight =
  self.decoder.emb.weight``) and subclasses of ``nn.Embedding``: MindSpore's Embedding names its table
  ``embedding_table``; the converted Embedding (helper ``embedding``) reads and sets it as ``weight`` too, takes
  torch's arguments, and gives ``padding_idx`` rows no gradient from the lookup, as torch does.
* An equalized learning rate (``del module._parameters[name]``, ``module.register_parameter(name + '_orig', ...)``,
  ``register_forward_pre_hook``) over a layer built as ``nn.Conv2d(*args, **kwargs)``: the Cell's dictionaries
  are ``_params`` / ``_cells``, ``register_parameter`` is ``insert_param_to_cell``, and a layer built from ``*args``
  takes the torch-signature class the table has for subclasses.
"""
import numpy as np

from migrate import convert_source


def _pair(source: str, build: str):
    """(torch model, MindSpore model, converted code) from ``source`` and the expression ``build``."""
    result = convert_source(source)
    assert not result.errors and not result.unsupported, (result.errors, result.unsupported, result.code)
    t_ns, m_ns = {"__name__": "torch_side"}, {"__name__": "ms_side"}
    exec(compile(source, "<torch>", "exec"), t_ns)
    exec(compile(result.code, "<mindspore>", "exec"), m_ns)
    import torch

    torch.manual_seed(0)
    return eval(build, t_ns), eval(build, m_ns), result.code


def _parity(tm, mm, inputs):
    from migrate.parity import compare

    report = compare(tm, mm, inputs, lines=False)
    assert report.passed, report.table(color=False)
    return report


TIED = """import torch
from torch import nn


class TokenEmbedding(nn.Embedding):
    def __init__(self, vocab_size, embed_size=8):
        super().__init__(vocab_size, embed_size, padding_idx=0)


class Decoder(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.emb = TokenEmbedding(n)
        self.mix = nn.Linear(8, 8)

    def forward(self, x):
        return torch.tanh(self.mix(self.emb(x)))


class LM(nn.Module):
    def __init__(self, n=12):
        super().__init__()
        self.decoder = Decoder(n)
        self.src = nn.Embedding(n, 8, padding_idx=-1)
        self.prj = nn.Linear(8, n, bias=False)
        self.prj.weight = self.decoder.emb.weight
        self.net = nn.Sequential(nn.Embedding(n, 8), nn.Linear(8, n))
        self.net[-1].weight = self.net[0].weight

    def forward(self, x):
        return self.prj(self.decoder(x) + self.src(x)), self.net(x)
"""


def test_embedding_weights_tied_through_containers_and_padding_rows():
    import torch

    tm, mm, code = _pair(TIED, "LM()")
    assert "class TokenEmbedding(_MsmigrateEmbedding)" in code and "self.net[-1].weight = self.net[0].weight" in code
    assert len(list(tm.parameters())) == len(mm.trainable_params()) == 6  # each tied table once, in both
    ids = np.array([[0, 3, 11, 5], [11, 0, 2, 2]], np.int64)  # padding rows 0 (decoder) and 11 (src, -1)
    _parity(tm, mm, [ids])
    tm.zero_grad()
    tm(torch.from_numpy(ids))[0].sum().backward()
    assert float(tm.src.weight.grad[11].abs().sum()) == 0.0  # torch: no gradient for the padding row
    import mindspore as ms

    grads = ms.grad(lambda x: mm(x)[0].sum(), None, [mm.src.weight])(ms.Tensor(ids))
    assert float(np.abs(grads[0].asnumpy()[11]).sum()) == 0.0
    np.testing.assert_allclose(grads[0].asnumpy(), tm.src.weight.grad.numpy(), rtol=1e-5, atol=1e-6)


EQUAL_LR = """from math import sqrt

import torch
from torch import nn


class EqualLR:
    def __init__(self, name):
        self.name = name

    def compute_weight(self, module):
        weight = getattr(module, self.name + '_orig')
        fan_in = weight.data.size(1) * weight.data[0][0].numel()
        return weight * sqrt(2 / fan_in)

    @staticmethod
    def apply(module, name):
        fn = EqualLR(name)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + '_orig', nn.Parameter(weight.data))
        module.register_forward_pre_hook(fn)
        return fn

    def __call__(self, module, input):
        weight = self.compute_weight(module)
        setattr(module, self.name, weight)


def equal_lr(module, name='weight'):
    EqualLR.apply(module, name)
    return module


class EqualConv2d(nn.Module):
    def __init__(self, *args, **kwargs):
        super().__init__()
        conv = nn.Conv2d(*args, **kwargs)
        self.conv = equal_lr(conv)

    def forward(self, input):
        return self.conv(input)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = EqualConv2d(3, 4, 3, padding=1)
        self.b = EqualConv2d(4, 2, kernel_size=1, bias=False)
        self.register_parameter('scale', nn.Parameter(torch.full((2,), 0.5)))

    def forward(self, x):
        return self.b(torch.relu(self.a(x))).mean((2, 3)) * self.scale
"""


def test_equalized_learning_rate_hook_over_a_conv_built_from_star_args():
    tm, mm, code = _pair(EQUAL_LR, "Net()")
    assert "del module._params[name]" in code and ".insert_param_to_cell(" in code, code
    assert "conv = _MsmigrateConv2d(*args, **kwargs)" in code, code
    names = sorted(n for n, _ in tm.named_parameters())
    assert names == ["a.conv.bias", "a.conv.weight_orig", "b.conv.weight_orig", "scale"], names
    assert sorted(n for n, _ in mm.parameters_and_names()) == names
    _parity(tm, mm, [np.random.default_rng(0).standard_normal((2, 3, 6, 6)).astype(np.float32)])


def test_parity_copies_a_model_whose_hook_holds_a_computed_weight():
    """The float64 reference deep-copies the torch model; after one forward an equalized-learning-rate hook has set
    ``module.weight`` to a tensor computed from ``weight_orig`` (a non-leaf torch refuses to copy). The copy holds
    it detached, and its hook computes it again in float64 (parity/reference.py ``_deepcopy_module``)."""
    import torch

    from migrate.parity.reference import _deepcopy_module

    ns = {"__name__": "torch_side"}
    exec(compile(EQUAL_LR, "<torch>", "exec"), ns)
    net = ns["Net"]()
    net(torch.ones(1, 3, 4, 4))
    assert net.a.conv.weight.grad_fn is not None  # what copy.deepcopy refuses
    ref = _deepcopy_module(net).double()
    out = ref(torch.ones(1, 3, 4, 4, dtype=torch.float64))
    assert out.dtype == torch.float64 and ref.a.conv.weight.dtype == torch.float64
    torch.testing.assert_close(out.float(), net(torch.ones(1, 3, 4, 4)), rtol=1e-5, atol=1e-6)


def test_a_torch_library_import_is_a_marker():
    """``import torchvision.models._utils as _utils`` (RetinaFace's IntermediateLayerGetter over a converted
    backbone): torchvision is torch code, so its use inside a converted model broke only when built. A marker at
    each import of it."""
    result = convert_source("import torch\nimport torchvision.models._utils as _utils\nfrom torchvision import models\n"
                            "class A(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                            "        import torchvision.models as m2\n"
                            "        self.b = _utils.IntermediateLayerGetter(models.resnet18(), {'layer1': 1})\n")
    assert sorted((u.api, u.line) for u in result.unsupported) == [("torchvision", 2), ("torchvision", 3),
                                                                   ("torchvision", 7)], result.unsupported
    compile(result.code, "<converted>", "exec")
