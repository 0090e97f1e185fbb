"""Helpers for the graph-route tests: export torch, convert, import the generated Cell, compare."""
from __future__ import annotations

import importlib.util
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ms = pytest.importorskip("mindspore")
pytest.importorskip("onnx")

from migrate.onnx import convert_onnx, export_torch  # noqa: E402


def load_cell(report):
    """Import the generated module, build the Cell, load its checkpoint; fail if any param is left."""
    spec = importlib.util.spec_from_file_location(f"gen_{report.class_name}_{id(report)}", report.code_path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    net = getattr(module, report.class_name)()
    net.set_train(False)
    if not list(net.get_parameters()):  # MindSpore cannot load an empty checkpoint
        assert report.parameters == 0
        return net, module
    not_loaded, _ = ms.load_param_into_net(net, ms.load_checkpoint(report.checkpoint_path), strict_load=True)
    assert not not_loaded, f"parameters missing from the checkpoint: {not_loaded}"
    names = {p.name for p in net.get_parameters()}
    assert names == set(ms.load_checkpoint(report.checkpoint_path)), "checkpoint and Cell disagree"
    net.set_train(False)
    return net, module


def run_ms(net, inputs):
    out = net(*[ms.Tensor(np.asarray(a)) for a in inputs])
    outs = out if isinstance(out, tuple) else (out,)
    return [o.asnumpy() for o in outs]


def assert_close(got, want, rel=1e-4):
    """Relative max error against the torch output's scale."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape, (g.shape, w.shape)
        scale = max(np.abs(w).max(), 1e-6)
        err = np.abs(g.astype(np.float64) - w.astype(np.float64)).max() / scale
        assert err <= rel, f"max relative error {err:.2e} > {rel}"


@pytest.fixture
def roundtrip(tmp_path):
    """``roundtrip(model, *inputs, name=..., opset=None)`` -> (report, ms_outputs, torch_outputs)."""

    def run(model, *inputs, name="model", opset=None, check=True):
        model.eval()
        with torch.no_grad():
            want = model(*inputs)
        want = [t.numpy() for t in (want if isinstance(want, tuple) else (want,))]
        path = str(tmp_path / f"{name}.onnx")
        export_torch(model, inputs, path, opset=opset)
        report = convert_onnx(path, str(tmp_path / "out"))
        net, _ = load_cell(report)
        got = run_ms(net, [t.numpy() for t in inputs])
        if check:
            assert report.unsupported == [], report.unsupported
            assert_close(got, want)
        return report, got, want

    return run


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    np.random.seed(0)
    yield
    sys.modules.pop("gen", None)
