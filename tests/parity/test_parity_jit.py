"""`msmigrate parity --jit`: the MindSpore model in PyNative vs under ms.jit, after the torch comparison."""
import json
import subprocess
import sys

from tests.convert.models import RESNET

REVERSED_SKIPS = '''
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.downs = nn.ModuleList([nn.Conv2d(3, 4, 3, padding=1), nn.Conv2d(4, 6, 3, padding=1)])
        self.ups = nn.ModuleList([nn.Conv2d(12, 4, 3, padding=1), nn.Conv2d(8, 3, 3, padding=1)])

    def forward(self, x):
        skips = []
        for down in self.downs:
            x = down(x)
            skips.append(x)
        for up, skip in zip(self.ups, reversed(skips)):
            x = up(torch.cat([x, skip], dim=1))
        return x
'''


def _parity(tmp_path, source, name, *extra):
    src = tmp_path / "model.py"
    src.write_text(source)
    return subprocess.run([sys.executable, "-m", "migrate.cli", "parity", f"{src}:{name}", "--input", "2,3,16,16",
                           "--jit", "--report", tmp_path / "rep", "--no-color", *extra],
                          capture_output=True, text=True, timeout=600)


def test_jit_parity_holds_for_a_resnet(tmp_path):
    r = _parity(tmp_path, RESNET, "ResNet")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    jit = json.loads((tmp_path / "rep" / "parity.json").read_text())["jit"]
    assert jit["ok"] and jit["gradients"] and not jit["vanished"] and not jit["differing"]


def test_jit_parity_catches_what_compiling_changes(tmp_path):
    """reversed() over a Python list in construct: eager parity holds, the compiled model does not compute it."""
    r = _parity(tmp_path, REVERSED_SKIPS, "Net")
    assert r.returncode == 1, r.stdout[-3000:] + r.stderr[-2000:]
    report = json.loads((tmp_path / "rep" / "parity.json").read_text())
    assert all(layer["passed"] for layer in report["layers"])  # eager: faithful
    assert not report["jit"]["ok"]
