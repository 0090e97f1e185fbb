"""`msmigrate lint --format github|sarif` for CI, and the pre-commit hook definition.

The SARIF log is read back with sarif-pydantic (a SARIF 2.1.0 object model from the package index), and every
result is checked against the findings of `--format json`."""
import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

import nbformat
import pytest
import yaml
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
from sarif_pydantic import Level, Sarif

from migrate.cli import main
from migrate.lint.registry import RULES

ROOT = Path(__file__).resolve().parents[2]
BAD = '''\
from mindspore import nn, ms_function


class Net(nn.Cell):
    def construct(self, x):
        acc = []
        for i in range(3):
            acc.append(self.fc(x) * i)
        print(x.shape)
        return sum(acc)
'''
ANNOTATION = re.compile(r"^::error file=(?P<file>[^,]*),line=(?P<line>\d+),col=(?P<col>\d+),title=(?P<title>[^:]*)::"
                        r"(?P<message>.*)$")


def _unescape(text):
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":").replace("%2C", ",").replace("%25", "%")


@pytest.fixture
def project(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "odd, name: 100%.py").write_text(BAD)  # characters GitHub's command syntax must escape
    nb = new_notebook(cells=[new_markdown_cell("# notes"), new_code_cell("from mindspore import nn\n%time x = 1"),
                             new_code_cell("class Net(nn.Cell):\n    def construct(self, x):\n        print(x)\n"
                                           "        return x")])
    nbformat.write(nb, tmp_path / "nb.ipynb")
    return tmp_path


def _json(capsys, *paths):
    assert main(["lint", *map(str, paths), "--format", "json"]) == 1
    return json.loads(capsys.readouterr().out)


def test_github_annotations(project, capsys):
    expected = _json(capsys, project)
    assert main(["lint", str(project), "--format", "github"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == len(expected) == 7
    for line, f in zip(lines, expected):
        m = ANNOTATION.match(line)
        assert m, line
        assert _unescape(m["file"]) == f["path"] and m["title"] == f["rule"]
        message = _unescape(m["message"])
        if "cell" not in f:
            assert (int(m["line"]), int(m["col"])) == (f["line"], f["col"])
            assert message == f"{f['rule']} {f['message']} (fix: {f['fix']})"
        else:  # the line of the .ipynb file that holds the cell's line
            text = Path(f["path"]).read_text().splitlines()[int(m["line"]) - 1]
            assert "print(x)" in text
            assert message.startswith(f"cell {f['cell']}, line {f['line']}: {f['rule']} ")
    assert any("odd%2C name%3A 100%25.py" in line for line in lines)  # escaped property value


def test_sarif_read_back(project, capsys, tmp_path):
    expected = _json(capsys, project)
    assert main(["lint", str(project), "--format", "sarif"]) == 1
    out = capsys.readouterr().out
    (tmp_path / "lint.sarif").write_text(out)
    log = Sarif.model_validate_json(out)
    assert log.version == "2.1.0"
    assert len(log.runs) == 1
    run = log.runs[0]
    driver = run.tool.driver
    assert driver.name == "msmigrate-lint"
    assert [r.id for r in driver.rules] == [r.ID for r in RULES]
    assert all(r.short_description.text and r.help.text for r in driver.rules)
    assert len(run.results) == len(expected)
    for result, f in zip(run.results, expected):
        assert result.rule_id == f["rule"]
        assert driver.rules[result.rule_index].id == f["rule"]
        assert result.level == Level.ERROR
        loc = result.locations[0].physical_location
        uri = urlparse(loc.artifact_location.uri)
        assert uri.scheme == "file" and Path(unquote(uri.path)) == Path(f["path"])
        if "cell" in f:
            assert result.properties == {"cell": f["cell"], "cellLine": f["line"], "cellColumn": f["col"]}
            text = Path(f["path"]).read_text().splitlines()[loc.region.start_line - 1]
            assert "print(x)" in text
            assert result.message.text.startswith(f"cell {f['cell']}, line {f['line']}: ")
        else:
            assert (loc.region.start_line, loc.region.start_column) == (f["line"], f["col"])
            assert result.message.text == f"{f['message']} (fix: {f['fix']})"


def test_sarif_clean_run_has_no_results(tmp_path, capsys):
    (tmp_path / "ok.py").write_text("from mindspore import ops\n\n\ndef f(x):\n    return ops.relu(x)\n")
    assert main(["lint", str(tmp_path / "ok.py"), "--format", "sarif"]) == 0
    log = Sarif.model_validate_json(capsys.readouterr().out)
    assert log.runs[0].results == []
    assert main(["lint", str(tmp_path / "ok.py"), "--format", "github"]) == 0
    assert capsys.readouterr().out == ""


def test_relative_paths_stay_relative(project, capsys, monkeypatch):
    monkeypatch.chdir(project)
    assert main(["lint", "bad.py", "--format", "sarif"]) == 1
    log = Sarif.model_validate_json(capsys.readouterr().out)
    assert {r.locations[0].physical_location.artifact_location.uri for r in log.runs[0].results} == {"bad.py"}


def test_pre_commit_hook_definition_runs_the_linter(project):
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    by_id = {h["id"]: h for h in hooks}
    hook = by_id["msmigrate-lint"]
    assert hook["language"] == "python" and set(hook["types_or"]) == {"python", "jupyter"}
    # the entry is the installed console script; pre-commit appends the staged file names
    scripts = re.search(r"\[project\.scripts\]\s*\nmsmigrate = \"([^\"]+)\"", (ROOT / "pyproject.toml").read_text())
    assert scripts and scripts[1] == "migrate.cli:main"
    entry = hook["entry"].split()
    assert entry[0] == "msmigrate"
    run = lambda *files: subprocess.run([sys.executable, "-m", "migrate.cli", *entry[1:], *map(str, files)],  # noqa
                                        capture_output=True, text=True, cwd=ROOT, timeout=120)
    r = run(project / "bad.py", project / "nb.ipynb")
    assert r.returncode == 1 and "MS001" in r.stdout and "nb.ipynb:cell 3:line 3:col 9: MS003" in r.stdout
    (project / "ok.py").write_text("x = 1\n")
    assert run(project / "ok.py").returncode == 0
    assert by_id["msmigrate-lint-fix"]["entry"] == "msmigrate lint --fix"
