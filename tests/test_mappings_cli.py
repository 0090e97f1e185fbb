"""`msmigrate mappings` and `msmigrate scan`: output formats, the generated docs page, exit codes."""
import json
from pathlib import Path

import pytest

from migrate.cli import main
from migrate.commands import mappings as mappings_cmd
from migrate.mapping import load_table

DOC = Path(__file__).resolve().parents[1] / "docs" / "supported_apis.md"


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---- mappings -------------------------------------------------------------------------------------------
def test_mappings_text_lists_targets_and_reasons(capsys):
    code, out, _ = run_cli(capsys, "mappings")
    assert code == 0
    assert "torch.nn.Conv2d  [class]  -> mindspore.nn.Conv2d" in out
    assert "renames groups->group, bias->has_bias" in out
    assert "torch.nn.PairwiseDistance  [class]  -> unsupported" in out
    assert "no PairwiseDistance cell" in out
    assert "torch.nn.InstanceNorm2d  [class]  -> _MsmigrateInstanceNorm(2, {num_features}" in out
    assert "helper instance_norm: its MindSpore code is written into the converted file" in out
    assert f"{len(load_table())} APIs:" in out


def test_mappings_json_covers_every_entry(capsys):
    code, out, _ = run_cli(capsys, "mappings", "--format", "json")
    assert code == 0
    data = json.loads(out)
    table = load_table()
    assert data["total"] == len(table) == len(data["apis"])
    assert {d["torch"] for d in data["apis"]} == {e.torch for e in table.entries}
    for d in data["apis"]:
        assert d["kind"] in ("class", "function", "method", "attribute", "dtype")
        if d["status"] == "unsupported":
            assert d["reason"] and d["mindspore"] is None
        else:
            assert d.get("mindspore") or d.get("forms") or d.get("rule"), d
    smooth = next(d for d in data["apis"] if d["torch"] == "torch.nn.SmoothL1Loss")
    assert smooth["defaults"] == {"reduction": "'mean'"}


def test_mappings_filter(capsys):
    code, out, _ = run_cli(capsys, "mappings", "--filter", "nn.LSTM", "--format", "json")
    assert code == 0 and [d["torch"] for d in json.loads(out)["apis"]] == ["torch.nn.LSTM", "torch.nn.LSTMCell"]


def test_mappings_md_escapes_pipes():
    row = mappings_cmd.render_md([{"torch": "t.a", "kind": "function", "status": "supported", "mindspore": None,
                                   "file": "f.toml", "forms": [{"template": "a | b"}]}])
    assert "`a \\| b`" in row


def test_supported_apis_doc_is_up_to_date():
    """docs/supported_apis.md is generated: regenerate with `msmigrate mappings --format md > docs/supported_apis.md`."""
    fresh = mappings_cmd.render_md(mappings_cmd.collect())
    assert DOC.read_text(encoding="utf-8") == fresh, (
        "docs/supported_apis.md is stale: run `msmigrate mappings --format md > docs/supported_apis.md`")


def test_mappings_usage_error():
    with pytest.raises(SystemExit) as exc:
        main(["mappings", "--format", "yaml"])
    assert exc.value.code == 2


# ---- scan -----------------------------------------------------------------------------------------------
GOOD = """import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 2))
y = torch.relu(torch.zeros(3))
z = nn.Linear(2, 2)
"""
BAD = """import torch.nn as nn
import torch.nn.functional as F

dist = nn.PairwiseDistance()
x = F.one_hot(labels)
"""


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "good.py").write_text(GOOD)
    return root


def _snapshot(root):
    return {p: p.read_bytes() for p in root.rglob("*")if p.is_file()}


def test_scan_all_supported(capsys, project):
    before = _snapshot(project)
    code, out, _ = run_cli(capsys, "scan", str(project))
    assert code == 0
    assert "     3  supported    torch.nn.Linear" in out
    assert "unsupported uses: 0" in out
    assert _snapshot(project) == before  # nothing written


def test_scan_unsupported_with_file_line_and_reason(capsys, project):
    (project / "pkg" / "bad.py").write_text(BAD)
    code, out, _ = run_cli(capsys, "scan", str(project))
    assert code == 3
    bad = project / "pkg" / "bad.py"
    assert f"{bad}:4: torch.nn.PairwiseDistance: MindSpore 2.10 has no PairwiseDistance cell" in out
    assert f"{bad}:5: torch.nn.functional.one_hot: num_classes=-1" in out
    assert "unsupported  torch.nn.PairwiseDistance" in out
    assert "unsupported uses: 2 (2 APIs)" in out


def test_scan_json(capsys, project):
    (project / "pkg" / "bad.py").write_text(BAD)
    code, out, _ = run_cli(capsys, "scan", str(project), "--format", "json")
    assert code == 3
    data = json.loads(out)
    assert data["files"] == 2
    assert data["unsupported_apis"] == ["torch.nn.PairwiseDistance", "torch.nn.functional.one_hot"]
    linear = next(a for a in data["apis"] if a["api"] == "torch.nn.Linear")
    assert linear == {"api": "torch.nn.Linear", "uses": 3, "converted": 3, "unsupported": 0}
    assert data["api_uses"] == sum(a["uses"] for a in data["apis"])
    assert {u["line"] for u in data["unsupported"]} == {4, 5}


def test_scan_never_executes(capsys, tmp_path):
    marker = tmp_path / "ran"
    src = tmp_path / "evil.py"
    src.write_text(f"import torch\nopen({str(marker)!r}, 'w').write('x')\nx = torch.zeros(2)\n")
    code, _, _ = run_cli(capsys, "scan", str(src))
    assert code == 0 and not marker.exists()


def test_scan_input_errors(capsys, tmp_path):
    code, _, err = run_cli(capsys, "scan", str(tmp_path / "missing"))
    assert code == 2 and "no such file" in err
    (tmp_path / "broken.py").write_text("def f(:\n")
    code, out, _ = run_cli(capsys, "scan", str(tmp_path / "broken.py"))
    assert code == 1 and "syntax error" in out


def test_scan_usage_error():
    with pytest.raises(SystemExit) as exc:
        main(["scan"])
    assert exc.value.code == 2
