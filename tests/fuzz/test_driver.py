"""The fuzz driver goes on past an example that stopped an earlier process (benchmarks/fuzz_mappings.py restarts its
worker after a MindSpore segfault or a hang and hands the stopped examples over as ``stops``)."""
import os

from migrate.mapping.table import load_table
from tests.fuzz.driver import fuzz
from tests.fuzz.engine import Outcome
from tests.fuzz.strategies import calls

os.environ.setdefault("GLOG_v", "4")


def _strategy(name):
    return calls(next(e for e in load_table().entries if e.torch == name))


def test_stopped_examples_are_recorded_and_the_others_run():
    seen = []
    first = fuzz("torch.abs", _strategy("torch.abs"), 6, ms_after_torch_error=False, progress=seen.append)
    assert seen == list(range(6)) and first.examples == 6 and "crash" not in first.outcomes
    stop = Outcome("crash", "the process died (exit -11): MindSpore crashed on this example")
    seen.clear()
    again = fuzz("torch.abs", _strategy("torch.abs"), 6, ms_after_torch_error=False, stops={2: stop},
                 progress=seen.append)
    assert seen == [0, 1, 3, 4, 5]  # example 2 is not run again
    assert again.examples == 6 and again.outcomes["crash"] == 1
    assert again.findings["crash"].detail == stop.detail and again.findings["crash"].example.run  # which example
    # derandomized: the other five examples are the first run's, with the same outcomes
    missing = {k: first.outcomes[k] - again.outcomes.get(k, 0) for k in first.outcomes}
    assert all(v >= 0 for v in missing.values()) and sum(missing.values()) == 1
