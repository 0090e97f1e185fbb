"""Line-level parity (migrate/parity/lines.py): a slip planted in a functional call inside forward is named at its
source line and variable on both sides, beside the module (which names only the next layer that sees it)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("mindspore")

from migrate.api import convert_path  # noqa: E402
from migrate.parity import compare  # noqa: E402
from migrate.parity.lines import line_map  # noqa: E402
from migrate.parity.loading import load_object  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MODEL = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class Head(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.fuse_conv = nn.Conv2d(2 * c, c, 3, padding=1)
        self.head = nn.Conv2d(c, 1, 1)

    def forward(self, x, skip):
        x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        y = torch.cat([x, skip], dim=1)
        y = F.relu(self.fuse_conv(y))
        return self.head(y)


class Net(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.down = nn.Conv2d(c, c, 3, stride=2, padding=1)
        self.dec = Head(c)

    def forward(self, x):
        s = F.relu(self.stem(x))
        d = F.relu(self.down(s))
        return self.dec(d, s)
'''
SLIP_LINE = 13


def _pair(tmp_path, slip=True):
    src = tmp_path / "torch"
    src.mkdir()
    (src / "slipnet.py").write_text(MODEL)
    out = tmp_path / "ms"
    convert_path(src, out)
    ms_file = out / "slipnet.py"
    if slip:
        text = ms_file.read_text()
        assert text.count("align_corners=False") == 1
        ms_file.write_text(text.replace("align_corners=False", "align_corners=True"))
    return src / "slipnet.py", ms_file


def test_a_functional_slip_is_named_at_its_line_on_both_sides(tmp_path):
    t_file, m_file = _pair(tmp_path)
    torch.manual_seed(0)
    t = load_object(f"{t_file}:Net", side="torch")
    m = load_object(f"{m_file}:Net", side="ms")
    x = np.random.default_rng(0).standard_normal((2, 3, 16, 16)).astype(np.float32)
    r = compare(t, m, x)
    assert not r.passed
    # the module verdict names the first layer that sees the slip, not the slip
    assert r.first_divergence["forward"] == "dec.fuse_conv", r.table(color=False)
    ln = r.first_divergence["line"]
    assert ln is not None, r.table(color=False)
    assert ln["torch"].endswith(f"slipnet.py:{SLIP_LINE}") and ln["variable"] == "x" and ln["function"] == "Head.forward"
    assert "F.interpolate" in ln["torch_code"] and "align_corners=True" in ln["ms_code"], ln
    m_line = int(ln["ms"].rpartition(":")[2])
    assert m_file.read_text().splitlines()[m_line - 1].strip() == ln["ms_code"]
    assert ln["ratio"] > 100
    # the mapping-table entry (and rule) the converter maps that call with
    assert [(mp["torch"], mp["rule"]) for mp in ln["mappings"]] == [("torch.nn.functional.interpolate", "interpolate")]
    text = r.table(color=False)
    assert f"slipnet.py:{SLIP_LINE}: x = F.interpolate" in text and "align_corners=True" in text
    assert "mapping: torch.nn.functional.interpolate -> mindspore.ops.interpolate, rule interpolate" in text


def test_a_faithful_port_runs_no_line_level_pass(tmp_path):
    t_file, m_file = _pair(tmp_path, slip=False)
    torch.manual_seed(0)
    r = compare(load_object(f"{t_file}:Net", side="torch"), load_object(f"{m_file}:Net", side="ms"),
                np.random.default_rng(0).standard_normal((2, 3, 16, 16)).astype(np.float32))
    assert r.passed and r.first_divergence["line"] is None and "lines_s" not in r.timing, r.table(color=False)


def test_cli_report_carries_both_lines_in_json_and_html(tmp_path):
    t_file, m_file = _pair(tmp_path)
    rep = tmp_path / "rep"
    r = subprocess.run([sys.executable, "-m", "migrate.cli", "parity", f"{t_file}:Net", "--ms", f"{m_file}:Net",
                        "--input", "2,3,16,16", "--report", str(rep), "--no-color"], cwd=tmp_path,
                       capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=600)
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr[-3000:]
    fd = json.loads((rep / "parity.json").read_text())["first_divergence"]
    assert fd["line"]["torch"].endswith(f"slipnet.py:{SLIP_LINE}") and fd["line"]["ms"].rpartition(":")[2].isdigit()
    html = (rep / "parity.html").read_text()
    assert "First divergent line" in html and "align_corners=True" in html


def test_line_map_aligns_a_converted_file_with_lines_added_on_top():
    a = ["import torch", "", "def f(x):", "    y = torch.relu(x)", "    return y"]
    b = ["import mindspore", "from mindspore import ops", "", "def f(x):", "    y = ops.relu(x)", "    return y"]
    m = line_map(a, b)
    assert m[3] == 4 and m[4] == 5 and m[5] == 6


def test_report_writes_a_standalone_line_repro_that_exits_1_while_the_slip_is_there(tmp_path):
    t_file, m_file = _pair(tmp_path)
    rep = tmp_path / "rep"
    env = {**os.environ, "PYTHONPATH": ROOT}
    r = subprocess.run([sys.executable, "-m", "migrate.cli", "parity", f"{t_file}:Net", "--ms", f"{m_file}:Net",
                        "--input", "2,3,16,16", "--report", str(rep), "--no-color"], cwd=tmp_path,
                       capture_output=True, text=True, env=env, timeout=600)
    assert r.returncode == 1 and "repro:" in r.stdout, r.stdout[-3000:] + r.stderr[-3000:]
    script = (rep / "repro.py").read_text()
    assert "migrate" not in script.replace("msmigrate parity found", "") and (rep / "repro_inputs.npz").exists()
    # run from elsewhere, isolated (-I: no PYTHONPATH, no user site; the script imports no msmigrate)
    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, "-I", str(rep / "repro.py")], cwd=tmp_path, capture_output=True, text=True,
                         env=clean, timeout=600)
    assert run.returncode == 1 and "REPRODUCED" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]
    # the line alone (the functional slip), on the inputs torch's forward had there, named with the mapping that
    # wrote the MindSpore line
    assert "MindSpore: x = " in run.stdout and "align_corners=True" in run.stdout, run.stdout[-2000:]
    assert "torch.nn.functional.interpolate -> mindspore.ops.interpolate, rule interpolate" in script
    assert sorted(np.load(rep / "repro_inputs.npz").files) == ["line:x"]
    # the slip fixed in the port: the same repro no longer reproduces
    m_file.write_text(m_file.read_text().replace("align_corners=True", "align_corners=False"))
    run = subprocess.run([sys.executable, "-I", str(rep / "repro.py")], cwd=tmp_path, capture_output=True, text=True,
                         env=clean, timeout=600)
    assert run.returncode == 0 and "not reproduced" in run.stdout, run.stdout[-2000:] + run.stderr[-2000:]
