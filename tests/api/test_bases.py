"""torch layers used as base classes, as real model code writes them (timm's ``BatchNormAct2d(nn.BatchNorm2d)``
reading ``self.running_mean`` for ``F.batch_norm``, torchvision's ``LayerNorm2d(nn.LayerNorm)`` with no
``__init__``, ``Conv2dSame(nn.Conv2d)`` calling ``F.conv2d`` with ``self.stride`` / ``self.groups``): the base
becomes a helper subclassing the MindSpore cell with torch's constructor signature and attribute names (``base``
in the table). Each case builds the subclass, copies the weights, runs both frameworks and compares; the
BatchNorm cases also compare after ``.eval()`` so that the momentum shows in the running statistics."""
import pytest

from migrate import convert_source
from tests.api.cases import HEADER
from tests.harness import Case, rng_array, run_case

IMG = {"x": rng_array(2, 4, 8, 8)}

BN_ACT = """
class BatchNormAct2d(nn.BatchNorm2d):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, act=True):
        super().__init__(num_features, eps=eps, momentum=momentum, affine=affine,
                         track_running_stats=track_running_stats)
        self.act = nn.ReLU() if act else nn.Identity()

    def forward(self, x):
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked.add_(1)
        x = F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias, self.training, factor,
                         self.eps)
        return self.act(x)
"""
LN2D = """
class LayerNorm2d(nn.LayerNorm):
    def forward(self, x):
        x = x.permute(0, 2, 3, 1)
        x = F.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)
        return x.permute(0, 3, 1, 2)
"""
CONV_SAME = """
class Conv2dSame(nn.Conv2d):
    def __init__(self, cin, cout, k, stride=1, groups=1, bias=True):
        super().__init__(cin, cout, k, stride, 0, 1, groups, bias)

    def forward(self, x):
        x = F.pad(x, (1, 1, 1, 1))
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)
"""
TRANSITION = """
class Transition(nn.Sequential):  # torchvision's DenseNet: the layers are set as attributes, forward is Sequential's
    def __init__(self, cin, cout):
        super().__init__()
        self.norm = nn.BatchNorm2d(cin)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(cin, cout, kernel_size=1, stride=1, bias=False)
        self.pool = nn.AvgPool2d(kernel_size=2, stride=2)

class Stem(nn.Sequential):  # layers given to Sequential, then one more set as an attribute
    def __init__(self, cin):
        super().__init__(nn.Conv2d(cin, 6, 3, padding=1))
        self.act = nn.Hardtanh(-0.5, 0.5)
"""
PLAIN = """
class Norm(nn.GroupNorm):
    pass

class Head(nn.Linear):
    def forward(self, x):
        return super().forward(x) * self.out_features
"""
CASES = [
    Case(("torch.nn.BatchNorm2d", "torch.nn.functional.batch_norm"), HEADER + BN_ACT + """
m = BatchNormAct2d(4, momentum=0.3)
# @run
train_out = m(x)
m.eval()
out = m(x + 1)
""", names=("train_out", "out"), inputs=IMG, rtol=1e-4, atol=1e-5, id="BatchNormAct2d",
         why_tolerance="batch variance is reduced in a different order (float32 rounding)"),
    Case(("torch.nn.BatchNorm2d",), HEADER + "class BN(nn.BatchNorm2d):\n    pass\n" + """
m = BN(4, 1e-3, 0.5)
# @run
train_out = m(x)
m.eval()
out = m(x)
""", names=("train_out", "out"), inputs=IMG, rtol=1e-4, atol=1e-5, id="BatchNorm2d subclass, torch's forward",
         why_tolerance="batch variance is reduced in a different order (float32 rounding)"),
    Case(("torch.nn.LayerNorm", "torch.nn.functional.layer_norm"), HEADER + LN2D + """
import functools
m = functools.partial(LayerNorm2d, eps=1e-6)(4)
# @run
out = m(x)
""", inputs=IMG, rtol=1e-5, atol=1e-5, id="LayerNorm2d", why_tolerance="a reduction in another order (float32 rounding)"),
    Case(("torch.nn.Conv2d", "torch.nn.functional.conv2d"), HEADER + CONV_SAME + """
m = Conv2dSame(4, 6, 3, stride=2, groups=2)
# @run
out = m(x)
""", inputs=IMG, rtol=1e-5, atol=1e-5, id="Conv2dSame", why_tolerance="a convolution summed in another order"),
    Case(("torch.nn.Sequential",), HEADER + TRANSITION + """
t = Transition(4, 6)
stem = Stem(4)
# @run
out = t(x)
out_stem = stem(x)
""", names=("out", "out_stem"), inputs=IMG, rtol=1e-4, atol=1e-5, id="Sequential subclass with attribute layers",
         why_tolerance="batch variance and a convolution reduced in another order (float32 rounding)"),
    Case(("torch.nn.GroupNorm", "torch.nn.Linear"), HEADER + PLAIN + """
norm = Norm(2, 4)
head = Head(8, 3, bias=False)
# @run
out = head(norm(x))
""", inputs=IMG, rtol=1e-5, atol=1e-5, id="GroupNorm and Linear subclasses",
         why_tolerance="a reduction in another order (float32 rounding)"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_subclass_of_a_layer(case):
    out = run_case(case)
    assert "_Msmigrate" in out  # the base is the helper, not the MindSpore cell with torch's arguments


def test_a_base_without_a_helper_is_still_refused():
    result = convert_source(HEADER + "class P(nn.MaxPool2d):\n    pass\n")
    assert any(u.api == "torch.nn.MaxPool2d" and "super().__init__" in u.reason for u in result.unsupported)
