"""benchmarks/real_models.py --research, a fast subset end to end: crack / defect models from public research
repositories, checked out at their pinned commits from the local git mirrors, converted with the real CLI (each
model folder as one project), built in both frameworks, weights copied, and parity run forward and backward.

Skipped, saying why, when the mirror of a repository is absent (``MSMIGRATE_MIRROR`` or ``../.mirror`` beside the
checkout; benchmarks/real_models.py names how to fetch one). Inputs are smaller than the benchmark's, so the
subset stays well under a minute of model time.
"""
import dataclasses
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import real_models  # noqa: E402

# (model id, a smaller input than the benchmark's where the model takes any size)
FAST = [
    ("research/segdecnet/DecisionNet", None),
    ("research/yakhyo-crack/UNet", (1, 3, 64, 64)),
    ("research/crackseu/CrackSeU_B_BN", (1, 3, 64, 64)),  # the numpy-scalar tanh-GELU (rewrite/operators.py)
    ("research/mts-crack/Decoder", None),
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    cases = {c.id: c for c in real_models.RESEARCH}
    repos = {cases[i].repo for i, _ in FAST}
    missing = [real_models.REPOS[r].github for r in repos if real_models._git_dir(real_models.REPOS[r],
                                                                                 real_models.MIRROR) is None]
    if missing:
        pytest.skip(f"no git mirror of {', '.join(sorted(missing))} under {real_models.MIRROR} (set "
                    "MSMIGRATE_MIRROR; benchmarks/real_models.py --research prints how to fetch one)")
    try:  # einops / torchvision (no dependencies) into benchmarks/corpus/deps, once: CrackSeU imports torchvision
        real_models.research_deps(real_models.CORPUS, log=lambda s: None)
    except Exception as exc:  # noqa: BLE001 - no package index reachable
        pytest.skip(f"cannot install the research models' dependencies: {exc}")
    root = tmp_path_factory.mktemp("research_corpus")
    os.symlink(os.path.join(real_models.CORPUS, "deps"), os.path.join(root, "deps"))
    conversions = {}
    for key in sorted(repos):
        why = real_models.checkout(real_models.REPOS[key], real_models.MIRROR, str(root))
        assert why is None, why
        conversions[key] = real_models.convert_repo(real_models.REPOS[key], str(root))
    return str(root), conversions


def test_crack_repositories_convert_with_the_cli(corpus):
    _, conversions = corpus
    for key, c in conversions.items():
        assert c["ok"], f"{key}: {c['error']}"
        assert c["rc"] in (0, 3) and c["files"] >= 1, c


def test_crack_models_build_and_pass_parity(corpus):
    root, _ = corpus
    cases = {c.id: c for c in real_models.RESEARCH}
    todo = [dataclasses.replace(cases[i], input=shape) if shape else cases[i] for i, shape in FAST]
    rows = real_models.run_batch(todo, root, timeout=240)
    failed = [f"{r['id']}: {r['stage']}: {r['error']}" for r in rows if not r["passed"]]
    assert len(rows) == len(FAST) and not failed, "\n".join(failed)


def test_research_table_counts_silent_failures():
    rows = [
        {"id": "research/segdecnet/DecisionNet", "builds": True, "passed": True, "stage": None, "error": None,
         "markers": 0, "seconds": 1.0},
        {"id": "research/starkan/StarKAN", "builds": False, "passed": False, "stage": "build-ms",
         "error": "ValueError: in_channels | 0", "markers": 0, "seconds": 2.0},
        {"id": "research/ct-crackseg/TransMUNet", "builds": True, "passed": False, "stage": "parity",
         "error": "TypeError: x", "markers": 2, "seconds": 3.0},
        {"id": "research/linkcrack/LinkCrack", "builds": False, "passed": False, "stage": "fetch",
         "error": "no mirror", "markers": None, "seconds": 0.0},
    ]
    md = real_models.render_research(rows, [], 6.0)
    assert "**1 / 4 research models pass parity; 2 / 4 build in MindSpore; 1 silent failure(s). " \
           "Crack / defect models: 1 / 4 pass.**" in md
    assert "| research/starkan/StarKAN | 0 | silent fail (build-ms) | ValueError: in_channels \\| 0 | 2.0 |" in md
    assert "| research/ct-crackseg/TransMUNet | 2 | fail (parity) | TypeError: x | 3.0 |" in md
    doc = "# Real models\n\nlibrary table\n"
    both = real_models.splice(doc, research=md)
    assert both.startswith(doc) and real_models.RESEARCH_HEAD in both
    again = real_models.splice(both, library="# Real models\n\nnew library table\n")
    assert "new library table" in again and "\nlibrary table" not in again
    assert again.endswith(md), "regenerating the library table keeps the research section"


def test_the_research_table_reads_back_and_merges(tmp_path):
    """An --only run (or --research --merge) updates its rows of the table it writes: the rows already there are
    read back (verdict, stage, cause, markers, seconds; built = passed or stopped after the MindSpore build)."""
    rows = [
        {"id": "research/segdecnet/DecisionNet", "builds": True, "passed": True, "stage": None, "error": None,
         "markers": 0, "seconds": 1.0},
        {"id": "research/starkan/StarKAN", "builds": False, "passed": False, "stage": "build-ms",
         "error": "ValueError: in_channels | 0", "markers": 0, "seconds": 2.0},
        {"id": "research/semseg/segnet", "builds": True, "passed": False, "stage": "parity", "error": "TypeError: x",
         "markers": 1, "seconds": 3.0},
    ]
    conv = [{"package": "semseg", "rc": 1, "ok": True, "seconds": 4.0, "files": 10, "markers": 6,
             "error": "ptsemseg/models: 1 file(s) not converted: x.py", "summary": ""}]
    doc = tmp_path / "real_models.md"
    doc.write_text("# Real models\n\nlibrary\n\n" + real_models.render_research(rows, conv, 6.0, "Run: then."))
    back = real_models.research_table_run(str(doc))
    assert [(r["id"], r["passed"], r["builds"], r["stage"], r["error"], r["markers"]) for r in back["rows"]] == [
        (r["id"], r["passed"], r["builds"], r["stage"], r["error"], r["markers"]) for r in rows]
    assert back["conversions"][0]["error"] == conv[0]["error"] and back["conversions"][0]["ok"]
    new = tmp_path / "run.json"
    new.write_text('{"rows": [{"id": "research/semseg/segnet", "builds": true, "passed": true, "stage": null, '
                   '"error": null, "markers": 0, "seconds": 5.0, "run": "now"}], "conversions": []}')
    assert real_models.merge_research([str(doc), str(new)], str(doc)) == 0
    text = doc.read_text()
    assert text.startswith("# Real models\n\nlibrary\n") and "| research/semseg/segnet | 0 | pass |  | 5.0 |" in text
    assert "| research/starkan/StarKAN | 0 | silent fail (build-ms) |" in text and "(then)" in text
