"""benchmarks/real_models.py, the real-model corpus: its table and a fast subset end to end.

The end-to-end test downloads torchvision's wheel (pip download, into a temporary corpus), converts the package with
the real CLI and runs two small models through build, weight copy and parity. It is skipped only when the download
is impossible (no package index reachable), and says so.
"""
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import real_models  # noqa: E402

FAST = ["torchvision/resnet18", "torchvision/mobilenet_v3_small"]


def test_corpus_covers_the_issue():
    ids = [c.id for c in real_models.CASES]
    assert len(ids) == len(set(ids))
    assert sum(i.startswith("timm/") for i in ids) >= 40
    for arch in ("Unet", "UnetPlusPlus", "FPN", "DeepLabV3"):
        assert any(i.startswith(f"smp/{arch}-resnet") for i in ids), arch
    assert any(i.startswith("smp/Unet-vgg") for i in ids)
    for name in ("vgg16_bn", "resnet152", "mobilenet_v2", "mobilenet_v3_large", "efficientnet_b0",
                 "deeplabv3_resnet50", "fcn_resnet50"):
        assert f"torchvision/{name}" in ids


def test_table_gives_every_failure_its_stage_and_reason():
    rows = [
        {"id": "torchvision/a", "builds": True, "passed": True, "stage": None, "error": None, "markers": 0,
         "first_divergence": None, "seconds": 1.0},
        {"id": "timm/b", "builds": True, "passed": False, "stage": "parity-forward",
         "error": "first divergence at blocks.0 | x", "markers": 2, "first_divergence": {"forward": "blocks.0"},
         "seconds": 2.5},
        {"id": "timm/c", "builds": False, "passed": False, "stage": "import-ms",
         "error": "TypeError: boom (at ms/timm/x.py:3)", "markers": None, "first_divergence": None, "seconds": 0.5},
    ]
    conv = [{"package": "timm", "rc": 3, "ok": True, "seconds": 9.0, "files": 3, "markers": 7, "error": None}]
    md = real_models.render(rows, conv, {"timm": "1.0.31"}, 60.0)
    assert "**1 / 3 models pass parity (33%); 2 / 3 build in MindSpore (67%).**" in md
    assert "| timm/b | 2 | yes | fail | forward: blocks.0 | 2.5 | parity-forward: first divergence at blocks.0 \\| x |" in md
    assert "| timm/c | - | no | - | - | 0.5 | import-ms: TypeError: boom (at ms/timm/x.py:3) |" in md
    assert "| import-ms | 1 |" in md and "| parity-forward | 1 |" in md


def test_a_table_reads_back_as_a_run_for_merge(tmp_path):
    """``--merge docs/real_models.md new.json``: the table's rows come back as written, the new run's replace them."""
    rows = [
        {"id": "torchvision/resnet18", "builds": True, "passed": True, "stage": None, "error": None, "markers": 0,
         "first_divergence": None, "seconds": 1.0},
        {"id": "timm/resnet18", "builds": True, "passed": False, "stage": "parity-forward",
         "error": "first divergence at blocks.0 | x", "markers": 2,
         "first_divergence": {"forward": "blocks.0", "backward": "head"}, "seconds": 2.5},
    ]
    conv = [{"package": "torchvision", "rc": 3, "ok": True, "seconds": 9.0, "files": 3, "markers": 7, "error": None},
            {"package": "timm", "rc": 3, "ok": True, "seconds": 5.0, "files": 2, "markers": 1, "error": None}]
    old = tmp_path / "old.md"
    old.write_text(real_models.render(rows, conv, {"torchvision": "0.28.0", "timm": "1.0.31"}, 60.0, "Run: then."))
    run = real_models.table_run(str(old))
    assert run["versions"] == {"torchvision": "0.28.0", "timm": "1.0.31"}
    assert [c["markers"] for c in run["conversions"]] == [7, 1]
    back = {r["id"]: r for r in run["rows"]}
    for r in rows:
        for k in ("builds", "passed", "stage", "error", "markers", "first_divergence", "seconds"):
            assert back[r["id"]][k] == r[k], (r["id"], k)
    new = tmp_path / "new.json"
    fixed = dict(rows[1], passed=True, stage=None, error=None, first_divergence=None)
    new.write_text(json.dumps({"rows": [fixed], "conversions": conv, "versions": {}, "run": "a run of now"}))
    out = tmp_path / "merged.md"
    assert real_models.merge([str(old), str(new)], str(out)) == 0
    md = out.read_text()
    assert "**2 / 2 models pass parity (100%)" in md and "| torchvision/resnet18 | 0 | yes | pass |" in md
    assert "1 model(s) (timm) from a run of now" in md and "1 model(s) (torchvision) from the earlier table old.md (Run: then)" in md


