"""Module methods real model code calls on its cells (torchvision's DenseNet and RegNet build their blocks with
``add_module``; EfficientNet's init loop reads ``m.out_features`` of its Linear layers)."""
import pytest

from tests.api.cases import HEADER
from tests.harness import Case, rng_array, run_case

BLOCK = HEADER + """
class Block(nn.ModuleDict):
    def __init__(self, n):
        super().__init__()
        for i in range(n):
            self.add_module("layer%d" % (i + 1), nn.Linear(4, 4))
        stage = ("extra", nn.Identity())
        self.add_module(*stage)  # timm's ResNet: for stage in stage_modules: self.add_module(*stage)

    def forward(self, x):
        for _, layer in self.items():
            x = layer(x)
        return x


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_module("head", nn.Linear(4, 2))
        self.add_module("block", Block(2))
        for m in self.modules():
            if isinstance(m, nn.Linear):
                nn.init.constant_(m.weight, 1.0 / m.out_features)
                nn.init.constant_(m.bias, 0.01 * m.in_features)

    def forward(self, x):
        return self.head(self.block(x))


m = Net()
"""

# torchvision's DenseNet: features = nn.Sequential(...) then features.add_module(...); _Transition(nn.Sequential)
SEQUENTIAL = HEADER + """
class Transition(nn.Sequential):
    def __init__(self):
        super().__init__()
        self.add_module("fc", nn.Linear(4, 3))
        self.add_module("relu", nn.ReLU())


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(4, 4))
        self.features.add_module("block1", nn.Linear(4, 4))
        self.features.add_module("transition1", Transition())

    def forward(self, x):
        return self.features(x)


m = Net()
"""

CASES = [
    Case(("Module.add_module", "Module.register_module", "torch.nn.Linear"), BLOCK + "# @run\nout = m(x)\n",
         inputs={"x": rng_array(3, 4)}, id="add_module / register_module / Linear.out_features"),
    Case(("Module.add_module", "torch.nn.Sequential"), SEQUENTIAL + "# @run\nout = m(x)\n",
         inputs={"x": rng_array(3, 4)}, id="add_module on a Sequential"),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_module_methods(case):
    code = run_case(case)
    assert "_msmigrate_add_module(self" in code
    if "out_features" in case.code:
        assert "m.out_channels" in code and "m.in_channels" in code


# a module's own parameters (recurse=False: accelerate's and timm's per-module loops) and all of them, by name
OWN = HEADER + """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.full((4,), 0.5))
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(x * self.scale)


m = Net()
"""
RECURSE = [
    Case("Module.parameters", OWN + "# @run\nout = [p.sum() for p in m.parameters(recurse=False)]\n", id="parameters(recurse=False)"),
    Case("Module.parameters", OWN + "# @run\nr = False\nout = [tuple(p.shape) for p in m.fc.parameters(r)]\n",
         id="parameters(r)"),
    Case("Module.parameters", OWN + "# @run\nout = len(list(m.parameters(recurse=True)))\n", id="parameters(recurse=True)"),
    Case("Module.named_parameters", OWN + "# @run\nout = [n for n, _ in m.named_parameters(recurse=False)]\n",
         id="named_parameters(recurse=False)"),
    Case("Module.named_parameters", OWN + "# @run\nout = [n for n, _ in m.fc.named_parameters(recurse=False)]\n",
         id="named_parameters(recurse=False) of a Linear"),
    Case("Module.named_parameters", OWN + "# @run\nout = [n for n, _ in m.named_parameters('net', False)]\n",
         id="named_parameters(prefix, False)"),
    Case("Module.named_parameters", OWN + "# @run\nout = [n for n, _ in m.named_parameters(prefix='net')]\n",
         id="named_parameters(prefix=)"),
]
CASES = CASES + RECURSE  # a new list: test_module_methods keeps its own cases


@pytest.mark.parametrize("case", RECURSE, ids=lambda c: c.id)
def test_own_parameters(case):
    run_case(case)


# what a script observes of buffers and frozen parameters (the naming layer of docs/training_parameters.md):
# torch's names and order; num_batches_tracked has no MindSpore counterpart and is left out on the torch side
BUFFERED = HEADER + """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.bn = nn.BatchNorm1d(4)
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(self.bn(x))


m = Net()
"""
OBSERVED = [
    Case("Module.named_buffers", BUFFERED + "# @run\nout = [n for n, _ in m.named_buffers() if 'num_batches' not in n]\n",
         id="named_buffers: names and order"),
    Case("Module.named_buffers", BUFFERED + "# @run\nout = [n for n, _ in m.named_buffers('net') if 'num_batches' not in n]\n",
         id="named_buffers(prefix)"),
    Case("Module.buffers", BUFFERED + "# @run\nout = [b.sum() for b in m.buffers() if b.dim() > 0]\n",
         id="buffers: values"),
    Case(("Module.requires_grad_", "Module.named_parameters"),
         BUFFERED + "# @run\nm.requires_grad_(False)\nm.fc.requires_grad_(True)\n"
         "out = [n for n, p in m.named_parameters() if p.requires_grad]\n", id="requires_grad_ on modules"),
]
CASES = CASES + OBSERVED


@pytest.mark.parametrize("case", OBSERVED, ids=lambda c: c.id)
def test_observed_buffers_and_frozen_parameters(case):
    run_case(case)
