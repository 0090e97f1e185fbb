"""The graph route from the command line, unsupported ops, and bad input."""
import json

import numpy as np
import onnx
import pytest
import torch
from onnx import helper, numpy_helper

from conftest import load_cell, run_ms
from migrate.cli import main
from migrate.onnx import OnnxInputError, convert_onnx, export_torch

MODEL_FILE = '''
import torch
from torch import nn

class SmallNet(nn.Module):
    def __init__(self, width=4):
        super().__init__()
        self.conv = nn.Conv2d(3, width, 3, padding=1)
        self.gn = nn.GroupNorm(2, width)
        self.act = nn.GELU()
        self.fc = nn.Linear(width, 2)

    def forward(self, x):
        y = self.act(self.gn(self.conv(x)))
        y = nn.functional.interpolate(y, scale_factor=2.0, mode="bilinear")
        return self.fc(y.mean((2, 3)))
'''


def _unsupported_model(path):
    """Relu -> Det (no mapping) -> Add: the Det node must become a stub."""
    x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3, 3])
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="/head/Relu"),
             helper.make_node("Det", ["r"], ["d"], name="/head/Det"),
             helper.make_node("Add", ["d", "one"], ["y"], name="/head/Add")]
    graph = helper.make_graph(nodes, "g", [x], [helper.make_empty_tensor_value_info("y")],
                              [numpy_helper.from_array(np.array(1.0, np.float32), "one")])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))


def test_cli_via_onnx_groupnorm_gelu_resize(tmp_path, capsys):
    (tmp_path / "net.py").write_text(MODEL_FILE)
    torch.manual_seed(0)
    import importlib.util
    spec = importlib.util.spec_from_file_location("net_ref", tmp_path / "net.py")
    ref = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ref)
    model = ref.SmallNet(width=6).eval()
    torch.save(model.state_dict(), tmp_path / "w.pth")
    out = tmp_path / "ms"
    code = main(["convert", f"{tmp_path / 'net.py'}:SmallNet", "--via-onnx", "--input", "2x3x8x8",
                 "--args", '{"width": 6}', "--weights", str(tmp_path / "w.pth"), "-o", str(out),
                 "--report", str(tmp_path / "r.json")])
    assert code == 0, capsys.readouterr().err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["ok"] and report["class_name"] == "SmallNet"
    assert report["ops_converted"]["GroupNorm"] == 1 and report["ops_converted"]["Gelu"] == 1
    text = (out / "small_net.py").read_text()
    assert "self.gn = nn.GroupNorm(2, 6, eps=1e-05, affine=True)" in text
    assert "mode='bilinear', align_corners=False" in text
    assert "msmigrate" not in text.split('"""', 2)[2]  # generated code never imports msmigrate
    from types import SimpleNamespace
    net, _ = load_cell(SimpleNamespace(code_path=str(out / "small_net.py"), class_name="SmallNet",
                                       checkpoint_path=str(out / "small_net.ckpt"), parameters=1))
    x = torch.randn(2, 3, 8, 8)
    with torch.no_grad():
        want = model(x).numpy()
    got = run_ms(net, [x.numpy()])[0]
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_cli_onnx_file_with_unsupported_op_exits_3(tmp_path, capsys):
    _unsupported_model(tmp_path / "det.onnx")
    code = main(["convert", str(tmp_path / "det.onnx"), "-o", str(tmp_path / "o"), "--name", "DetNet",
                 "--report", str(tmp_path / "r.json")])
    assert code == 3
    assert "unsupported Det at node /head/Det" in capsys.readouterr().out
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["unsupported"] == [{"node": "/head/Det", "op_type": "Det", "reason": "no emitter for this op"}]
    assert report["ops_seen"] == {"Relu": 1, "Det": 1, "Add": 1}


def test_unsupported_op_becomes_stub_that_raises(tmp_path):
    _unsupported_model(tmp_path / "det.onnx")
    report = convert_onnx(str(tmp_path / "det.onnx"), str(tmp_path / "o"))
    code = open(report.code_path).read()
    compile(code, report.code_path, "exec")  # still parses
    assert "def unsupported_det(self, *inputs):" in code
    net, _ = load_cell(report)
    with pytest.raises(NotImplementedError, match="ONNX op Det"):
        run_ms(net, [np.ones((2, 3, 3), np.float32)])


@pytest.mark.parametrize("argv_tail,code,message", [
    (["missing.onnx", "-o", "o"], 2, "no such file"),
    (["garbage.onnx", "-o", "o"], 2, "not a readable ONNX model"),
    (["model.py:Nope", "--via-onnx", "--input", "1x3", "-o", "o"], 2, "no 'Nope' defined"),
    (["model.py:SmallNet", "--via-onnx", "--input", "1xAx3", "-o", "o"], 2, "expected SHAPE[:DTYPE]"),
    (["model.py:SmallNet", "--via-onnx", "-o", "o"], 2, "needs at least one --input"),
    (["model.py:SmallNet", "--via-onnx", "--input", "1x3x8x8", "--args", "{bad", "-o", "o"], 2,
     "--args is not valid JSON"),
    (["model.py:SmallNet", "--via-onnx", "--input", "1x5x8x8", "-o", "o"], 2, "RuntimeError"),
    (["model.py:SmallNet", "--via-onnx", "--input", "1x3x8x8"], 2, "give -o OUT"),
])
def test_cli_bad_input_one_line_no_traceback(tmp_path, monkeypatch, capsys, argv_tail, code, message):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(MODEL_FILE)
    (tmp_path / "garbage.onnx").write_bytes(b"\x00not onnx at all\xff" * 10)
    assert main(["convert", *argv_tail]) == code
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_bad_class_name_and_nothing_half_written(tmp_path):
    _unsupported_model(tmp_path / "det.onnx")
    with pytest.raises(OnnxInputError, match="not a Python identifier"):
        convert_onnx(str(tmp_path / "det.onnx"), str(tmp_path / "o"), class_name="9 bad")
    assert not (tmp_path / "o").exists()


def test_export_default_opset_is_20_and_keeps_batchnorm(tmp_path):
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4))
    path = export_torch(model, (torch.randn(1, 3, 6, 6),), str(tmp_path / "m.onnx"))
    m = onnx.load(path)
    assert m.opset_import[0].version == 20
    assert [n.op_type for n in m.graph.node if n.op_type != "Identity"] == ["Conv", "BatchNormalization"]
    assert list(tmp_path.iterdir()) == [tmp_path / "m.onnx"]  # no temp file left behind


def test_help_says_via_onnx_executes_code(capsys):
    with pytest.raises(SystemExit):
        main(["convert", "--help"])
    assert "EXECUTES" in capsys.readouterr().out
