"""Parity loads real packages: relative imports, a package root above the file, package.module:NAME with --path,
and each side's imports kept apart (issue 17, last bullet)."""
from __future__ import annotations

import json
from pathlib import Path
import os
import subprocess
import sys

import pytest

pytest.importorskip("torch")
pytest.importorskip("mindspore")

from migrate.parity.loading import LoadError, load_object  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TORCH_BLOCKS = '''
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return self.bn(self.conv(x)).relu()
'''
TORCH_MODEL = '''
import torch.nn as nn

from .blocks import Block
from ..utils import width


class Net(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.a = Block(3, width(c))
        self.head = nn.Conv2d(width(c), 1, 1)

    def forward(self, x):
        return self.head(self.a(x))
'''


def _package(tmp_path):
    pkg = tmp_path / "proj" / "seg"
    (pkg / "nets").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "nets" / "__init__.py").write_text("")
    (pkg / "utils.py").write_text("def width(c):\n    return 2 * c\n")
    (pkg / "nets" / "blocks.py").write_text(TORCH_BLOCKS)
    (pkg / "nets" / "model.py").write_text(TORCH_MODEL)
    return tmp_path / "proj"


def test_file_inside_a_package_with_relative_imports(tmp_path):
    root = _package(tmp_path)
    net = load_object(f"{root}/seg/nets/model.py:Net", {"c": 3}, side="torch")
    assert type(net).__name__ == "Net" and net.head.in_channels == 6
    assert "seg" not in sys.modules and "seg.nets.model" not in sys.modules  # kept in the torch namespace


def test_dotted_target_with_path(tmp_path):
    root = _package(tmp_path)
    net = load_object("seg.nets.model:Net", {}, side="torch", paths=[str(root)])
    assert net.head.in_channels == 8
    with pytest.raises(LoadError, match="no such module"):
        load_object("seg.nets.nope:Net", {}, side="torch", paths=[str(root)])


def test_each_side_gets_its_own_module_of_the_same_name(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "m").mkdir()
    (tmp_path / "t" / "networks.py").write_text("import torch.nn as nn\nKIND = 'torch'\nclass Net(nn.Linear):\n"
                                                "    def __init__(self):\n        super().__init__(2, 2)\n")
    (tmp_path / "t" / "model.py").write_text("from networks import Net, KIND\n")
    (tmp_path / "m" / "networks.py").write_text("import mindspore.nn as nn\nKIND = 'ms'\nclass Net(nn.Dense):\n"
                                                "    def __init__(self):\n        super().__init__(2, 2)\n")
    (tmp_path / "m" / "model.py").write_text("from networks import Net, KIND\n")
    import mindspore as ms
    import torch

    t = load_object(f"{tmp_path}/t/model.py:Net", side="torch")
    m = load_object(f"{tmp_path}/m/model.py:Net", side="ms")
    assert isinstance(t, torch.nn.Module) and isinstance(m, ms.nn.Cell)
    assert type(m).__init__.__globals__["KIND"] == "ms" and type(t).__init__.__globals__["KIND"] == "torch"
    assert sys.modules.get("networks") is None or sys.modules["networks"].KIND == "ms"  # never torch's
    # the same side loads again (e.g. its loss): it shares that side's modules
    assert type(load_object(f"{tmp_path}/t/model.py:Net", side="torch")) is type(t)
    # one side loading two files of the same name from different folders (the weights command) gets each
    assert isinstance(load_object(f"{tmp_path}/m/model.py:Net", side="torch"), ms.nn.Cell)


def test_cli_parity_on_a_package_converted_on_the_fly(tmp_path):
    root = _package(tmp_path)
    r = subprocess.run([sys.executable, "-m", "migrate.cli", "parity", "seg.nets.model:Net", "--path", str(root),
                        "--input", "2,3,8,8", "--report", str(tmp_path / "rep"), "--no-color"],
                       cwd=tmp_path, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": ROOT},
                       timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    data = json.loads((tmp_path / "rep" / "parity.json").read_text())
    assert data["passed"] and {x["name"] for x in data["layers"]} >= {"a.conv", "a.bn", "head"}
    assert all("ratio" in x for x in data["layers"] + data["grads"])


def test_help_states_that_each_sides_imports_are_kept_apart(capsys):
    from migrate.cli import build_parser

    with pytest.raises(SystemExit) as exc:
        build_parser().parse_args(["parity", "--help"])
    assert exc.value.code == 0
    assert "docs/parity.md" in capsys.readouterr().out  # the help is short; the details are in the docs
    text = " ".join((Path(__file__).parents[2] / "docs" / "parity.md").read_text().split())
    assert "each side's imports are kept apart" in text
    assert "The parameter gradients decide" in text


STAR_PARTS = '''
import torch
import torch.nn as nn
import torch.nn.functional as F


class DoubleConv(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.bn = nn.BatchNorm2d(cout)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))
'''
STAR_MODEL = '''
from {dot}unet_parts import *


class UNet(nn.Module):
    def __init__(self, c=4):
        super().__init__()
        self.inc = DoubleConv(3, c)
        self.outc = nn.Conv2d(2 * c, 1, 1)

    def forward(self, x):
        x1 = self.inc(x)
        return self.outc(torch.cat([x1, F.relu(x1)], dim=1))
'''


@pytest.mark.parametrize("package", [True, False], ids=["package, relative star import", "folder, star import"])
def test_cli_parity_converts_star_imports_as_convert_dir_does(tmp_path, package):
    """``from .unet_parts import *`` (milesial's Pytorch-UNet): nn, F, torch and DoubleConv come from the sibling.
    Converted file by file, the model's `nn.Module` stayed torch's and importing the port raised; converted as a
    project (as `msmigrate convert DIR` does) the names resolve and parity holds."""
    d = tmp_path / "unet"
    d.mkdir()
    if package:
        (d / "__init__.py").write_text("")
    (d / "unet_parts.py").write_text(STAR_PARTS)
    (d / "unet_model.py").write_text(STAR_MODEL.format(dot="." if package else ""))
    r = subprocess.run([sys.executable, "-m", "migrate.cli", "parity", f"{d}/unet_model.py:UNet", "--input",
                        "2,3,8,8", "--no-color"], cwd=tmp_path, capture_output=True, text=True,
                       env={**os.environ, "PYTHONPATH": ROOT}, timeout=600)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    assert "PARITY HOLDS" in r.stdout
