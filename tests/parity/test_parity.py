"""The parity checker must pass faithful ports and name the layer of each planted bug."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("mindspore")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import MsBCE, MsCNN, TorchBCE, TorchCNN  # noqa: E402
from unet import MsBCEDice, MsUNet, TorchBCEDice, TorchUNet  # noqa: E402

from migrate.parity import assert_parity, compare  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
X = np.random.default_rng(0).standard_normal((2, 3, 16, 16)).astype(np.float32)


def _cnn(bug=None, **kw):
    torch.manual_seed(0)
    return compare(TorchCNN(), MsCNN(bug=bug), X, **kw)


def _row(report, name):
    return next(r for r in report.layers if r["name"] == name)


def _grad(report, name):
    return next(g for g in report.grads if g["name"] == name)


def test_faithful_cnn_passes_forward_backward_and_steps():
    ticks = []
    r = _cnn(steps=2, lr=0.01, progress=ticks.append)  # the CLI's progress bar: a total, then one tick per stage
    assert ticks == [3, None, None, None]
    assert r.passed, r.table(color=False)
    assert len(r.layers) == 23 and len(r.grads) == 20 and len(r.steps) == 2
    assert all(s["passed"] for s in r.steps)
    assert any("dropout, drop-path" in n and "disabled" in n for n in r.determinism)
    assert r.first_divergence == {"forward": None, "backward": None, "backward_param": None, "step": None,
                                  "step_detail": None, "line": None}


def test_bprop_scaling_gradient_fails_backward_only_upstream():
    r = _cnn("bprop")
    assert r.first_divergence["forward"] is None and all(row["passed"] for row in r.layers)
    assert r.first_divergence["backward"] == "mid.gate"
    # upstream of the gate: scaled by 2 (direction unchanged)
    for name in ("mid.proj.weight", "branch.b.weight", "stem.conv.weight"):
        g = _grad(r, name)
        assert not g["passed"] and g["cosine"] > 0.999, g
    # downstream of the gate: untouched
    assert _grad(r, "head.weight")["passed"] and _grad(r, "head.bias")["passed"]
    assert not r.passed


def test_batchnorm_momentum_not_inverted_shows_after_a_step():
    r = _cnn("momentum", steps=2, lr=0.01)
    assert r.first_divergence["forward"] is None and r.first_divergence["backward"] is None
    assert all(g["passed"] for g in r.grads)
    assert r.first_divergence["step"] == 1
    assert r.steps[0]["loss_passed"] and r.steps[0]["first_param"] == "blocks.0.bn.running_mean"
    bad = {p["name"] for p in r.final_params if not p["passed"]}
    assert bad == {"blocks.0.bn.running_mean", "blocks.0.bn.running_var"}
    assert not r.passed


def test_vanishing_gradient_stop_gradient_branch():
    r = _cnn("stopgrad")
    assert r.first_divergence["forward"] is None
    assert r.first_divergence["backward"] == "branch"
    assert _grad(r, "branch.b.weight")["max_abs"] > 0 and not _grad(r, "branch.b.weight")["passed"]
    ms_b = next(g for g in r.grads if g["name"] == "branch.b.bias")
    assert ms_b["cosine"] == 0.0  # MindSpore's gradient is exactly zero there
    assert _grad(r, "branch.a.weight")["passed"] and _grad(r, "head.weight")["passed"]


def test_nan_is_attributed_to_the_layer_producing_it_and_one_sided_layers_are_unmatched():
    r = _cnn("nan")
    assert r.first_nonfinite == {"torch": None, "ms": "nan"}
    assert r.unmatched["ms"] == ["nan"] and r.unmatched["torch"] == []
    assert _row(r, "mid")["passed"] and not _row(r, "pool")["passed"]


def test_nan_in_the_input_is_attributed_to_the_first_layer_on_both_sides():
    """torch's first NaN / Inf comes from the compared rows (the screen finds it), not from a scan of every output."""
    x = X.copy()
    x[0, 0, 0, 0] = np.nan
    torch.manual_seed(0)
    r = compare(TorchCNN(), MsCNN(), x, backward=False)
    first = r.layers[0]["name"]
    assert r.first_nonfinite == {"torch": first, "ms": first}, (r.first_nonfinite, first)


