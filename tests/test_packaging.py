"""The wheel's package list (pyproject.toml names every package, so that the top-level mappings/ can be installed as
migrate/mappings/) covers every package of migrate/; the table is found from a checkout and from an install."""
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from migrate.mapping.table import MAPPINGS_DIR, builtin_mappings_dir

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_is_in_the_wheel():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "migrate").rglob("__init__.py")}
    assert found | {"migrate.mappings"} == set(config["packages"])
    assert config["package-dir"]["migrate.mappings"] == "mappings"
    assert set(config["package-data"]["migrate.mappings"]) == {"*.toml", "*.txt"}


def test_the_table_is_the_top_level_mappings_folder():
    assert builtin_mappings_dir() == ROOT / "mappings"  # a checkout: no migrate/mappings/
    assert (ROOT / "mappings" / "nn_layers.toml").is_file() and not (ROOT / "migrate" / "mappings").exists()
    if not os.environ.get("MSMIGRATE_MAPPINGS"):
        assert MAPPINGS_DIR == ROOT / "mappings"


def test_msmigrate_mappings_names_another_table(tmp_path):
    (tmp_path / "mine.toml").write_text('[[api]]\ntorch = "torch.zeros"\nkind = "function"\n'
                                        'ms = "mindspore.ops.zeros"\n')
    env = {**os.environ, "MSMIGRATE_MAPPINGS": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "migrate.cli", "mappings", "--format", "json"], capture_output=True,
                       text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert [a["torch"] for a in json.loads(r.stdout)["apis"]] == ["torch.zeros"]
    (tmp_path / "mine.toml").write_text('[[api]]\ntorch = "torch.zeros"\nkind = "nonsense"\n')
    r = subprocess.run([sys.executable, "-m", "migrate.cli", "mappings"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 2 and "mine.toml" in r.stderr  # an invalid table: one line naming the file, exit 2
