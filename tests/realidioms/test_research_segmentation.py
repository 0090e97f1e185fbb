"""Idioms of the segmentation / medical / classification research repositories (benchmarks/real_models.py
--research: pytorch-semseg, CSAIL semantic-segmentation, HRNet, TransUNet, MedT, deeplab-pytorch, PIDNet,
pytorch-3dunet, Attention-Gated-Networks, bubbliiiing's unet, Cadene's pretrained-models), each run in both
frameworks on a small snippet written for the test.

* ``if torch.__version__.startswith('0'): ... else: BatchNorm2d = torch.nn.SyncBatchNorm`` (HRNet's bn_helper):
  a method of a value the table maps (``torch.__version__``) was looked up as an API of its own and marked, so the
  file kept ``import torch`` and the model its torch layers. The method is now called on the mapped value.
"""
from migrate import convert_source
from tests.api.cases import HEADER
from tests.harness import Case, rng_array, run_case

VERSION_GATE = HEADER + """

if torch.__version__.startswith('0'):
    Norm = nn.BatchNorm2d
    scale = 0.0
else:
    Norm = torch.nn.SyncBatchNorm
    scale = float(torch.__version__.split('.')[0])


m = Norm(3, momentum=0.2)
# @run
out = m(x) * scale
"""


def test_a_method_of_a_mapped_value_is_called_on_its_mindspore_form():
    case = Case(("torch.__version__", "torch.nn.SyncBatchNorm"), VERSION_GATE, inputs={"x": rng_array(2, 3, 4, 4)},
                rtol=1e-4, atol=1e-5, id="torch.__version__.startswith",
                why_tolerance="batch variance is reduced in a different order (float32 rounding)")
    out = run_case(case)
    assert "_MsmigrateTorchVersion('2.13.0').startswith('0')" in out, out
    assert "import torch\n" not in out, out


PER_AXIS_DEFAULT = HEADER + """

class Stem(nn.Module):  # BNInception: every pool written with the full signature
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d((3, 3), stride=(2, 2), dilation=(1, 1), ceil_mode=True)

    def forward(self, x):
        return self.pool(x)


m = Stem()
# @run
out = m(x)
"""


def test_a_default_written_per_axis_is_accepted():
    """``dilation=(1, 1)`` is torch's default given per axis: the entry allows ``dilation=1`` only, and the text
    comparison marked the pool, so BNInception could not be built. An allowed integer per axis is allowed."""
    case = Case("torch.nn.MaxPool2d", PER_AXIS_DEFAULT, inputs={"x": rng_array(1, 2, 9, 9)}, id="dilation=(1, 1)")
    out = run_case(case)
    assert "dilation" not in out.split("class Stem")[1], out
    result = convert_source(HEADER + "p = nn.MaxPool2d(3, dilation=(1, 2))\n")
    assert [u.api for u in result.unsupported] == ["torch.nn.MaxPool2d"], result.unsupported


UNPOOL_KEYWORDS = HEADER + """

class Down(nn.Module):  # pytorch-semseg's SegNet: the layers called with torch's forward keywords
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool2d(2, 2, return_indices=True)
        self.unpool = nn.MaxUnpool2d(2, 2)
        self.bn = nn.BatchNorm2d(2)

    def forward(self, x):
        shape = x.size()
        y, indices = self.pool(input=x)
        y = self.bn(input=y)
        return self.unpool(input=y, indices=indices, output_size=shape)


m = Down()
# @run
out = m(x)
"""


def test_layers_called_with_torch_forward_keywords():
    """``self.unpool(input=x, indices=i, output_size=s)``: the generated Cells that stand for torch layers take
    torch's forward parameter names (MaxUnpool2d's ``construct(self, x, ...)`` raised TypeError on ``input=``), and
    ``input=`` given to a layer the file built goes first, positionally (MindSpore's cells name it ``x``)."""
    case = Case(("torch.nn.MaxUnpool2d", "torch.nn.MaxPool2d", "torch.nn.BatchNorm2d"), UNPOOL_KEYWORDS,
                inputs={"x": rng_array(1, 2, 8, 8)}, rtol=1e-4, atol=1e-5, id="forward keywords",
                why_tolerance="batch variance is reduced in a different order (float32 rounding)")
    out = run_case(case)
    assert "self.bn(y)" in out and "self.pool(x)" in out, out