def test_mindspore_error_is_blamed_on_the_cell_that_raised():
    class Broken(MsCNN):
        def __init__(self):
            super().__init__()
            import mindspore.nn as mnn
            self.head = mnn.Dense(5, 3)  # expects 5 features, gets 16

    torch.manual_seed(0)
    tm = TorchCNN()
    tm.head = torch.nn.Linear(5, 3)  # weights copy fine; torch would fail too, so bypass the forward
    from migrate.parity.runner import ParityError
    with pytest.raises(ParityError, match="the torch model raised RuntimeError"):
        compare(tm, Broken(), X)


def test_a_mindspore_error_leaves_no_gradient_graph_open():
    """A cell raising inside MindSpore's value_and_grad left PyNative recording every op: the next model built in
    the process (timm's fastvit, after efficientvit failed) could not initialise a weight in place."""
    import mindspore as ms
    import mindspore.nn as mnn
    from mindspore.common.api import _pynative_executor

    class Raises(mnn.Cell):
        def construct(self, x):
            raise RuntimeError("planted")

    class Broken(MsCNN):
        def __init__(self):
            super().__init__()
            self.head = mnn.SequentialCell(self.head, Raises())

    torch.manual_seed(0)
    tm = TorchCNN()
    tm.head = torch.nn.Sequential(tm.head, torch.nn.Identity())
    r = compare(tm, Broken(), X)
    assert not r.passed and "planted" in (r.error or ""), r.error
    assert not _pynative_executor.requires_grad()
    w = mnn.Dense(3, 4).weight
    w.copy_(ms.ops.rand(w.shape) * 2 - 1)  # raised "A leaf tensor that requires grad ..." with the graph open


class _TMobileOneBlock(torch.nn.Module):
    """timm's MobileOneBlock: ``out = scale_out; out += ck(x)``, then ``out = self.drop_path(out); out += identity``
    and ``self.attn(out)``: outputs changed in place after their layer returned, on both sides."""

    def __init__(self):
        super().__init__()
        self.scale = torch.nn.Conv2d(3, 3, 1)
        self.kxk = torch.nn.Conv2d(3, 3, 3, padding=1)
        self.drop = torch.nn.Identity()
        self.attn = torch.nn.Identity()

    def forward(self, x):
        out = self.scale(x)
        out += self.kxk(x)
        out = self.drop(out)
        out += x
        return self.attn(out)


def _ms_mobileone_block():
    import mindspore.nn as mnn

    class Block(mnn.Cell):  # as msmigrate converts it: `out += v` on an alias is `out.copy_(out + v)`
        def __init__(self):
            super().__init__()
            self.scale = mnn.Conv2d(3, 3, 1, has_bias=True)
            self.kxk = mnn.Conv2d(3, 3, 3, pad_mode="pad", padding=1, has_bias=True)
            self.drop = mnn.Identity()
            self.attn = mnn.Identity()

        def construct(self, x):
            out = self.scale(x)
            out.copy_(out + self.kxk(x))
            out = self.drop(out)
            out.copy_(out + x)
            return self.attn(out)

    return Block()


def test_outputs_changed_in_place_between_two_cells_are_compared_as_they_are():
    """The MindSpore recorder reused the array it took at ``drop`` for ``attn`` (the same tensor), which the
    in-place add between them had left with the old values: a false divergence at ``attn`` in timm's mobileone."""
    torch.manual_seed(0)
    r = compare(_TMobileOneBlock(), _ms_mobileone_block(), X)
    assert r.passed, r.table(color=False)
    assert _row(r, "attn")["max_abs"] < 1e-4 and _row(r, "drop")["max_abs"] < 1e-4


