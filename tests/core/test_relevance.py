"""The ast pre-pass that lets passes skip statements (migrate/core/relevance.py): what it records per statement,
and that skipping never changes an output (real code converted with the pre-pass on and off)."""
from __future__ import annotations

import ast

import libcst as cst
import pytest

from migrate.core import relevance
from migrate.core.pipeline import convert
from tests.realcode import corpus

SOURCE = """\
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x, lr):
        y = x + 1
        z = torch.relu(y)
        mask = ~z.bool()
        y += z
        lr = self.opt.param_groups[0]["lr"]
        return y
"""


def _statements(module: cst.Module) -> dict[str, cst.SimpleStatementLine]:
    fn = module.body[2].body.body[0]
    return {cst.Module([]).code_for_node(s).strip(): s for s in fn.body.body}


def test_kinds_per_statement():
    module = cst.parse_module(SOURCE)
    rel = relevance.analyse(module, ast.parse(SOURCE), methods=frozenset({"bool"}))
    stmts = _statements(module)
    kinds = {text: [k for k in ("API", "OPERATORS", "PARAM_GROUPS")
                    if not rel.skip(stmt, getattr(relevance, k))] for text, stmt in stmts.items()}
    assert kinds == {
        "y = x + 1": [],
        "z = torch.relu(y)": ["API"],
        "mask = ~z.bool()": ["API", "OPERATORS"],  # a table method and an operator
        "y += z": ["OPERATORS"],
        'lr = self.opt.param_groups[0]["lr"]': ["PARAM_GROUPS"],
        "return y": [],
    }
    assert not rel.skip(module.body[2], relevance.API)  # classes and defs are never skipped


def test_a_rebuilt_statement_is_skipped_only_when_declared_the_same():
    module = cst.parse_module(SOURCE)
    rel = relevance.analyse(module, ast.parse(SOURCE), methods=frozenset())
    stmt = _statements(module)["y = x + 1"]
    copy = stmt.deep_clone()
    assert rel.skip(stmt, relevance.OPERATORS) and not rel.skip(copy, relevance.OPERATORS)
    rel.same(copy, stmt)
    assert rel.skip(copy, relevance.OPERATORS)


def test_trees_that_do_not_pair_skip_nothing():
    module = cst.parse_module(SOURCE)
    rel = relevance.analyse(module, ast.parse("x = 1\n"), methods=frozenset())
    assert not any(rel.skip(s, relevance.API) for s in _statements(module).values())


def _outputs(files) -> list[tuple[str, list]]:
    out = []
    for path in files:
        r = convert(path.read_text(encoding="utf-8"), str(path))
        out.append((r.code, [(u.line, u.api, u.reason) for u in r.unsupported]))
    return out


@pytest.mark.parametrize("source", ["torch", "timm"])
def test_skipping_never_changes_an_output(source, monkeypatch):
    """Every pass that skips (table, operators, no_grad walk) gives the output of a walk over every statement."""
    if source == "torch":
        files = corpus.sample(corpus.torch_files(), 15, seed=3)
    else:
        files = corpus.sample(sorted((corpus.fetch("timm==1.0.31") / "models").glob("*.py")), 6, seed=3)
    skipped = _outputs(files)
    monkeypatch.setattr(relevance, "ENABLED", False)
    walked = _outputs(files)
    assert [f for f, a, b in zip(files, skipped, walked) if a != b] == []
    assert any(a[0] != p.read_text(encoding="utf-8") for a, p in zip(skipped, files))  # something was converted


@pytest.mark.parametrize("source", [
    "import mindspore as ms\nfrom mindspore import ops\n\n\ndef f(x, p):\n    return _msm_pow(x, p)\n",
    "# header comment\nimport mindspore as ms\nfrom mindspore import ops\ny = _msm_pow(2, 3)\n",  # no blank line
    "import mindspore as ms\nfrom mindspore import ops\nprint(_msm_pow(2, 3))",  # no trailing newline
    '"""doc"""\nimport mindspore as ms\r\nfrom mindspore import ops\r\nz = _msm_pow(1, 2)\r\n',  # CRLF
    "x = _msm_pow(1, 2)\n",  # no imports: the helper goes first
])
def test_helpers_spliced_into_the_text_as_into_the_tree(source):
    """The pipeline generates the text once and splices the helper definitions in (rewrite/helpers.py)."""
    from migrate.rewrite import helpers, operators

    module = cst.parse_module(source)
    expected = helpers.insert(module, operators._after_imports).code
    assert "def _msm_pow(" in expected
    assert helpers.insert_code(module, module.code, operators._after_imports) == expected