def test_progress_bar_counts():
    out = io.StringIO()
    bar = real_models.Progress(2, stream=out, width=10)
    bar.finish({"id": "x/a", "passed": True, "builds": True, "stage": None, "seconds": 1.0})
    bar.finish({"id": "x/b", "passed": False, "builds": False, "stage": "build-ms", "seconds": 2.0})
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[#####.....] 1/2 passed 1 built 1 | x/a pass 1.0s")
    assert lines[1].startswith("[##########] 2/2 passed 1 built 1 | x/b FAIL build-ms 2.0s")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    d = str(tmp_path_factory.mktemp("corpus"))
    try:
        real_models.fetch(d, ["torchvision"], log=lambda s: None)
    except (real_models.FetchError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"the corpus cannot be downloaded here: {exc}")
    return d


@pytest.mark.slow
def test_fast_subset_end_to_end(corpus, tmp_path):
    out = tmp_path / "real_models.md"
    js = tmp_path / "rows.json"
    args = [sys.executable, os.path.join(ROOT, "benchmarks", "real_models.py"), "--corpus", corpus, "--out", str(out),
            "--json", str(js), "--timeout", "400"]
    for m in FAST:
        args += ["--only", m]
    r = subprocess.run(args, capture_output=True, text=True, timeout=1500, cwd=ROOT,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert r.returncode == 0, r.stderr[-2000:]
    data = json.loads(js.read_text())
    rows = {row["id"]: row for row in data["rows"]}
    assert set(FAST) <= set(rows)
    conv = data["conversions"][0]
    assert conv["package"] == "torchvision" and conv["files"] > 100, conv  # the real CLI converted the package
    md = out.read_text()
    for m in FAST:
        row = rows[m]
        assert f"| {m} |" in md
        # converted with no hand edit, built, weights copied, parity forward and backward held
        assert row["passed"] and row["builds"] and row["stage"] is None, row
        assert row["markers"] is not None  # markers left in the files of the model's classes were counted
    assert "passed" in r.stderr and "/2" in r.stderr  # the progress bar


# ---- the later stages, on a small corpus written here (both sides by hand, as a converted package would be)
TORCH_SIDE = '''import torch.nn as nn


class Net(nn.Module):
    def __init__(self, slope=0.1):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.act = nn.LeakyReLU(slope)
        self.fc = nn.Linear(4, 2)

    def forward(self, x):
        return self.fc(self.act(self.bn(self.conv(x))).mean((2, 3)))


def good(**kw):
    return Net()


def wrong_slope(**kw):
    return Net()


def broken(**kw):
    return Net()
'''
MS_SIDE = '''from mindspore import nn


class Net(nn.Cell):
    def __init__(self, slope=0.1):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1, pad_mode="pad", has_bias=True)
        self.bn = nn.BatchNorm2d(4, momentum=0.9)
        self.act = nn.LeakyReLU(slope)
        self.fc = nn.Dense(4, 2)

    def construct(self, x):
        return self.fc(self.act(self.bn(self.conv(x))).mean((2, 3)))


def good(**kw):
    return Net()


def wrong_slope(**kw):
    return Net(slope=0.3)  # a planted port bug


def broken(**kw):
    raise ValueError("planted build failure")
'''


@pytest.fixture(scope="module")
def small_corpus(tmp_path_factory):
    d = tmp_path_factory.mktemp("small")
    for side, text in (("site", TORCH_SIDE), ("ms", MS_SIDE)):
        pkg = d / side / "torchvision"
        pkg.mkdir(parents=True)
        (pkg / "__init__.py").write_text("")
        (pkg / "tiny.py").write_text(text)
    (d / "ms" / "torchvision" / "tiny.py").write_text(
        MS_SIDE.replace("class Net", "# msmigrate: unsupported torch.x: planted\nclass Net", 1))
    return str(d)


def _case(factory):
    return real_models.Case(f"torchvision/{factory}", "torchvision.tiny", factory, input=(2, 3, 8, 8))


@pytest.fixture
def in_process():
    """run_case in this process (the subprocess wrapper is tested once): sys.path and modules put back after."""
    path = list(sys.path)
    yield lambda case, corpus: real_models.run_case(case, corpus)
    sys.path[:] = path
    real_models._purge()


@pytest.mark.slow
def test_a_faithful_port_passes_and_names_of_both_sides_stay_apart(small_corpus):
    row = real_models.run_in_subprocess(_case("good"), small_corpus, timeout=300)
    assert row["passed"] and row["builds"] and row["stage"] is None, row
    assert row["markers"] == 1 and row["files"] == ["torchvision/tiny.py"]


def test_a_planted_divergence_is_named(small_corpus, in_process):
    row = in_process(_case("wrong_slope"), small_corpus)
    assert row["builds"] and not row["passed"]
    assert row["stage"] == "parity-forward"
    assert row["first_divergence"]["forward"] == "act"
    assert row["error"].startswith("first divergence at act")


def test_a_build_failure_names_the_stage_and_the_converted_line(small_corpus, in_process):
    row = in_process(_case("broken"), small_corpus)
    assert not row["builds"] and row["stage"] == "build-ms"
    lines = (Path(small_corpus) / "ms" / "torchvision" / "tiny.py").read_text().splitlines()
    line = next(i for i, ln in enumerate(lines, 1) if "raise ValueError" in ln)
    assert row["error"] == f"ValueError: planted build failure (at ms/torchvision/tiny.py:{line})"