def test_the_float64_stash_keeps_the_mindspore_values_it_was_given():
    """MindSpore's asnumpy() is a view of the tensor's memory (zero-copy, measured): the stash for the float64
    reference kept that view, and when that memory changed later (an in-place change, or the memory given to
    another tensor) the float64 tier judged other values (timm's mobileone: 1725x outside its floor for a layer
    1.3x outside the screen). Here the memory under the array changes after it was stashed."""
    import mindspore.nn as mnn
    import mindspore.ops as mops

    from migrate.parity.state import _Stash

    view = mnn.Conv2d(2, 2, 1)(mops.ones((1, 2, 3, 3))).asnumpy()
    assert not view.flags["OWNDATA"]  # a view, not a copy
    before = view.copy()
    stash = _Stash(1 << 20)
    stash.add(("fwd", "conv"), {}, [torch.from_numpy(before.copy())], [view])
    np.add(view, 100, out=view)
    kept = stash.items[("fwd", "conv")][2][0]
    assert np.array_equal(kept, before)


def test_faithful_unet_with_loss_and_adam_steps():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 32, 32)).astype(np.float32)
    y = (rng.random((2, 1, 32, 32)) > 0.5).astype(np.float32)
    torch.manual_seed(0)
    r = assert_parity(TorchUNet(), MsUNet(), x, target=y, loss=TorchBCEDice(), ms_loss=MsBCEDice(), steps=2,
                      optimizer="adam", lr=1e-3)
    assert len(r.layers) == 67 and len(r.grads) == 50
    assert any("inplace=True turned off" in n for n in r.determinism)


def test_assert_parity_raises_with_the_table():
    torch.manual_seed(0)
    with pytest.raises(AssertionError, match=r">>\s+6  blocks\.0\.act"):
        assert_parity(TorchCNN(), MsCNN(bug="slope"), X)


def test_report_json_and_html(tmp_path):
    r = _cnn("slope", steps=1)
    paths = r.write(tmp_path / "rep")
    data = json.loads(open(paths["json"]).read())
    for key in ("passed", "tolerances", "layers", "grads", "steps", "first_divergence"):
        assert key in data
    assert data["passed"] is False and data["first_divergence"]["forward"] == "blocks.0.act"
    assert set(data["layers"][0]) >= {"name", "type", "shape", "max_abs", "max_rel", "cosine", "passed"}
    assert set(data["grads"][0]) >= {"name", "max_abs", "max_rel", "cosine", "passed"}
    assert set(data["steps"][0]) >= {"step", "loss_torch", "loss_ms", "passed"}
    act = next(x for x in data["layers"] if x["name"] == "blocks.0.act")
    assert act["tier"] == "float64" and act["ratio"] > 10 and act["error"] > act["floor"] > 0
    assert data["reference"]["ran"] and set(data["grads"][0]) >= {"floor", "error", "ratio", "tier"}
    table = r.table(color=False)
    from migrate.parity.report import _ratio
    assert "ratio" in table.splitlines()[1] and _ratio(act) in table and _ratio(act).endswith("x*")
    page = open(paths["html"]).read()
    assert "<svg" in page and "first divergence: blocks.0.act" in page
    assert "noise floor" in page and "error / noise floor" in page and _ratio(act)[:-2] + "×" in page
    assert "http://" not in page.replace("http://www.w3.org/2000/svg", "") and "https://" not in page
    assert "<script" not in page and "<link" not in page
    # reads on a phone and a desktop: a viewport, wide tables scroll inside the page, layer names wrap at their dots
    # (never clipped), the verdict rule is a short list rather than one paragraph
    assert "name='viewport'" in page and "<div class='scroll'><table" in page
    assert "<td class='l'>blocks.<wbr>0.<wbr>act</td>" in page
    assert "<td><ul><li>a tensor passes when error / noise floor ≤ 1" in page


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "migrate.cli", "parity", *args], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, "PYTHONPATH": ROOT})


