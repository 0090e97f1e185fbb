"""A Conv's ``padding`` the source shows to be an int is written plainly (issue 24; migrate/rewrite/int_values.py).

torch's ``padding`` may be an int, a pair or ``'same'``; MindSpore's Conv2d takes an int or (top, bottom, left,
right) and raises on a pair, a list and a string (measured, 2.10). Where the padding is neither a literal nor shown
to be an int, ``_msmigrate_pad`` / ``_msmigrate_pad_mode`` decide when the code runs. Proofs, both frameworks:

* PLAIN: padding shown to be an int (arithmetic of ints, a local, a module constant, a parameter every call in the
  file passes an int, a parameter annotated ``int``) or a tuple display: no helper, the same result as torch;
* KEPT: a parameter some call passes a pair: the helper stays and matches torch;
* LOUD: the plain call on a pair raises in MindSpore (so a wrong ``int`` annotation is loud, never silent).
"""
import libcst as cst
import pytest

from migrate.rewrite.int_values import IntEvidence
from tests.api.cases import HEADER
from tests.harness import Case, rng_array, run_case, run_case_loud

X = {"x": rng_array(1, 2, 9, 10)}

BLOCK = '''
PAD = 2


class Block(nn.Module):
    def __init__(self, cin, cout, k=3, dilation=1, pad=1, rate: int = 1, size=(3, 5)):
        super().__init__()
        p = (k - 1) // 2 * dilation
        self.a = nn.Conv2d(cin, cout, k, padding=p, dilation=dilation)
        self.b = nn.Conv2d(cout, cout, k, padding=k // 2)
        self.c = nn.Conv2d(cout, cout, 3, padding=PAD)
        self.d = nn.Conv2d(cout, cout, 3, padding=pad)
        self.e = nn.Conv2d(cout, cout, 3, padding=rate, dilation=rate)
        self.f = nn.Conv2d(cout, cout, size, padding=(size[0] // 2, size[1] // 2))

    def forward(self, x):
        return self.f(self.e(self.d(self.c(self.b(self.a(x))))))


'''

PLAIN = [
    Case("torch.nn.Conv2d", f"{HEADER}{BLOCK}m = nn.Sequential(Block(2, 3, 5, dilation=2, pad=2, rate=2), "
         "Block(3, 2))\n# @run\nout = m(x)\n", inputs=X, rtol=1e-4, atol=1e-5,
         why_tolerance="six chained float32 convolutions", id="padding shown to be an int"),
]


@pytest.mark.parametrize("case", PLAIN, ids=str)
def test_plain_where_int(case):
    code = run_case(case)
    assert "_msmigrate_pad" not in code, code
    assert "padding=(size[0] // 2, size[0] // 2, size[1] // 2, size[1] // 2)" in code, code


KEPT = [
    Case("torch.nn.Conv2d", f"{HEADER}{BLOCK}m = nn.Sequential(Block(2, 3, pad=(1, 2)), Block(3, 2))\n"
         "# @run\nout = m(x)\n", inputs=X, rtol=1e-4, atol=1e-5, why_tolerance="six chained float32 convolutions",
         id="a call passes a pair"),
]


@pytest.mark.parametrize("case", KEPT, ids=str)
def test_kept_where_a_call_passes_a_pair(case):
    code = run_case(case)
    assert "padding=_msmigrate_pad(pad, 2)" in code, code
    assert code.count("_msmigrate_pad(") == 2, code  # the definition and the one call whose evidence fails


def test_plain_call_on_a_pair_is_loud():
    """A wrong ``int`` annotation: torch pads (1, 2), the plain MindSpore call raises when the layer is built."""
    case = Case("torch.nn.Conv2d", f"{HEADER}\n\ndef conv(c, pad: int):\n    return nn.Conv2d(c, c, 3, padding=pad)\n"
                "\n\n# @run\nout = conv(2, (1, 2))(x)\n", inputs=X)
    code = run_case_loud(case)
    assert "_msmigrate_pad" not in code, code


@pytest.mark.parametrize("src,want", [
    ("v = 3", True), ("v = len(s)", True), ("v = k // 2", True), ("v = (k - 1) // 2 * 2", True),
    ("v = -1 if flag else 2", True), ("v = max(1, 2)", True), ("v = k", False), ("v = k * 2", False),
    ("v = (1, 1)", False), ("v = s[0]", False), ("v = f(3)", False), ("v = 1.5 // 2", False),
    ("a, v = 1, 2", False),
])
def test_evidence(src, want):
    module = cst.parse_module(f"def g(k, s, flag):\n    {src}\n    return v\n")
    ret = module.body[0].body.body[-1].body[0]
    assert IntEvidence(module).is_int(ret.value) is want, src


def test_parameter_evidence_follows_every_call():
    base = "def g(k, p=1):\n    return p\n\n\n"
    ev = lambda code: IntEvidence(m := cst.parse_module(code)).is_int(m.body[0].body.body[0].body[0].value)  # noqa
    assert ev(base + "g(1)\ng(2, p=3)\n")
    assert not ev(base + "g(1)\ng(2, (1, 1))\n")  # one call passes a pair
    assert not ev(base + "g(1)\nh = g\n")  # used as a value: calls not seen
    assert not ev(base + "g(1, *a)\n")
    assert not ev(base)  # never called here
    m = cst.parse_module("def g(k, p: int = 1):\n    p = (p, p)\n    return p\n\n\ng(1)\n")
    assert not IntEvidence(m).is_int(m.body[0].body.body[1].body[0].value)  # rebound to a pair in the body
    m = cst.parse_module(base + "g(1)\n")
    assert not IntEvidence(m, frozenset({"g"})).is_int(m.body[0].body.body[0].body[0].value)  # a sibling imports g
