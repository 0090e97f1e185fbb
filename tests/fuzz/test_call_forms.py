"""The fuzzer writes the call forms real code uses (issue 30): ``out=`` in four kinds and ``inplace=True`` from the
signature-driven generator, and the plain / out= / in-place forms of PyTorch's OpInfo samples; each kind runs
through the engine and matches torch (they gave other shapes and values before the out= / inplace= fixes)."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from migrate.mapping.table import load_table
from tests.fuzz.engine import run_example
from tests.fuzz.strategies import HEADER, OUT_FORMS, Example, calls


def _runs(api, n=60):
    seen = []
    entry = load_table().lookup(api)

    @settings(max_examples=n, database=None, derandomize=True, suppress_health_check=list(HealthCheck), deadline=None)
    @given(calls(entry))
    def draw(example):
        seen.append(example.run)

    draw()
    return seen


def test_generator_writes_out_and_inplace_forms():
    adds = _runs("torch.add")
    assert any("out=o" in r for r in adds) and any(r.startswith("out = torch.add(") for r in adds)
    relus = _runs("torch.nn.functional.relu")
    assert any("inplace=True" in r and "out = (r, " in r for r in relus)


@pytest.mark.parametrize("kind", sorted(OUT_FORMS))
def test_each_out_form_matches(kind):
    x = np.array([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]], dtype="float32")
    run = OUT_FORMS[kind].format(call="torch.exp(x)") + "r = torch.exp(x, out=o)\nout = (r, o)\n"
    outcome = run_example(Example("torch.exp", f"{HEADER}# @run\n{run}", {"x": x}, run=run))
    assert outcome.kind == "match", outcome


def test_inplace_form_matches():
    x = np.array([[0.5, -1.5, 2.0], [3.0, -0.25, 1.0]], dtype="float32")
    run = "r = F.leaky_relu(x, 0.2, inplace=True)\nout = (r, x)\n"
    outcome = run_example(Example("torch.nn.functional.leaky_relu", f"{HEADER}# @run\n{run}", {"x": x}, run=run))
    assert outcome.kind == "match", outcome


def test_opinfo_samples_in_three_forms():
    pytest.importorskip("expecttest")
    from tests.fuzz.opinfo import examples

    found = examples("torch.add")
    runs = [e.run for e in found]
    assert any("out=o" in r for r in runs) and any(".add_(" in r for r in runs) and any(
        r.startswith("out = torch.add(") for r in runs)
    for example in found[:9]:
        outcome = run_example(example)
        assert outcome.kind in ("match", "both_raise"), (example.run, outcome)
