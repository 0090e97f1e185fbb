"""Every rule's VALID and INVALID examples, run automatically (Fixit style).

An INVALID example marks each line the rule must flag with ``# <- flagged``; a VALID example
must produce no finding of that rule.
"""
import pytest

from migrate.lint import RULES, lint_source

MARK = "# <- flagged"


def _cases(kind):
    return [pytest.param(rule, i, code, id=f"{rule.ID}-{kind}{i}")
            for rule in RULES for i, code in enumerate(getattr(rule, kind))]


def _flagged_lines(rule, code):
    return sorted({f.line for f in lint_source(code, "example.py") if f.rule == rule.ID})


@pytest.mark.parametrize("rule,index,code", _cases("INVALID"))
def test_invalid_example_flagged_on_marked_lines(rule, index, code):
    expected = [n for n, line in enumerate(code.splitlines(), 1) if line.rstrip().endswith(MARK)]
    assert expected, "an INVALID example must mark at least one line"
    assert _flagged_lines(rule, code) == expected


@pytest.mark.parametrize("rule,index,code", _cases("VALID"))
def test_valid_example_clean(rule, index, code):
    assert _flagged_lines(rule, code) == []


def test_registry_shape():
    ids = [r.ID for r in RULES]
    assert len(ids) == len(set(ids)) == 9
    for rule in RULES:
        assert rule.VALID and rule.INVALID, rule.ID
        assert rule.MESSAGE and rule.FIX and rule.NAME, rule.ID