@pytest.mark.slow
def test_cli_exit_codes_and_report(tmp_path):
    here = os.path.dirname(os.path.abspath(__file__))
    (tmp_path / "nets.py").write_text(
        f"import sys; sys.path.insert(0, {here!r})\n"
        "from models import TorchCNN, MsCNN, TorchBCE, MsBCE\n"
        "def ms_slope(**kw):\n    return MsCNN(bug='slope', **kw)\n")
    ok = _cli("nets.py:TorchCNN", "--ms", "nets.py:MsCNN", "--args", '{"classes": 2}', "--input", "2,3,16,16",
              "--loss", "nets.py:TorchBCE", "--ms-loss", "nets.py:MsBCE", "--steps", "1", cwd=tmp_path)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "PARITY HOLDS" in ok.stdout
    bad = _cli("nets.py:TorchCNN", "--ms", "nets.py:ms_slope", "--input", "2,3,16,16", "--report", "out",
               cwd=tmp_path)
    assert bad.returncode == 1 and "forward diverges first at blocks.0.act" in bad.stdout
    assert json.loads((tmp_path / "out" / "parity.json").read_text())["first_divergence"]["forward"] == "blocks.0.act"
    for args, msg in [(("nets.py:Nope", "--ms", "nets.py:MsCNN", "--input", "2,3,16,16"), "no class or function named 'Nope'"),
                      (("nets.py:TorchCNN", "--ms", "nets.py:MsCNN", "--input", "2,x"), "--input '2,x'"),
                      (("nets.py:TorchCNN", "--ms", "nets.py:MsCNN"), "give --input"),
                      (("nets.py:TorchCNN", "--ms", "nets.py:MsCNN", "--input", "2,3,16,16", "--args", "{"), "--args is not valid JSON")]:
        r = _cli(*args, cwd=tmp_path)
        assert r.returncode == 2, (args, r.stderr)
        assert msg in r.stderr and "Traceback" not in r.stderr and r.stderr.strip().count("\n") == 0, r.stderr


TORCH_SOURCE = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.bn = nn.BatchNorm2d(cout)
        self.act = nn.LeakyReLU(0.1)

    def forward(self, x):
        return self.act(self.bn(self.conv(x)))


class Net(nn.Module):
    def __init__(self, classes=3):
        super().__init__()
        self.stem = Block(3, 8)
        self.down = nn.Sequential(Block(8, 8), nn.MaxPool2d(2), Block(8, 16))
        self.head = nn.Linear(16, classes)

    def forward(self, x):
        x = self.down(self.stem(x))
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.head(x)


class Loss(nn.Module):
    def __init__(self):
        super().__init__()
        self.bce = nn.BCEWithLogitsLoss()

    def forward(self, out, target):
        return self.bce(out, target)
'''


@pytest.mark.slow
def test_cli_converts_the_mindspore_side_on_the_fly_and_takes_weights(tmp_path):
    (tmp_path / "model.py").write_text(TORCH_SOURCE)
    ns = {}
    exec(compile(TORCH_SOURCE, "model.py", "exec"), ns)
    sd = ns["Net"](classes=2).state_dict()
    torch.save(sd, tmp_path / "w.pth")
    r = _cli("model.py:Net", "--args", '{"classes": 2}', "--input", "2,3,16,16", "--loss", "model.py:Loss",
             "--weights", "w.pth", "--steps", "2", "--optimizer", "sgd", "--lr", "0.01", "--report", "rep", cwd=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    data = json.loads((tmp_path / "rep" / "parity.json").read_text())
    assert data["passed"] and len(data["steps"]) == 2 and data["settings"]["loss"] == "Loss"
    assert {row["type"] for row in data["layers"]} >= {"Conv2d", "BatchNorm2d", "LeakyReLU", "MaxPool2d", "Linear"}
    sd["head.weight"] = torch.zeros(5, 16)
    torch.save(sd, tmp_path / "bad.pth")
    r = _cli("model.py:Net", "--args", '{"classes": 2}', "--input", "2,3,16,16", "--weights", "bad.pth", cwd=tmp_path)
    assert r.returncode == 2 and "head.weight" in r.stderr and "Traceback" not in r.stderr, r.stderr
