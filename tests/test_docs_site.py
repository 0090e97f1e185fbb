"""The README stays a short first page; everything else is the mkdocs site, which builds with no warning."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_is_short_and_starts_with_the_recipe():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 15 * 1024
    head = text[:2500]
    assert "make demo" in head and "make test" in head
    for command in ("msmigrate convert", "msmigrate weights", "msmigrate parity"):
        assert command in text
    for target in re.findall(r"\]\(([^)#:]+)\)", text):  # every relative link of the README exists
        assert (ROOT / target).exists(), target


def test_mkdocs_build_strict_has_no_warning(tmp_path):
    mkdocs = shutil.which("mkdocs", path=os.path.dirname(sys.executable)) or shutil.which("mkdocs")
    assert mkdocs, "mkdocs is a dev dependency (pip install -e '.[dev]')"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # mkdocs-material's banner about its successor
    r = subprocess.run([mkdocs, "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "WARNING" not in r.stdout + r.stderr, r.stdout + r.stderr
    assert (tmp_path / "site" / "index.html").is_file()
