"""Progress bars: drawn on a terminal only (not in CI, not with --quiet, not when piped), and counting every file
with --jobs."""
import fcntl
import io
import os
import pty
import select
import struct
import subprocess
import sys
import termios

import pytest

from migrate.api import convert_path
from migrate.progress import Progress, wanted


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_wanted(monkeypatch, tmp_path):
    monkeypatch.delenv("CI", raising=False)
    assert wanted(stderr=Tty(), stdout=Tty())
    assert not wanted(quiet=True, stderr=Tty(), stdout=Tty())
    assert not wanted(stderr=io.StringIO(), stdout=Tty())  # stderr redirected
    assert not wanted(stderr=Tty(), stdout=io.StringIO())  # output captured
    r, w = os.pipe()
    with os.fdopen(w, "w") as pipe:
        assert not wanted(stderr=Tty(), stdout=pipe)  # `msmigrate scan . | less`
    os.close(r)
    with open(tmp_path / "out.txt", "w") as file:
        assert wanted(stderr=Tty(), stdout=file)  # `msmigrate scan . > out.txt`: the bar is still wanted
    for value in ("true", "1", "yes"):
        monkeypatch.setenv("CI", value)
        assert not wanted(stderr=Tty(), stdout=Tty())
    for value in ("", "0", "false"):
        monkeypatch.setenv("CI", value)
        assert wanted(stderr=Tty(), stdout=Tty())


@pytest.fixture
def project(tmp_path):
    src = tmp_path / "proj"
    src.mkdir()
    for i in range(7):
        (src / f"m{i}.py").write_text(f"import torch\nx{i} = torch.zeros({i + 1})\n")
    return src


@pytest.mark.parametrize("jobs", [1, 2])
def test_convert_path_ticks_once_per_file(project, jobs):
    calls = []
    report = convert_path(project, None, jobs=jobs, progress=calls.append)
    assert calls[0] == 7 == len(report.files)
    assert calls[1:] == [None] * 7


def _run_on_pty(args, env_extra=None, pipe_stdout=False, stdout=None):
    """Run the CLI with stderr (and stdout unless piped) on a pseudo-terminal; returns (terminal text, stdout)."""
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env.update(env_extra or {})
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 120, 0, 0))  # a terminal 120 columns wide
    proc = subprocess.Popen([sys.executable, "-m", "migrate.cli", *map(str, args)], stdin=subprocess.DEVNULL,
                            stdout=stdout or (subprocess.PIPE if pipe_stdout else slave), stderr=slave, env=env)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            proc.kill()
            raise AssertionError("the CLI hung")
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    out = proc.stdout.read().decode() if pipe_stdout else ""
    assert proc.wait(60) == 0
    os.close(master)
    return b"".join(chunks).decode(errors="replace"), out


@pytest.mark.slow
def test_bar_on_a_terminal_only(project, tmp_path):
    term, _ = _run_on_pty(["convert", project, "-o", tmp_path / "o1", "--jobs", "2"])
    assert "converting:" in term and "/7 [" in term and "0/7" in term  # tqdm's bar, with the right total
    assert "files: 7" in term
    for extra, args in (({"CI": "true"}, []), ({}, ["--quiet"])):
        term, _ = _run_on_pty(["convert", project, "-o", tmp_path / "o2", *args], env_extra=extra)
        assert "files: 7" in term and "converting" not in term and "it/s" not in term
    term, out = _run_on_pty(["scan", project], pipe_stdout=True)  # `msmigrate scan . | less`
    assert "scanning" not in term and "torch API uses: 7" in out
    with open(tmp_path / "scan.txt", "w") as file:  # `msmigrate scan . > scan.txt`: the bar stays on stderr
        term, _ = _run_on_pty(["scan", project], stdout=file)
    assert "scanning:" in term and "torch API uses: 7" in (tmp_path / "scan.txt").read_text()
    term, _ = _run_on_pty(["scan", project, "--jobs", "2"])
    assert "scanning:" in term and "0/7" in term


def test_progress_is_a_no_op_off_terminal(capsys):
    with Progress("x", total=3) as bar:  # pytest captures: not a terminal
        bar(None)
        bar.describe("y")
    assert bar.bar is None and capsys.readouterr().err == ""


@pytest.mark.slow
def test_weights_bar(tmp_path):
    import torch

    torch.save(torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).state_dict(),
               tmp_path / "m.pth")
    term, _ = _run_on_pty(["weights", tmp_path / "m.pth", "-o", tmp_path / "m.ckpt"])
    assert "reading m.pth" in term and "/3 [" in term and "wrote" in term
    term, _ = _run_on_pty(["weights", tmp_path / "m.pth", "-o", tmp_path / "m2.ckpt", "--quiet"])
    assert "reading" not in term and "wrote" in term
