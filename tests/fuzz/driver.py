"""Drive hypothesis over one mapping entry (or one operator family) and collect every outcome.

``fuzz(strategy, n)`` runs ``n`` derandomized examples without stopping at the first finding (every outcome is
recorded); ``shrink(strategy, kinds)`` then asks hypothesis for the minimal example of a finding of one of
``kinds``. Both are deterministic: the same table and code give the same examples.
"""
from __future__ import annotations

import collections
from dataclasses import dataclass, field

from hypothesis import HealthCheck, Phase, given, settings

from . import known
from .engine import Outcome, run_example
from .strategies import Example, Unfuzzable

_QUIET = dict(database=None, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck),
              print_blob=False)


@dataclass
class Finding:
    kind: str
    detail: str
    example: Example
    count: int = 1


@dataclass
class Report:
    name: str
    examples: int = 0
    outcomes: collections.Counter = field(default_factory=collections.Counter)
    findings: dict = field(default_factory=dict)  # kind (silent kinds and ms_raises: explained or not) -> first Finding
    dtypes: set = field(default_factory=set)
    skipped: str = ""

    def add(self, example: Example, outcome: Outcome) -> None:
        self.examples += 1
        self.outcomes[outcome.kind] += 1
        for v in example.inputs.values():
            self.dtypes.add(str(v.dtype))
        if outcome.kind not in ("match", "both_raise", "torch_refuses", "refused"):
            key = outcome.kind if example.api == self.name else f"{example.api} {outcome.kind}"
            if outcome.kind in ("value", "dtype", "shape", "ms_raises") and not known.explain(
                    example.api, outcome.kind, outcome.detail, example):
                key += " (unexplained)"  # counted apart: never hidden behind an explained first example
            if key in self.findings:
                self.findings[key].count += 1
            else:
                self.findings[key] = Finding(outcome.kind, outcome.detail, example)


_CURRENT: list = []  # the callback of the run in progress (one test function: the same derandomized examples)


def _example_test(example):
    _CURRENT[-1](example)


def _run(strategy, n: int, phases, callback) -> None:
    test = settings(max_examples=n, phases=phases, **_QUIET)(given(strategy)(_example_test))
    _CURRENT.append(callback)
    try:
        test()
    finally:
        _CURRENT.pop()


def fuzz(name: str, strategy, n: int, hook=None, ms_after_torch_error: bool = True, stops=None,
         progress=None) -> Report:
    """``ms_after_torch_error=False`` for runs inside a test process (see ``engine.run_example``).

    ``stops``: {index: Outcome} for examples that stopped an earlier process (a MindSpore segfault, an example
    that never returns): recorded with that outcome and not run again, so a run restarted after one goes on with
    the target's other examples (the sequence is derandomized: the same indices are the same examples).
    ``progress(index)`` is called before each example runs (the benchmark's supervisor reads it)."""
    report = Report(name)
    stops = stops or {}
    count = [0]

    def record(example):
        index = count[0]
        count[0] += 1
        if index in stops:
            report.add(example, stops[index])
            return
        if progress is not None:
            progress(index)
        report.add(example, run_example(example, hook(example) if hook else None, ms_after_torch_error))
        if stops:
            _settle()  # after a stop: what this example left (async ops, freed tensors) fails within its own index

    try:
        _run(strategy, n, [Phase.generate], record)
    except Unfuzzable as exc:
        report.skipped = str(exc)
    return report


def _settle() -> None:
    import gc

    import mindspore as ms

    gc.collect()
    try:
        ms.runtime.synchronize()
    except Exception:  # noqa: BLE001 - an op's error was recorded with its example already
        pass


def shrink(strategy, kinds, n: int = 200, hook=None) -> tuple[Example, Outcome] | None:
    """The minimal example whose outcome is one of ``kinds`` (None when none is found in ``n`` tries)."""
    last: list = []

    def check(example):
        outcome = run_example(example, hook(example) if hook else None)
        if outcome.kind in kinds:
            last[:] = [example, outcome]
            raise AssertionError(outcome.detail)

    try:
        _run(strategy, n, [Phase.generate, Phase.shrink], check)
    except AssertionError:
        pass
    except Unfuzzable:
        return None
    return tuple(last) if last else None
