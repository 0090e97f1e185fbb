"""torch.nn layers, containers and losses: converted code computes what torch computed."""
import pytest

from tests.api.cases import HEADER, layer_cases
from tests.harness import Case, assert_unsupported, rng_array, run_case

X4 = {"x": rng_array(2, 3, 8, 8)}
CASES = [
    *layer_cases("torch.nn.Conv2d", [
        "nn.Conv2d(3, 4, 3, 1, 1)",
        "nn.Conv2d(in_channels=3, out_channels=4, kernel_size=3, stride=1, padding=1)",
        "nn.Conv2d(kernel_size=3, padding=1, out_channels=4, in_channels=3)",
        "nn.Conv2d(3, 4, 3)",
        "nn.Conv2d(cin, cout, k, stride=s, padding=p, bias=b)",
        "nn.Conv2d(3, 4, (3, 5), padding=(1, 2), bias=False)",
        "nn.Conv2d(3, 4, 4, padding='same')",
        "nn.Conv2d(3, 6, 3, stride=2, padding='valid', groups=3, dilation=2)",
        # padding known only when it runs (timm's create_conv2d_pad): a pair, a mode
        "nn.Conv2d(3, 4, (3, 1), padding=pair)", "nn.Conv2d(3, 4, 3, padding=mode)", "nn.Conv2d(3, 4, 3, padding=k // 2)",
    ], prelude="cin, cout, k, s, p, b = 3, 4, 3, 2, 1, False\npair, mode = (1, 0), 'same'"),
    *layer_cases("torch.nn.Conv1d", [
        "nn.Conv1d(3, 4, 3, 1, 1)", "nn.Conv1d(in_channels=3, out_channels=4, kernel_size=3)",
        "nn.Conv1d(kernel_size=3, out_channels=4, in_channels=3, bias=False)", "nn.Conv1d(cin, cout, k, padding=p)",
        "nn.Conv1d(3, 4, 3, padding=one)", "nn.Conv1d(3, 4, 3, padding=mode)",
    ], shape=(2, 3, 16), prelude="cin, cout, k, p = 3, 4, 3, 2\none, mode = (1,), 'valid'"),
    *layer_cases("torch.nn.ConvTranspose2d", [
        "nn.ConvTranspose2d(3, 4, 2, 2)", "nn.ConvTranspose2d(in_channels=3, out_channels=4, kernel_size=2, stride=2)",
        "nn.ConvTranspose2d(stride=2, kernel_size=3, out_channels=4, in_channels=3, padding=1)",
        "nn.ConvTranspose2d(3, 4, 3)", "nn.ConvTranspose2d(cin, cout, k, stride=s, bias=False)",
    ], prelude="cin, cout, k, s = 3, 4, 2, 2"),
    *layer_cases("torch.nn.Linear", [
        "nn.Linear(5, 4)", "nn.Linear(in_features=5, out_features=4)", "nn.Linear(out_features=4, in_features=5)",
        "nn.Linear(5, 4, bias=False)", "nn.Linear(n_in, n_out, b)",
    ], shape=(3, 5), prelude="n_in, n_out, b = 5, 4, True"),
    # BatchNorm: one training-mode forward (batch statistics, running stats updated), then eval-mode forward
    # (running statistics): the second output shows the momentum conversion.
    *layer_cases("torch.nn.BatchNorm2d", [
        "nn.BatchNorm2d(3)", "nn.BatchNorm2d(num_features=3, eps=1e-3, momentum=0.3)",
        "nn.BatchNorm2d(momentum=0.3, num_features=3)", "nn.BatchNorm2d(3, 1e-5, 0.2, True, True)",
        "nn.BatchNorm2d(c, momentum=mom, affine=aff)", "nn.BatchNorm2d(3, track_running_stats=False)",
    ], prelude="c, mom, aff = 3, 0.25, False", run="train_out = m(x)\nm.eval()\nout = m(x + 1)",
        names=("train_out", "out"), rtol=1e-4, atol=1e-5,
        why_tolerance="batch variance is reduced in a different order (float32 rounding)"),
    # SyncBatchNorm outside a distributed job: batch statistics of the local batch, like BatchNorm2d
    *layer_cases("torch.nn.SyncBatchNorm", [
        "nn.SyncBatchNorm(3)", "nn.SyncBatchNorm(num_features=3, eps=1e-3, momentum=0.3)",
        "nn.SyncBatchNorm(3, track_running_stats=False)", "nn.SyncBatchNorm(3, process_group=None)",
    ], run="train_out = m(x)\nm.eval()\nout = m(x + 1)", names=("train_out", "out"), rtol=1e-4, atol=1e-5,
        why_tolerance="batch variance is reduced in a different order (float32 rounding)"),
    *layer_cases("torch.nn.BatchNorm1d", [
        "nn.BatchNorm1d(4)", "nn.BatchNorm1d(num_features=4, momentum=0.3)",
    ], shape=(6, 4), run="train_out = m(x)\nm.eval()\nout = m(x + 1)", names=("train_out", "out"),
        rtol=1e-4, atol=1e-5, why_tolerance="batch variance is reduced in a different order (float32 rounding)"),
    *layer_cases("torch.nn.GroupNorm", [
        "nn.GroupNorm(3, 6)", "nn.GroupNorm(num_groups=2, num_channels=6, eps=1e-3)",
        "nn.GroupNorm(num_channels=6, num_groups=3)", "nn.GroupNorm(g, c, affine=False)",
    ], shape=(2, 6, 5, 5), prelude="g, c = 2, 6", rtol=1e-4, atol=1e-5,
        why_tolerance="group variance is reduced in a different order (float32 rounding)"),
    *layer_cases("torch.nn.LayerNorm", [
        "nn.LayerNorm(8)", "nn.LayerNorm(normalized_shape=[8], eps=1e-3)", "nn.LayerNorm(eps=1e-6, normalized_shape=8)",
        "nn.LayerNorm((8,))", "nn.LayerNorm(d)",
    ], shape=(2, 5, 8), prelude="d = 8", rtol=1e-4, atol=1e-5,
        why_tolerance="variance is reduced in a different order (float32 rounding)"),
    *layer_cases("torch.nn.Dropout", ["nn.Dropout()", "nn.Dropout(0.3)", "nn.Dropout(p=0.2, inplace=True)"],
                 run="m.eval()\nout = m(x)"),
    *layer_cases("torch.nn.Dropout", ["nn.Dropout(0.5)"], shape=(64, 64), compare="shape"),
    *layer_cases("torch.nn.Dropout2d", ["nn.Dropout2d()", "nn.Dropout2d(0.3)", "nn.Dropout2d(p=0.1)"],
                 run="m.eval()\nout = m(x)"),
    *layer_cases("torch.nn.ReLU", ["nn.ReLU()", "nn.ReLU(inplace=True)", "nn.ReLU(True)"]),
    *layer_cases("torch.nn.ReLU6", ["nn.ReLU6()", "nn.ReLU6(inplace=True)"], inputs={"x": 4 * rng_array(3, 5)}),
    *layer_cases("torch.nn.Sigmoid", ["nn.Sigmoid()"]),
    *layer_cases("torch.nn.Tanh", ["nn.Tanh()"]),
    *layer_cases("torch.nn.SiLU", ["nn.SiLU()", "nn.SiLU(inplace=False)"]),
    *layer_cases("torch.nn.GELU", ["nn.GELU()", "nn.GELU(approximate='none')", "nn.GELU(approximate='tanh')",
                                   "nn.GELU('tanh')", "nn.GELU(approximate=mode)"], prelude="mode = 'tanh'"),
    *layer_cases("torch.nn.LeakyReLU", ["nn.LeakyReLU()", "nn.LeakyReLU(0.2)", "nn.LeakyReLU(negative_slope=0.1)",
                                        "nn.LeakyReLU(inplace=True, negative_slope=0.3)", "nn.LeakyReLU(slope)"],
                 prelude="slope = 0.05"),
    *layer_cases("torch.nn.Softmax", ["nn.Softmax(dim=1)", "nn.Softmax(1)", "nn.Softmax(-1)", "nn.Softmax(d)"],
                 prelude="d = 2"),
    # torch's implicit dim (no dim, dim=None, a variable holding None): 0 for a 1-, 3-D input, else 1
    *[c for shape in ((5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)) for c in layer_cases(
        "torch.nn.Softmax", ["nn.Softmax()", "nn.Softmax(dim=None)", "nn.Softmax(d)", "nn.Softmax(**params)"], shape,
        prelude="import warnings\nwarnings.simplefilter('ignore')\nd = None\nparams = {}", rtol=1e-6, atol=1e-7,
        why_tolerance="exp in another order (float32 rounding)")],
    *layer_cases("torch.nn.MaxPool2d", [
        "nn.MaxPool2d(2)", "nn.MaxPool2d(kernel_size=3, stride=2)", "nn.MaxPool2d(stride=1, kernel_size=2)",
        "nn.MaxPool2d(3, 2, 1)", "nn.MaxPool2d(k, padding=p)", "nn.MaxPool2d(3, 2, ceil_mode=True)",
        "nn.MaxPool2d(2, 2, 0, 1, False, True)",
    ], prelude="k, p = 3, 1", shape=(2, 3, 9, 9)),
    *layer_cases("torch.nn.AvgPool2d", [
        "nn.AvgPool2d(2)", "nn.AvgPool2d(kernel_size=3, stride=2)", "nn.AvgPool2d(stride=1, kernel_size=2)",
        "nn.AvgPool2d(3, 2, 1)", "nn.AvgPool2d(3, 2, 1, count_include_pad=False)", "nn.AvgPool2d(k)",
        "nn.AvgPool2d(3, 2, ceil_mode=True)",
    ], prelude="k = 4", shape=(2, 3, 9, 9)),
    *layer_cases("torch.nn.AdaptiveAvgPool2d", ["nn.AdaptiveAvgPool2d(1)", "nn.AdaptiveAvgPool2d((2, 4))",
                                               "nn.AdaptiveAvgPool2d(output_size=4)"]),
    *layer_cases("torch.nn.Flatten", ["nn.Flatten()", "nn.Flatten(2)", "nn.Flatten(start_dim=1, end_dim=2)",
                                      "nn.Flatten(end_dim=-2, start_dim=0)"]),
    *layer_cases("torch.nn.Identity", ["nn.Identity()", "nn.Identity(54)"]),
    *layer_cases("torch.nn.BCEWithLogitsLoss", [
        "nn.BCEWithLogitsLoss()", "nn.BCEWithLogitsLoss(reduction='sum')",
        "nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0]), reduction='none')",
    ], run="out = m(x, t)", inputs={"x": rng_array(4, 1, 3, 3), "t": (rng_array(4, 1, 3, 3, seed=1) > 0).astype("float32")}),
    *layer_cases("torch.nn.MSELoss", ["nn.MSELoss()", "nn.MSELoss(reduction='sum')"], run="out = m(x, t)",
                 inputs={"x": rng_array(4, 3), "t": rng_array(4, 3, seed=1)}),
    *layer_cases("torch.nn.L1Loss", ["nn.L1Loss()", "nn.L1Loss(reduction='none')"], run="out = m(x, t)",
                 inputs={"x": rng_array(4, 3), "t": rng_array(4, 3, seed=1)}),
    # containers and modules
    *layer_cases(("torch.nn.Sequential", "torch.nn.Conv2d", "torch.nn.ReLU"), [
        "nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU())", "nn.Sequential(*[nn.Conv2d(3, 4, 1), nn.ReLU()])",
    ]),
    Case(("torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.Module", "torch.nn.Module.forward"), HEADER + """
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 2), "b": nn.Linear(4, 1)})

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.heads["a"](x), self.heads["b"](x)

m = Net()
# @run
out = m(x)
again = m.forward(x)
""", names=("out", "again"), inputs={"x": rng_array(3, 4)}),
    # MindSpore's CellDict refuses these values (torchvision's IntermediateLayerGetter, a GPT's ModuleDict(h=...))
    Case(("torch.nn.ModuleDict", "torch.nn.ModuleList", "torch.nn.Sequential"), HEADER + """
class Getter(nn.ModuleDict):
    def __init__(self, layers, keep):
        super().__init__(layers)
        self.keep = keep

    def forward(self, x):
        out = {}
        for name, layer in self.items():
            x = layer(x)
            if name in self.keep:
                out[name] = x
        return out

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.get = Getter({"stem": nn.Sequential(nn.Linear(4, 4), nn.ReLU()), "fc": nn.Linear(4, 3)}, {"stem", "fc"})
        self.tr = nn.ModuleDict(dict(h=nn.ModuleList([nn.Linear(3, 3) for _ in range(2)])))
        self.tr.update({"ln": nn.Linear(3, 2), "gone": nn.Linear(3, 3)})
        self.tr.pop("gone")

    def forward(self, x):
        o = self.get(x)
        y = o["fc"]
        for layer in self.tr["h"]:
            y = layer(y)
        return o["stem"], self.tr["ln"](y), len(self.tr), "ln" in self.tr, list(self.tr.keys())

m = Net()
# @run
stem, out, n, has, keys = m(x)
""", names=("stem", "out", "n", "has", "keys"), inputs={"x": rng_array(3, 4)}),
    Case(("torch.nn.Parameter", "torch.nn.Module", "Module.forward"), HEADER + """
class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.alpha = nn.Parameter(torch.ones(3))
        self.beta = nn.Parameter(torch.zeros(3), requires_grad=False)

    def forward(self, x):
        return x * self.alpha + self.beta

m = Scale()
# @run
out = m.forward(x)
""", inputs={"x": rng_array(2, 3)}),
    Case(("torch.nn.Sequential",), HEADER + """
class Stack(nn.Sequential):
    def __init__(self):
        super().__init__(nn.Linear(4, 3), nn.Tanh())

m = Stack()
# @run
out = m(x)
""", inputs={"x": rng_array(2, 4)}),
    Case(("Module.train", "Module.eval"), HEADER + """
m = nn.Sequential(nn.Linear(4, 4), nn.BatchNorm1d(4))
# @run
m.eval()
a = m(x)
m.train()
b = m(x)
m.train(False)
c = m(x)
flag = m.training
""", names=("a", "b", "c", "flag"), inputs={"x": rng_array(5, 4)}, rtol=1e-4, atol=1e-5,
         why_tolerance="batch variance is reduced in a different order (float32 rounding)"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_layer(case):
    run_case(case)


@pytest.mark.parametrize("code,api,reason", [
    ("nn.Conv2d(3, 4, 3, padding_mode='reflect')", "torch.nn.Conv2d", "zero padding"),
    ("nn.BatchNorm2d(3, momentum=None)", "torch.nn.BatchNorm2d", "cumulative"),
    ("nn.LayerNorm(8, elementwise_affine=False)", "torch.nn.LayerNorm", "gamma and beta"),
    ("nn.LayerNorm([5, 8])", "torch.nn.LayerNorm", "input rank"),
    ("nn.ConvTranspose2d(3, 4, *ks)", "torch.nn.ConvTranspose2d", "cannot map"),  # no torch-signature base
    ("nn.Linear(3, 4, bogus=1)", "torch.nn.Linear", "unknown argument"),
])
def test_unsupported_layer_arguments(code, api, reason):
    assert_unsupported(HEADER + f"m = {code}\n", api, reason)


def test_subclassing_a_layer_with_renamed_arguments_and_no_base_helper_is_refused():
    # Conv2d has a torch-signature base class (tests/api/test_bases.py); ConvTranspose2d has none
    assert_unsupported(HEADER + "class C(nn.ConvTranspose2d):\n    pass\n", "torch.nn.ConvTranspose2d",
                       "super().__init__")


# Known torch.nn APIs that cannot be converted (mappings/nn_extra.toml, mappings/losses.toml): the marker says why.
@pytest.mark.parametrize("code,api,reason", [
    ("nn.Softplus()", "torch.nn.Softplus", "no Softplus cell"),
    ("nn.CosineSimilarity(dim=1)", "torch.nn.CosineSimilarity", "similarity matrix"),
    ("nn.PairwiseDistance()", "torch.nn.PairwiseDistance", "no PairwiseDistance"),
    ("nn.SoftMarginLoss()", "torch.nn.SoftMarginLoss", "no CPU kernel"),
    ("nn.TripletMarginLoss(margin=1.0)", "torch.nn.TripletMarginLoss", "no CPU kernel"),
])
def test_known_unsupported_layers(code, api, reason):
    assert_unsupported(HEADER + f"m = {code}\n", api, reason)

