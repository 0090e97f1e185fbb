"""A template form written where torch's code had a call binds as its place needs (migrate/core/parens.py).

timm's EdgeNeXt attention, ``F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)``: F.normalize's
form is ``{input} / ops.clamp(...)``; spliced in as it was, ``.transpose`` went onto the clamp and ``@`` took the
half-normalised ``q / n_q`` (MatMul "64 and 12" in the real model). Each case runs both frameworks and compares."""
import pytest

from migrate import convert_source
from migrate.core.parens import precedence
from tests.api.cases import HEADER
from tests.harness import Case, rng_array, run_case

QK = {"q": rng_array(2, 3, 4, 5), "k": rng_array(2, 3, 4, 5, seed=1)}
CASES = [
    Case("torch.nn.functional.normalize", HEADER + """
out = F.normalize(q, dim=-1) @ F.normalize(k, dim=-1).transpose(-2, -1)
""", inputs=QK, rtol=1e-5, atol=1e-6, id="XCA attention: normalize @ normalize.transpose"),
    Case("torch.nn.functional.normalize", HEADER + """
a = F.normalize(q, dim=-1)[..., 0]
b = -F.normalize(q, dim=1) ** 2
c = 2 ** F.normalize(k, dim=-1)
d = 1 - F.normalize(q, dim=-1)
e = F.normalize(q, dim=-1).sum(-1) < F.normalize(k, dim=-1).sum(-1)
""", names=("a", "b", "c", "d", "e"), inputs=QK, rtol=1e-5, atol=1e-6,
         id="normalize as a subscript's value, under - and **, on the right of -, in a comparison"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_a_template_form_keeps_the_meaning_of_the_call_it_replaces(case):
    run_case(case)


def test_source_parentheses_are_left_as_written():
    src = HEADER + ("y = (torch.abs(a) + b) * c - d / e @ f\n"
                    "z = not torch.abs(a) == b or c and (d if e else g) or a - (b - c)\n"
                    "w = torch.abs(x).t()[0] @ v\n")
    out = convert_source(src).code
    assert "y = (ops.abs(a) + b) * c - d / e @ f\n" in out, out
    assert "z = not ops.abs(a) == b or c and (d if e else g) or a - (b - c)\n" in out, out
    assert "w = ops.abs(x).t()[0] @ v\n" in out, out


def test_precedence_orders_python_operators():
    import libcst as cst

    order = ["lambda: 0", "a if b else c", "a or b", "a and b", "not a", "a < b", "a | b", "a ^ b", "a & b",
             "a << b", "a + b", "a * b", "-a", "a ** b", "a.b"]
    ranks = [precedence(cst.parse_expression(e)) for e in order]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks), ranks
