"""The rewriter context on the shapes real code takes: scopes, tensor-ness, imports, markers, one bad file.

Each case is `before -> after` on the converter's output; where the question is "does the converted file still
import", the output is executed with MindSpore.
"""
from __future__ import annotations

import json
import textwrap

import pytest

from migrate import convert_path, convert_source
from migrate.cli import main
from migrate.core import pipeline


def conv(src: str, **kw):
    return convert_source(textwrap.dedent(src), **kw)


def run_ms(code: str) -> dict:
    ns: dict = {}
    exec(compile(code, "<converted>", "exec"), ns)
    return ns


def test_kept_torch_import_never_shadows_mindspore():
    r = conv("""
        import torch
        import torch.nn as nn

        class Net(nn.Module):
            def __init__(self, kind="ReLU"):
                super().__init__()
                self.fc = nn.Linear(4, 2)
                self.act = getattr(nn, kind)()

            def forward(self, x):
                return self.act(self.fc(x))
        """)
    assert "from torch import nn as torch_nn  # msmigrate: kept" in r.code
    assert "getattr(torch_nn, kind)()" in r.code and "class Net(nn.Cell)" in r.code
    assert [u.api for u in r.unsupported] == ["torch.nn"]
    ns = run_ms(r.code)  # imports and builds: nn is MindSpore's, torch_nn is torch's
    import mindspore as ms

    assert issubclass(ns["Net"], ms.nn.Cell) and ns["nn"] is ms.nn and ns["torch_nn"].__name__ == "torch.nn"


def test_from_torch_import_nn_optim_kept_under_other_names():
    r = conv("""
        from torch import nn, optim
        net = nn.Linear(2, 2)
        sched = optim.lr_scheduler.Frobnicate(None)
        """)
    assert "from torch import optim as torch_optim" in r.code
    assert "torch_optim.lr_scheduler.Frobnicate(None)" in r.code and "nn.Dense(2, 2)" in r.code
    assert "from torch import nn" not in r.code


@pytest.mark.parametrize("header", [
    "import torch  # noqa: F401\n",
    "import torch\r\n",
    "#!/usr/bin/env python\n# comment\nimport torch.nn as nn  # layers\n",
])
def test_no_placeholder_and_idempotent(header):
    src = header + "x = torch.zeros(2)\n" if "nn" not in header else header + "m = nn.ReLU()\n"
    if "\r\n" in header:
        src = src.replace("\r\n", "\n").replace("\n", "\r\n")
    once = convert_source(src).code
    assert "__msmigrate" not in once and "import torch" not in once
    assert convert_source(once).code == once
    if "\r\n" in header:
        assert "\r\n" in once and "\n" not in once.replace("\r\n", "")


def test_file_that_only_imports_torch():
    once = convert_source("import torch\nimport torch.nn as nn\n").code
    assert "__msmigrate" not in once and "torch" not in once and convert_source(once).code == once


def test_multi_line_reason_is_one_marker_line():
    r = conv('''
        import torch

        class Op(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                """Saves nothing.

                ctx is used below."""
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, g):
                return g
        ''')
    assert r.errors == [] and r.unsupported
    markers = [ln for ln in r.code.splitlines() if "# msmigrate: unsupported" in ln]
    assert markers and all(ln.strip().startswith("# msmigrate: unsupported") for ln in markers)
    compile(r.code, "<converted>", "exec")


def test_parameter_named_like_a_torch_module_is_left_alone():
    r = conv("""
        import torch.nn.functional as F

        def act(F, x):
            return F.relu(x)

        def use(x):
            return F.relu(x)
        """)
    assert "def act(F, x):\n    return F.relu(x)" in r.code
    assert "return ops.relu(x)" in r.code and r.unsupported == []


def test_submodule_calls_and_look_alikes_are_not_tensor_methods():
    r = conv("""
        import collections
        import torch
        import torch.nn as nn

        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.relu = nn.ReLU()
                self.norm = nn.LayerNorm(4)
                self.queue = collections.deque()

            def forward(self, x):
                out = self.relu(self.norm(x))
                n = self.queue.count(1)
                return out.view(-1)

        class Stack:
            def size(self):
                return 0

        s = Stack()
        print(s.size(), "a,b".split(","), [3, 1].index(1))
        """)
    assert "self.relu(self.norm(x))" in r.code and "self.queue.count(1)" in r.code
    assert "print(s.size()," in r.code and r.unsupported == []
    assert "out.view(-1)" in r.code


