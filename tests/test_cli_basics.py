"""What every command shares: a short --help with an example, --version, one exit-code scheme (docs/exit_codes.md)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from migrate import __version__
from migrate.cli import COMMANDS, main

ROOT = Path(__file__).resolve().parents[1]


def _help(command: str) -> str:
    env = {**os.environ, "COLUMNS": "80"}
    r = subprocess.run([sys.executable, "-m", "migrate.cli", command, "--help"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_is_short_with_an_example_and_the_exit_codes(command):
    text = _help(command)
    assert len(text.splitlines()) <= 60, f"`msmigrate {command} --help` is {len(text.splitlines())} lines"
    assert re.search(rf"^\s+msmigrate {command} \S", text, re.M), "no example line"
    flat = " ".join(text.split())
    assert "exit codes: 0 done" in flat and "2 usage or input error" in flat


def test_version(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0 and capsys.readouterr().out.strip() == f"msmigrate {__version__}"


def test_a_missing_path_is_exit_2_in_every_command(tmp_path, capsys):
    missing = str(tmp_path / "missing.py")
    assert main(["convert", missing, "-o", str(tmp_path / "out")]) == 2
    assert main(["scan", missing]) == 2
    assert main(["lint", missing]) == 2
    assert main(["convert", str(tmp_path / "missing.onnx"), "-o", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert err.count("no such file") == 4 and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("argv", [["weights", "{m}.pth", "-o", "{t}/x.ckpt"], ["parity", "{m}.py:Net", "--input", "1,3"]])
def test_a_missing_path_is_exit_2_in_the_framework_commands(tmp_path, argv):
    pytest.importorskip("torch")
    pytest.importorskip("mindspore")
    args = [a.format(m=tmp_path / "missing", t=tmp_path) for a in argv]
    r = subprocess.run([sys.executable, "-m", "migrate.cli", *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "missing" in r.stderr, r.stderr


def test_the_exit_code_table_matches_the_code():
    """docs/exit_codes.md is the one table; its numbers are migrate/exitcodes.py's."""
    from migrate import exitcodes

    doc = (ROOT / "docs" / "exit_codes.md").read_text(encoding="utf-8")
    for code in (exitcodes.OK, exitcodes.FAILED, exitcodes.USAGE, exitcodes.UNSUPPORTED):
        assert re.search(rf"^\| \*\*{code}\*\* \|", doc, re.M), code
    for command in COMMANDS:
        assert f"`{command}`" in doc
