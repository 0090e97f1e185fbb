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
    # HRNet's bn_helper: ``BatchNorm2d = torch.nn.SyncBatchNorm`` (a value), then built with torch's keywords
    Case(("torch.nn.SyncBatchNorm",), HEADER + """
BatchNorm2d = torch.nn.SyncBatchNorm
m = BatchNorm2d(4, momentum=0.3)
# @run
train_out = m(x)
m.eval()
out = m(x + 1) * m.weight.reshape(1, -1, 1, 1) + m.running_mean.reshape(1, -1, 1, 1)
""", names=("train_out", "out"), inputs=IMG, rtol=1e-4, atol=1e-5, id="SyncBatchNorm as a value",
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

# torchvision's video resnet: Conv3DSimple(nn.Conv3d) with torch's keywords through super().__init__, and a 1-D
# subclass reading torch's attribute names
CONV3D = """
class Conv3DSimple(nn.Conv3d):
    def __init__(self, in_planes, out_planes, midplanes=None, stride=1, padding=1):
        super().__init__(in_channels=in_planes, out_channels=out_planes, kernel_size=(3, 3, 3), stride=stride,
                         padding=padding, bias=False)

    @staticmethod
    def get_downsample_stride(stride):
        return stride, stride, stride


class Conv1dTagged(nn.Conv1d):
    def forward(self, x):
        return super().forward(x) * self.kernel_size[0] + self.padding[0] + self.groups
"""
CASES += [
    Case("torch.nn.Conv3d", HEADER + CONV3D + """
m = Conv3DSimple(4, 6, stride=Conv3DSimple.get_downsample_stride(2))
# @run
out = m(x)
""", inputs={"x": rng_array(2, 4, 5, 6, 6)}, rtol=1e-5, atol=1e-5, id="Conv3DSimple",
         why_tolerance="a convolution summed in another order"),
    Case("torch.nn.Conv1d", HEADER + CONV3D + """
m = Conv1dTagged(4, 6, 3, padding=1, groups=2)
# @run
out = m(x)
""", inputs={"x": rng_array(2, 4, 10)}, rtol=1e-5, atol=1e-5, id="Conv1d subclass reading torch's attributes",
         why_tolerance="a convolution summed in another order"),
]

# timm's layers/pool2d_same.py (the padding written out): torch's arguments through super().__init__, then
# F.max_pool2d / F.avg_pool2d with the attributes torch keeps
POOLS = """
class MaxPool2dSame(nn.MaxPool2d):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
        kernel_size = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
        stride = (stride, stride) if isinstance(stride, int) else stride
        super().__init__(kernel_size, stride, (0, 0), (1, 1), ceil_mode)

    def forward(self, x):
        x = F.pad(x, (0, 1, 0, 1), value=-float('inf'))
        return F.max_pool2d(x, self.kernel_size, self.stride, (0, 0), self.dilation, self.ceil_mode)


class AvgPool2dSame(nn.AvgPool2d):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__(kernel_size, stride, (0, 0), ceil_mode, count_include_pad)

    def forward(self, x):
        x = F.pad(x, (0, 1, 0, 1))
        return F.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)


class PlainMax(nn.MaxPool2d):
    pass


class PlainAvg(nn.AvgPool2d):
    pass
"""
CASES += [
    Case("torch.nn.MaxPool2d", HEADER + POOLS + """
a, b, c = MaxPool2dSame(3, 2), PlainMax(3, 2, 1), PlainMax(2)
# @run
out = (a(x), b(x), c(x), a.stride, c.stride)
""", inputs=IMG, id="MaxPool2d subclasses"),
    Case("torch.nn.AvgPool2d", HEADER + POOLS + """
a, b, c = AvgPool2dSame(3, 2), PlainAvg(3, 2, 1, count_include_pad=False), PlainAvg(2, ceil_mode=True)
# @run
out = (a(x), b(x), c(x), a.kernel_size, c.stride)
""", inputs={"x": rng_array(2, 4, 7, 7)}, rtol=1e-6, atol=1e-6, id="AvgPool2d subclasses",
         why_tolerance="a mean in another order (float32 rounding)"),
]

# segmentation_models_pytorch's utils/losses.py: torch losses mixed with its own Loss(BaseObject(nn.Module)) class
LOSSES = """
class BaseObject(nn.Module):
    def __init__(self, name=None):
        super().__init__()
        self._name = name


class Loss(BaseObject):
    pass


class L1Loss(nn.L1Loss, Loss):
    pass


class MSELoss(nn.MSELoss, Loss):
    pass


class NLLLoss(nn.NLLLoss, Loss):
    pass


class BCELoss(nn.BCELoss, Loss):
    pass


class BCEWithLogitsLoss(nn.BCEWithLogitsLoss, Loss):
    pass


class CrossEntropyLoss(nn.CrossEntropyLoss, Loss):
    pass
"""
_LOSS_IN = {"x": rng_array(4, 3), "y": rng_array(4, 3, seed=1), "t": (rng_array(4, 3, seed=2) > 0).astype("float32"),
            "labels": rng_array(4, dtype="int64", low=0, high=3, seed=3)}
CASES += [
    Case(("torch.nn.L1Loss", "torch.nn.MSELoss", "torch.nn.NLLLoss", "torch.nn.BCELoss", "torch.nn.BCEWithLogitsLoss",
          "torch.nn.CrossEntropyLoss"),
         HEADER + LOSSES + """
pw = torch.tensor([1.0, 2.0, 0.5])
# @run
out = (L1Loss()(x, y), L1Loss(reduction='sum')(x, y), MSELoss(size_average=False)(x, y), MSELoss(reduce=False)(x, y),
       NLLLoss()(F.log_softmax(x, dim=1), labels), NLLLoss(ignore_index=1, reduction='sum')(F.log_softmax(x, 1), labels),
       BCELoss()(torch.sigmoid(x), t), BCEWithLogitsLoss(pos_weight=pw)(x, t), BCEWithLogitsLoss(reduction='none')(x, t),
       CrossEntropyLoss()(x, labels), CrossEntropyLoss(label_smoothing=0.1, ignore_index=0)(x, labels),
       CrossEntropyLoss(reduction='none')(x, F.softmax(y, 1)), isinstance(L1Loss(), Loss))
""", inputs=_LOSS_IN, rtol=1e-5, atol=1e-6, id="smp's loss subclasses",
         why_tolerance="log / exp and a mean in another order (float32 rounding)"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_subclass_of_a_layer(case):
    out = run_case(case)
    assert "_Msmigrate" in out  # the base is the helper, not the MindSpore cell with torch's arguments


def test_a_base_without_a_helper_is_still_refused():
    result = convert_source(HEADER + "class P(nn.Upsample):\n    pass\n")
    assert any(u.api == "torch.nn.Upsample" and "super().__init__" in u.reason for u in result.unsupported)
