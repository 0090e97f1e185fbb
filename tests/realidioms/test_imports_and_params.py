"""Idioms of real packages (torchvision, timm) that stopped converted models from importing or building: names
a module imports only for others to import from it (re-exports), torch.hub, and parameters reached by attribute
inside ``isinstance`` branches (``m.weight`` on a BatchNorm is ``m.gamma`` in MindSpore)."""
import subprocess
import sys
import textwrap

import numpy as np

from migrate import convert_source


def _run(code: str, tmp_path, name="mod.py", extra=None):
    (tmp_path / name).write_text(code)
    for fname, text in (extra or {}).items():
        (tmp_path / fname).write_text(text)
    return subprocess.run([sys.executable, "-c", f"import {name[:-3]}"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)


REEXPORTS = textwrap.dedent("""\
    try:
        from torch.hub import load_state_dict_from_url  # noqa: 401
    except ImportError:
        from torch.utils.model_zoo import load_url as load_state_dict_from_url  # noqa: 401
    from torch.hub import _get_torch_home
    from torch.nn import Identity
    HOME = _get_torch_home()
""")


def test_reexported_torch_names_stay_importable(tmp_path):
    """torchvision's _internally_replaced_utils.py imports load_state_dict_from_url for models/_api.py."""
    from migrate.api import convert_path

    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "utils.py").write_text(REEXPORTS)
    (src / "pkg" / "user.py").write_text(
        "from .utils import load_state_dict_from_url, Identity, HOME\n"
        "import os, torch\n"
        "def check():\n"
        "    assert HOME == os.path.expanduser(os.getenv('TORCH_HOME', os.path.join(os.getenv('XDG_CACHE_HOME', "
        "'~/.cache'), 'torch')))\n"
        "    try:\n        load_state_dict_from_url('https://x/y.pth')\n    except RuntimeError as e:\n"
        "        assert 'cannot download https://x/y.pth' in str(e) and 'msmigrate weights' in str(e)\n"
        "    else:\n        raise SystemExit('no error')\n"
        "    return Identity()\n")
    report = convert_path(src, tmp_path / "out")
    assert not report.errors
    utils = (tmp_path / "out" / "pkg" / "utils.py").read_text()
    assert "torch" not in "".join(line for line in utils.splitlines() if "import" in line), utils
    r = subprocess.run([sys.executable, "-c", "import mindspore, pkg.user as u; "
                        "assert isinstance(u.check(), mindspore.nn.Identity)"], cwd=tmp_path / "out",
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    again = convert_path(tmp_path / "out", tmp_path / "again")
    assert not again.errors
    assert (tmp_path / "again" / "pkg" / "utils.py").read_text() == utils  # idempotent


def test_a_dead_torch_import_in_a_script_just_goes():
    out = convert_source("from torch.utils.data import DataLoader\nfrom torch.nn import Identity\nx = 1\n", "s.py")
    assert not out.unsupported and out.code == "x = 1\n"


def test_torch_home_matches_torch():
    import torch.hub

    out = convert_source("from torch.hub import _get_torch_home\nHOME = _get_torch_home()\n", "h.py")
    ns = {}
    exec(compile(out.code, "h.py", "exec"), ns)
    assert ns["HOME"] == torch.hub._get_torch_home()


def test_reexport_without_mapping_is_kept_with_a_marker():
    out = convert_source("from torch.nn.modules.utils import _pair\n", "pkg/__init__.py")
    assert [u.api for u in out.unsupported] == ["torch.nn.modules.utils._pair"]
    assert "from torch.nn.modules.utils import _pair" in out.code


INIT = textwrap.dedent("""\
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c = nn.Conv2d(3, 4, 3)
            self.bn = nn.BatchNorm2d(4)
            self.gn = nn.GroupNorm(2, 4)
            self.ln = nn.LayerNorm(4)
            self.emb = nn.Embedding(5, 4)
            for m in self.modules():
                if isinstance(m, nn.Conv2d):
                    nn.init.constant_(m.weight, 0.5)
                elif isinstance(m, (nn.BatchNorm2d, nn.GroupNorm)):
                    nn.init.constant_(m.weight, 3)
                    nn.init.constant_(m.bias, -1)
                elif isinstance(m, nn.LayerNorm):
                    m.weight.data.fill_(2.0)
                    m.bias.data.zero_()
                elif isinstance(m, nn.Embedding):
                    nn.init.constant_(m.weight, 0.25)

        def forward(self, x):
            return self.bn(self.c(x))
""")


def _run_both(source: str, filename: str) -> tuple[dict, dict]:
    """Run ``source`` and its conversion (which must leave no marker); their module namespaces."""
    out = convert_source(source, filename)
    assert not out.unsupported, out.unsupported
    tns, mns = {}, {}
    exec(compile(source, "torch_" + filename, "exec"), tns)
    exec(compile(out.code, "ms_" + filename, "exec"), mns)
    return tns, mns


def test_parameters_by_attribute_in_isinstance_branches():
    """torchvision's ResNet / VGG-BN init loops: the converted Net builds and its parameters hold what torch's do."""
    from migrate.weights import mindspore_to_torch

    tns, mns = _run_both(INIT, "net.py")
    t, m = tns["Net"](), mns["Net"]()
    got = mindspore_to_torch(m, t)
    for k, v in t.state_dict().items():
        if k == "c.bias":  # random (not set by the loop)
            continue
        np.testing.assert_array_equal(np.asarray(got[k]), v.numpy(), err_msg=k)


DEVICES = textwrap.dedent("""\
    import torch
    from torch import nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 3)

        def forward(self, x):
            return self.fc(x)

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    gpu = "cpu"
    net = Net().to(device)
    net.to(gpu)
    net = net.cpu()
    net.to(device=device)
    x = torch.ones(2, 4).to(device)
    out = net(x.to(gpu))
""")


def test_device_placement_of_modules_and_tensors():
    """torch.device values, device strings and names bound to them: dropped where MindSpore places cells and
    tensors itself, on modules (Module.to / cuda / cpu) and tensors alike; the result computes what torch's does."""
    from migrate.weights import torch_to_mindspore

    out = convert_source(DEVICES, "train.py")
    assert not out.unsupported, out.unsupported
    assert ".to(" not in out.code and ".cpu()" not in out.code
    assert convert_source(DEVICES.replace("net.cpu()", "net.cuda()"), "t.py").code.count(".cuda(") == 0
    tns, mns = {}, {}
    torch_src = DEVICES.replace("out = net(x.to(gpu))", "")
    exec(compile(torch_src, "t.py", "exec"), tns)
    ms_src = out.code.replace("out = net(x)", "")
    exec(compile(ms_src, "m.py", "exec"), mns)
    torch_to_mindspore(tns["net"].state_dict(), mns["net"])
    np.testing.assert_allclose(mns["net"](mns["x"]).asnumpy(), tns["net"](tns["x"]).detach().numpy(), rtol=1e-6)


FAN_OUT = textwrap.dedent("""\
    import math
    import torch.nn as nn

    def fan_out(module: nn.Module) -> float:
        if isinstance(module, nn.Conv2d):
            fan = module.kernel_size[0] * module.kernel_size[1] * module.out_channels
            fan //= module.groups
            return math.sqrt(2.0 / fan)
        if isinstance(module, nn.Linear):
            return module.in_features * module.out_features

    fans = [fan_out(nn.Conv2d(4, 8, 3, groups=2)), fan_out(nn.Linear(3, 5))]
""")


def test_instance_attributes_in_isinstance_branches_of_statements_naming_no_torch_object():
    """timm's _init_weights: `fan //= module.groups` names nothing of torch's, yet under the narrowing it is
    Conv2d's `group` in MindSpore; the converted function computes torch's numbers."""
    tns, mns = _run_both(FAN_OUT, "init.py")
    assert mns["fans"] == tns["fans"]


CONV_NORM = textwrap.dedent("""\
    import torch
    from torch import nn

    class ConvNorm(nn.Module):
        def __init__(self, cin, cout, bn_weight_init=0.5):
            super().__init__()
            self.linear = nn.Conv2d(cin, cout, 1, bias=False)
            self.bn = nn.BatchNorm2d(cout)
            nn.init.constant_(self.bn.weight, bn_weight_init)
            self.fc = nn.Linear(4, 3)
            self.width = self.fc.out_features

        def fuse(self):
            return self.bn.weight / (self.bn.running_var + self.bn.eps) ** 0.5

        def forward(self, x):
            return self.bn(self.linear(x))

    m = ConvNorm(3, 4)
    width, scale = m.width, m.fuse()
""")


def test_attributes_of_layers_the_file_built():
    """timm's LeViT ConvNorm: ``self.bn.weight`` / ``running_var`` of ``self.bn = nn.BatchNorm2d(c)`` and
    ``self.fc.out_features`` are the MindSpore cell's gamma / moving_variance / out_channels, also in statements
    that name nothing of torch's; the converted values are torch's."""
    tns, mns = _run_both(CONV_NORM, "levit.py")
    assert mns["width"] == tns["width"]
    np.testing.assert_allclose(mns["scale"].asnumpy(), tns["scale"].detach().numpy(), rtol=1e-6)


DILATE = textwrap.dedent("""\
    import torch
    from torch import nn

    def replace_strides_with_dilation(module, dilation_rate):
        for mod in module.modules():
            if isinstance(mod, nn.Conv2d):
                mod.stride = (1, 1)
                mod.dilation = (dilation_rate, dilation_rate)
                kh, kw = mod.kernel_size
                mod.padding = ((kh // 2) * dilation_rate, (kw // 2) * dilation_rate)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(3, 4, 3, stride=2, padding=1), nn.ReLU(),
                                      nn.Conv2d(4, 2, 3, stride=2, padding=1))
            replace_strides_with_dilation(self.body, 2)

        def forward(self, x):
            return self.body(x)
""")


def test_conv_hyperparameters_set_after_construction():
    """smp's DeepLabV3 dilates its encoder by setting stride / dilation / padding on built convs: MindSpore's
    kernel took them at construction, so the converted assignments build it again; outputs equal torch's."""
    import mindspore as ms
    import torch

    from migrate.weights import torch_to_mindspore

    tns, mns = _run_both(DILATE, "dilate.py")
    t, m = tns["Net"](), mns["Net"]()
    torch_to_mindspore(t.state_dict(), m)
    x = np.random.default_rng(0).standard_normal((2, 3, 16, 16)).astype(np.float32)
    want = t(torch.from_numpy(x)).detach().numpy()
    got = m(ms.Tensor(x)).asnumpy()
    assert got.shape == want.shape == (2, 2, 16, 16)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
