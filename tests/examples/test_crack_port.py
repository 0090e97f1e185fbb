"""examples/crack_unet/mindspore is exactly what `msmigrate convert` makes of examples/crack_unet/torch."""
from pathlib import Path

from migrate import convert_path

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "crack_unet"


def test_checked_in_port_is_the_converter_output(tmp_path):
    report = convert_path(EXAMPLE / "torch", tmp_path / "ms")
    assert report.unsupported == [] and report.errors == []
    assert report.conversion_rate == 1.0
    generated = {p.relative_to(tmp_path / "ms"): p.read_text() for p in (tmp_path / "ms").rglob("*") if p.is_file()}
    checked_in = {p.relative_to(EXAMPLE / "mindspore"): p.read_text()
                  for p in (EXAMPLE / "mindspore").rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert sorted(generated) == sorted(checked_in)
    stale = [str(name) for name in generated if generated[name] != checked_in[name]]
    assert not stale, f"regenerate with: msmigrate convert examples/crack_unet/torch -o examples/crack_unet/mindspore ({stale})"


def test_port_has_no_torch_left():
    for path in (EXAMPLE / "mindspore").glob("*.py"):
        text = path.read_text()
        assert "import torch" not in text and "from torch" not in text, path
        assert "msmigrate: unsupported" not in text, path