def test_tensor_method_missing_from_table_is_marked():
    r = conv("""
        import torch
        x = torch.randn(4)
        q = x.nanquantile(0.5)
        y = x.index_fill_(0, torch.tensor([1]), 0.0)
        """)
    apis = {u.api for u in r.unsupported}
    assert "Tensor.nanquantile" in apis
    assert "# msmigrate: unsupported Tensor.nanquantile:" in r.code



def test_result_of_a_converted_tensor_method_is_a_tensor():
    """torch/nn/utils/memory_format.py: ``module.weight`` has no known type, but ``.detach().clone()`` on it is
    converted as tensor methods, so ``weight_data`` is a tensor and its ``resize_`` (not in the table) is marked on
    the first pass; before, only a second pass over the output (where ``ops.stop_gradient`` says tensor) marked it."""
    src = """
        import torch

        def convert(module, memory_format):
            weight_data = module.weight.detach().clone(memory_format=memory_format)
            module.weight.data = weight_data.resize_(weight_data.size(), memory_format=memory_format)
            return module
        """
    once = conv(src)
    assert "Tensor.resize_" in {u.api for u in once.unsupported}
    assert "ops.stop_gradient(module.weight)" in once.code
    assert convert_source(once.code).code == once.code
    # a look-alike whose call does not fit a tensor method stays unknown: nothing after it is marked
    other = conv("""
        import torch

        def f(cfg):
            opts = cfg.copy(deep=True)
            return opts.resize_(3)
        """)
    assert not other.unsupported and "opts.resize_(3)" in other.code

def test_backward_and_step_on_other_objects_do_not_make_a_training_step():
    src = textwrap.dedent("""
        class Turtle:
            def backward(self, n): ...
            def step(self): ...
        t = Turtle()
        t.backward(10)
        t.step()
        """)
    assert convert_source(src).code == src


def test_star_import_of_a_converted_sibling(tmp_path):
    pkg = tmp_path / "proj"
    pkg.mkdir()
    (pkg / "unet_parts.py").write_text(textwrap.dedent("""
        import torch
        import torch.nn as nn

        class DoubleConv(nn.Module):
            def __init__(self, c):
                super().__init__()
                self.conv = nn.Conv2d(c, c, 3, padding=1)

            def forward(self, x):
                return self.conv(x)
        """))
    (pkg / "unet_model.py").write_text(textwrap.dedent("""
        from .unet_parts import *

        class UNet(nn.Module):
            def __init__(self):
                super().__init__()
                self.inc = DoubleConv(3)

            def forward(self, x):
                return torch.sigmoid(self.inc(x))

        class Deeper(UNet):
            def forward(self, x):
                return x
        """))
    report = convert_path(pkg, tmp_path / "out")
    model = (tmp_path / "out" / "unet_model.py").read_text()
    assert "class UNet(nn.Cell)" in model and "def construct(self, x)" in model
    assert "ops.sigmoid(self.inc(x))" in model and "from mindspore import nn, ops" in model
    assert model.count("def construct") == 2  # Deeper derives from UNet: a module too
    assert report.errors == [] and report.unsupported == []


def test_one_file_internal_error_does_not_stop_the_run(tmp_path, monkeypatch, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "good.py").write_text("import torch\nx = torch.zeros(2)\n")
    (src / "bad.py").write_text("import torch\nBOOM = torch.ones(1)\n")

    def explode(module, ctx):
        if "BOOM" in ctx.source:
            raise RuntimeError("simulated\nsecond line")
        return module

    monkeypatch.setattr(pipeline, "PASSES", (*pipeline.PASSES, pipeline.Pass("explode", explode)))
    rc = main(["convert", str(src), "-o", str(tmp_path / "out"), "--report", str(tmp_path / "r.json")])
    report = json.loads((tmp_path / "r.json").read_text())
    assert rc == 1
    assert [e["file"].endswith("bad.py") for e in report["errors"]] == [True]
    assert report["errors"][0]["message"].startswith("internal error: RuntimeError: simulated (")
    assert "ops.zeros" in (tmp_path / "out" / "good.py").read_text()
    assert "bad.py:1: error: internal error: RuntimeError: simulated" in capsys.readouterr().out
