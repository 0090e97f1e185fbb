"""A file that fails to convert is visible where the user looks first: the summary ("fix these first"), the rate,
the exit code, the report and the file written in its place. Files are written with the user's umask."""
import json
import os
import stat
import subprocess
import sys

import pytest

from migrate import convert_path
from migrate.report import torch_uses

CLI = [sys.executable, "-m", "migrate.cli"]

MODEL = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 3, 3)

    def forward(self, x):
        return torch.frobnicate(self.c(x))


def unused(x):
    return torch.frobnicate2(x)


def train(net, opt, data):
    for x in data:
        loss = torch.frobnicate3(net(x)).sum()
        loss.backward()
        opt.step()


if __name__ == "__main__":
    train(Net(), None, [])
'''


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "p"
    src.mkdir()
    (src / "good.py").write_text("import torch\nx = torch.zeros(2)\n")
    (src / "broken.py").write_text("import torch\n\ndef f(:\n    pass\ny = torch.ones(3) + torch.zeros(3)\n")
    (src / "latin.py").write_bytes(b"# caf\xe9\nimport torch\nz = torch.ones(1)\n")
    (src / "model.py").write_text(MODEL)
    return src


def test_failed_files_count_in_the_summary_rate_exit_code_and_report(project, tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([*CLI, "convert", str(project), "-o", str(out), "--report", str(tmp_path / "r.json")],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 1, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("fix these first (5 of 5")
    # failed files first, then the forward, the training step, and the function nothing calls last
    assert [line.split(": ")[0].rsplit("/", 1)[-1] for line in lines[1:6]] == [
        "broken.py:3", "latin.py:1", "model.py:11", "model.py:20", "model.py:15"]
    assert "[forward of Net]" in lines[3] and "[training step in train()]" in lines[4]
    assert "unused() is never called" in lines[5]
    totals = next(line for line in lines if line.startswith("files:"))
    assert "files: 4 (2 failed to convert)" in totals and "conversion rate: 100.0%" not in totals
    rep = json.loads((tmp_path / "r.json").read_text())
    assert sorted(os.path.basename(f) for f in rep["failed_files"]) == ["broken.py", "latin.py"]
    # broken.py: 2 torch uses on its text, latin.py: 1, none converted
    assert rep["api_calls"] - rep["converted"] == 3 + 2 + 1  # model.py's three markers + the failed files' uses
    assert rep["conversion_rate"] < 1
    # the copy in OUT says why in its first line; the rest is the torch file as it was
    broken = (out / "broken.py").read_text()
    assert broken.startswith("# msmigrate: not converted: ") and "broken.py:3: syntax error" in broken.splitlines()[0]
    assert broken.split("\n", 1)[1] == (project / "broken.py").read_text()
    latin = (out / "latin.py").read_bytes()
    assert latin.startswith(b"# msmigrate: not converted: ") and b"not UTF-8" in latin.split(b"\n")[0]
    assert latin.split(b"\n", 1)[1] == (project / "latin.py").read_bytes()


def test_a_file_with_an_internal_error_in_a_pass_fails_visibly(tmp_path, monkeypatch):
    from migrate.core import pipeline

    def broken_pass(module, ctx):
        raise RuntimeError("a bug in a pass")

    monkeypatch.setattr(pipeline, "PASSES", (pipeline.Pass("api", broken_pass), *pipeline.PASSES[1:]))
    src = tmp_path / "m.py"
    src.write_text("import torch\nx = torch.zeros(2)\n")
    report = convert_path(src, tmp_path / "out")
    assert [f.filename for f in report.failed_files] == [str(src)]
    assert "internal error" in report.errors[0].message
    assert report.converted == 0 and report.conversion_rate == 0.0
    assert (tmp_path / "out" / "m.py").read_text().startswith("# msmigrate: not converted: ")
    assert report.summary().startswith("fix these first (1 of 1")


def test_torch_uses_counts_the_text_not_comments():
    assert torch_uses("import torch\nx = torch.zeros(2)  # torch.ones\ny = nn.Conv2d(1, 1, 1)(F.relu(x))\n") == 3


def test_outputs_have_the_users_umask(project, tmp_path):
    old = os.umask(0o022)
    try:
        out = tmp_path / "out"
        r = subprocess.run([*CLI, "convert", str(project), "-o", str(out), "--report", str(tmp_path / "r.json"),
                            "--html", str(tmp_path / "r.html")], capture_output=True, text=True, timeout=120)
        assert r.returncode == 1
        for path in [*out.iterdir(), tmp_path / "r.json", tmp_path / "r.html"]:
            assert stat.S_IMODE(path.stat().st_mode) == 0o644, path
        os.umask(0o077)
        r = subprocess.run([*CLI, "convert", str(project / "good.py"), "-o", str(tmp_path / "private")],
                           capture_output=True, text=True, timeout=120)
        assert stat.S_IMODE((tmp_path / "private" / "good.py").stat().st_mode) == 0o600
    finally:
        os.umask(old)
    assert not [p for p in out.rglob("*.tmp")]


def test_report_files_are_written_even_when_the_reader_leaves_early(project, tmp_path):
    """`msmigrate convert ... | head -3`: the pipe closes after three lines; --report and --html are still written."""
    proc = subprocess.Popen([*CLI, "convert", str(project), "-o", str(tmp_path / "out"), "--report",
                             str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()  # the reader leaves
    proc.wait(timeout=120)
    assert json.loads((tmp_path / "r.json").read_text())["failed_files"]
    assert "Fix these first" in (tmp_path / "r.html").read_text()


def test_parity_on_a_file_that_failed_to_convert_points_back_to_it(tmp_path):
    """Python imports a latin-1 file that declares its coding; msmigrate reads UTF-8 only, so the file fails to
    convert and its copy is the torch code. Parity on that copy says so instead of only "not a Cell"."""
    pytest.importorskip("torch")
    pytest.importorskip("mindspore")
    src = tmp_path / "torch_src"
    src.mkdir()
    (src / "model.py").write_bytes(b"# -*- coding: latin-1 -*-\n# caf\xe9\nimport torch.nn as nn\n\n\n"
                                   b"class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
                                   b"        self.fc = nn.Linear(4, 2)\n\n    def forward(self, x):\n"
                                   b"        return self.fc(x)\n")
    r = subprocess.run([*CLI, "convert", str(src), "-o", str(tmp_path / "ms")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 1 and "not UTF-8" in r.stdout
    r = subprocess.run([*CLI, "parity", f"{src / 'model.py'}:Net", "--ms", f"{tmp_path / 'ms' / 'model.py'}:Net",
                        "--input", "2,4"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "msmigrate convert could not convert" in r.stderr and "model.py" in r.stderr and "not UTF-8" in r.stderr
