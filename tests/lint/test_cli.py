"""``msmigrate lint``: formats, exit codes, bad input and --fix, through the CLI entry point."""
import json

import pytest

from migrate.cli import main

BAD = '''\
from mindspore import nn, ms_function


class Net(nn.Cell):
    def construct(self, x):
        acc = []
        for i in range(3):
            acc.append(self.fc(x) * i)
        print(x.shape)
        return sum(acc)


@ms_function
def step(x):
    return x
'''
CLEAN = '''\
from mindspore import nn, ops


class Net(nn.Cell):
    def construct(self, x, mask=None):
        if mask is None and x.shape[1] == 3:
            return ops.relu(x)
        return x


def report(losses):
    print(sum(losses))
'''


@pytest.fixture
def project(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "clean.py").write_text(CLEAN)
    return tmp_path


def test_text_format_and_exit_1(project, capsys):
    assert main(["lint", str(project / "bad.py")]) == 1
    lines = capsys.readouterr().out.splitlines()
    path = project / "bad.py"
    assert lines == [
        f"{path}:1:27: MS004 ms_function was removed from MindSpore 2.x "
        "(fix: use mindspore.jit (msmigrate lint --fix renames it))",
        f"{path}:9:9: MS003 print in compiled code runs as a graph operator on every step "
        "(fix: remove it, or debug in PyNative without ms.jit)",
        f"{path}:10:16: MS001 tensors in Python container 'acc' combined with Python arithmetic "
        "in compiled code (fix: combine with ops.stack(...).sum(axis=0) or ops.cat(...))",
        f"{path}:13:2: MS004 ms_function was removed from MindSpore 2.x "
        "(fix: use mindspore.jit (msmigrate lint --fix renames it))",
    ]


def test_json_format_over_a_directory(project, capsys):
    assert main(["lint", str(project), "--format", "json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert {d["path"] for d in data} == {str(project / "bad.py")}
    assert [(d["line"], d["rule"]) for d in data] == [(1, "MS004"), (9, "MS003"), (10, "MS001"),
                                                      (13, "MS004")]
    assert set(data[0]) == {"path", "line", "col", "rule", "message", "fix"}


def test_clean_file_exit_0(project, capsys):
    assert main(["lint", str(project / "clean.py")]) == 0
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "msmigrate lint: 1 file checked, no findings\n"  # a clean run is never silent


def test_summary_line_counts_files_and_findings(project, capsys):
    assert main(["lint", str(project)]) == 1
    assert capsys.readouterr().err.splitlines()[-1] == "msmigrate lint: 2 files checked, 4 findings in 1 file"


@pytest.mark.parametrize("content,expected", [
    (b"def f(:\n    pass\n", "bad.py:1:"),
    (b"x = 1\ny = '\xff\xfe'\n", "bad.py:2: not UTF-8"),
])
def test_unreadable_input_one_line_exit_2(tmp_path, capsys, content, expected):
    (tmp_path / "bad.py").write_bytes(content)
    assert main(["lint", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and expected in err and "Traceback" not in err


def test_missing_path_exit_2(tmp_path, capsys):
    assert main(["lint", str(tmp_path / "nope.py")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_usage_error_exit_2(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["lint", "x.py", "--format", "xml"])
    assert exc.value.code == 2


def test_fix_rewrites_only_safe_patterns(project, capsys):
    assert main(["lint", str(project), "--fix"]) == 1  # the print is not auto-fixed
    fixed = (project / "bad.py").read_text()
    assert "from mindspore import nn, jit\n" in fixed
    assert "@jit\n" in fixed and "ms_function" not in fixed
    assert "return ops.stack(acc).sum(axis=0)" in fixed
    assert "from mindspore import ops\n" in fixed
    assert "print(x.shape)" in fixed  # unsafe to remove automatically
    assert (project / "clean.py").read_text() == CLEAN
    out = capsys.readouterr().out.splitlines()
    assert [line.split(": ")[1].split()[0] for line in out] == ["MS003"]
    assert not [p for p in project.iterdir() if p.name.endswith(".tmp")]


def test_fix_leaves_everything_untouched_on_bad_input(project, capsys):
    (project / "broken.py").write_text("def f(:\n")
    assert main(["lint", str(project), "--fix"]) == 2
    assert (project / "bad.py").read_text() == BAD
