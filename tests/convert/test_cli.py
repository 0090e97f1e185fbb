"""`msmigrate convert` as a user runs it: outputs, report schema, exit codes, bad input, the source left alone."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.convert.models import RESNET, UNET

CLI = [sys.executable, "-m", "migrate.cli"]


def msmigrate(*args, cwd=None):
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "proj"
    (src / "models").mkdir(parents=True)
    (src / "models" / "unet.py").write_text(UNET)
    (src / "models" / "resnet.py").write_text(RESNET)
    (src / "README.txt").write_text("notes\n")
    return src


def _snapshot(path: Path):
    return {p: p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def test_directory_is_mirrored_and_source_untouched(project, tmp_path):
    before = _snapshot(project)
    out = tmp_path / "ms"
    r = msmigrate("convert", project, "-o", out, "--report", tmp_path / "r.json", "--jobs", "2")
    assert r.returncode == 0, r.stdout + r.stderr
    assert (out / "models" / "unet.py").read_text().startswith('"""A small U-Net."""\nimport mindspore as ms\nfrom mindspore import nn, ops\n')
    assert (out / "README.txt").read_text() == "notes\n"
    assert _snapshot(project) == before
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["files"] == 2 and report["conversion_rate"] == 1.0
    assert report["api_calls"] == report["converted"] > 20
    assert report["unsupported"] == [] and report["errors"] == []
    assert "conversion rate: 100.0%" in r.stdout


def test_file_into_directory_and_into_py(project, tmp_path):
    src = project / "models" / "unet.py"
    assert msmigrate("convert", src, "-o", tmp_path / "o1").returncode == 0
    assert (tmp_path / "o1" / "unet.py").exists()
    assert msmigrate("convert", src, "-o", tmp_path / "o2" / "net_ms.py").returncode == 0
    assert (tmp_path / "o2" / "net_ms.py").exists()


def test_unsupported_gives_exit_3_marker_and_report(tmp_path):
    src = tmp_path / "m.py"
    src.write_text("import torch\n\nx = torch.zeros(2)\ny = torch.frobnicate(x)\n")
    r = msmigrate("convert", src, "-o", tmp_path / "out", "--report", tmp_path / "r.json")
    assert r.returncode == 3
    assert f"{src}:4: unsupported torch.frobnicate" in r.stdout
    out = (tmp_path / "out" / "m.py").read_text()
    assert "# msmigrate: unsupported torch.frobnicate: no MindSpore mapping" in out
    assert "import torch  # msmigrate: kept" in out
    compile(out, "m.py", "exec")
    rep = json.loads((tmp_path / "r.json").read_text())
    assert rep["unsupported"] == [{"file": str(src), "line": 4, "api": "torch.frobnicate",
                                   "reason": "no MindSpore mapping in msmigrate's table"}]


def test_bad_files_are_reported_and_the_rest_converts(tmp_path):
    src = tmp_path / "p"
    src.mkdir()
    (src / "good.py").write_text("import torch\nx = torch.zeros(2)\n")
    (src / "broken.py").write_text("import torch\n\ndef f(:\n    pass\n")
    (src / "latin.py").write_bytes(b"# caf\xe9\nimport torch\n")
    r = msmigrate("convert", src, "-o", tmp_path / "out", "--report", tmp_path / "r.json")
    assert r.returncode == 1
    assert f"{src / 'broken.py'}:3: error: syntax error" in r.stdout
    assert f"{src / 'latin.py'}:1: error: not UTF-8" in r.stdout
    assert "ops.zeros(2)" in (tmp_path / "out" / "good.py").read_text()
    assert "Traceback" not in r.stderr
    errors = json.loads((tmp_path / "r.json").read_text())["errors"]
    assert {(Path(e["file"]).name, e["line"]) for e in errors} == {("broken.py", 3), ("latin.py", 1)}


def test_never_writes_into_the_source_tree(project):
    before = _snapshot(project)
    r = msmigrate("convert", project, "-o", project / "ms")
    assert r.returncode == 2 and "inside the source tree" in r.stderr
    r = msmigrate("convert", project / "models" / "unet.py", "-o", project / "models")
    assert r.returncode == 2 and "overwrite the source file" in r.stderr
    assert _snapshot(project) == before


def test_usage_errors(tmp_path):
    assert msmigrate("convert", tmp_path / "missing.py").returncode == 2  # as every command (docs/exit_codes.md)
    assert msmigrate("convert").returncode == 2
    assert msmigrate("convert", tmp_path, "--jobs", "0").returncode == 2
    assert msmigrate().returncode == 2


def test_diff_without_output_writes_nothing(project, tmp_path):
    r = msmigrate("convert", project / "models" / "resnet.py", "--diff")
    assert r.returncode == 0
    assert "-class BasicBlock(nn.Module):\n+class BasicBlock(nn.Cell):" in r.stdout
    assert not (tmp_path / "resnet.py").exists()