BY_CLASS_NAME = HEADER + """

class Net(nn.Module):  # CSAIL's ResnetDilated: strides turned into dilations after the build, by class name
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 4, 3, stride=2, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.conv2 = nn.Conv2d(4, 4, 3, padding=1)
        self.head = nn.Linear(4, 2)
        self.apply(self._nostride_dilate)
        self.apply(init_weights)

    def _nostride_dilate(self, m):
        classname = m.__class__.__name__
        if classname.find('Conv') != -1:
            if m.stride == (2, 2):
                m.stride = (1, 1)
                if m.kernel_size == (3, 3):
                    m.dilation = (2, 2)
                    m.padding = (2, 2)
            elif m.kernel_size == (3, 3):
                m.dilation = (4, 4)
                m.padding = (4, 4)

    def forward(self, x):
        return self.conv2(self.bn(self.conv1(x))).mean((2, 3)) @ self.head.weight.t()


def init_weights(m):
    if 'BatchNorm2d' in type(m).__name__:
        m.weight.data.fill_(2.0)
        m.bias.data.fill_(0.5)


m = Net()
# @run
out = m(x)
"""


def test_layers_picked_by_class_name():
    """``classname = m.__class__.__name__; if classname.find('Conv') != -1: m.stride = (1, 1)`` (CSAIL's
    ``_nostride_dilate``; weights_init functions test ``'BatchNorm' in classname`` the same way): the branch is
    narrowed to the torch layers whose class name passes the test, as an isinstance test is, so a Conv2d's stride,
    padding and dilation build its kernel again and a BatchNorm's ``weight`` is its ``gamma``. Before, the
    statements were left as written: MindSpore's kernel kept the stride it was built with (silent)."""
    case = Case(("torch.nn.Conv2d", "torch.nn.BatchNorm2d"), BY_CLASS_NAME, inputs={"x": rng_array(2, 3, 16, 16)},
                rtol=1e-4, atol=1e-5, id="layers by class name",
                why_tolerance="batch variance and convolutions reduced in another order (float32 rounding)")
    out = run_case(case)
    assert '_msmigrate_conv_set(m, "stride", (1, 1))' in out and "m.gamma" in out, out


def test_a_transposed_convolution_called_with_an_output_size_is_a_marker():
    """``self.up(x, output_size=s)``: the layer is built as MindSpore's Conv2dTranspose, whose construct takes the
    input only; it raised TypeError when it ran, with no marker (silent at convert)."""
    result = convert_source(HEADER + """

class Up(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(2, 2, 3, stride=2, padding=1)

    def forward(self, x, skip):
        return self.up(x, output_size=skip.size())
""")
    assert [u.api for u in result.unsupported] == ["torch.nn.ConvTranspose2d.forward(output_size=...)"], \
        result.unsupported


STD_CONV = HEADER + """

class StdConv2d(nn.Conv2d):  # TransUNet's ResNetV2: weight standardisation in forward
    def forward(self, x):
        w = self.weight
        v, m = torch.var_mean(w, dim=[1, 2, 3], keepdim=True, unbiased=False)
        w = (w - m) / torch.sqrt(v + 1e-5)
        return F.conv2d(x, w, self.bias, self.stride, self.padding, self.dilation, self.groups)


m = StdConv2d(3, 4, 3, padding=1, bias=False)
# @run
out = m(x)
s = torch.std(x, [2, 3]) + torch.var(x, dim=[1], keepdim=True).mean()
"""


def test_a_variance_over_a_list_of_dims():
    """``torch.var_mean(w, dim=[1, 2, 3], ...)``: MindSpore's reductions refuse a list of axes ("Each axis should
    be integer"); a literal list becomes a tuple (std, var, var_mean, std_mean: the rule they share)."""
    case = Case(("torch.var_mean", "torch.std", "torch.var"), STD_CONV, names=("out", "s"),
                inputs={"x": rng_array(2, 3, 6, 6)}, rtol=1e-4, atol=1e-5, id="dim list",
                why_tolerance="a reduction in another order (float32 rounding)")
    out = run_case(case)
    assert "axis=(1, 2, 3)" in out, out


def test_a_class_name_test_matching_layers_named_differently_is_a_marker():
    """``classname.find('BatchNorm') != -1: init.normal_(m.weight.data, ...)`` (Attention-Gated-Networks): the
    name passes BatchNorm2d (``gamma``) and BatchNorm3d (``bn2d.gamma``); no one spelling is right, so the use is
    marked instead of left as ``m.weight`` (an AttributeError when the model was built, with no marker)."""
    result = convert_source(HEADER + """from torch.nn import init


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find('BatchNorm') != -1:
        init.normal_(m.weight.data, 1.0, 0.02)
    elif classname.find('BatchNorm2d') != -1:
        init.constant_(m.bias.data, 0.0)
""")
    assert [u.line for u in result.unsupported] == [10], result.unsupported
    assert "m.beta.set_data(" in result.code, result.code
