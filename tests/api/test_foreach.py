"""torch._foreach_* (mappings/foreach.toml): list-at-once ops as torch's optimizers write them (timm's Adam, Lamb,
Adan...), in place and out of place, with scalar, tensor and list arguments; each compared with torch."""
import numpy as np
import pytest

from tests.api.cases import HEADER
from tests.harness import Case, rng_array, run_case

R = rng_array
IN = {"a": np.abs(R(3, 4)) + 0.5, "b": np.abs(R(2, 5, seed=1)) + 0.5, "c": np.abs(R(3, 4, seed=2)) + 0.5,
      "d": np.abs(R(2, 5, seed=3)) + 0.5}
PRE = "xs = [a.clone(), b.clone()]\nys = [c, d]\n"
TOL = dict(rtol=1e-5, atol=1e-6, why_tolerance="")


def cases(name, calls):
    inplace = name.endswith("_")
    out = []
    for call in calls:
        run = f"{PRE}torch.{name}({call})\nout = xs\n" if inplace else f"{PRE}out = (torch.{name}({call}), xs)\n"
        out.append(Case(f"torch.{name}", f"{HEADER}# @run\n{run}", inputs=IN, id=f"torch.{name}({call})",
                        rtol=1e-5, atol=1e-5, why_tolerance="transcendental kernels and fused forms differ by an ulp"))
    return out


BINARY = ["xs, ys", "xs, 0.5", "xs, [2.0, 3.0]", "other=ys, self=xs", "xs, scalar=0.5", "self=xs, scalars=[2.0, 3.0]"]
POW = ["xs, ys", "xs, 0.5", "xs, [2.0, 3.0]", "exponent=ys, self=xs"]
CASES = [
    *[c for op in ("add", "sub") for n in (f"_foreach_{op}_", f"_foreach_{op}")
      for c in cases(n, BINARY + ["xs, ys, alpha=-0.5"])],
    *[c for op in ("mul", "div", "maximum", "minimum", "clamp_min", "clamp_max")
      for n in (f"_foreach_{op}_", f"_foreach_{op}") for c in cases(n, BINARY)],
    *[c for n in ("_foreach_pow_", "_foreach_pow") for c in cases(n, POW)],
    *[c for n in ("_foreach_mul_", "_foreach_div_") for c in cases(n, ["xs, torch.tensor(2.0)"])],  # one 0-d tensor, shared
    *[c for op in ("sqrt", "neg", "reciprocal", "abs", "exp") for n in (f"_foreach_{op}_", f"_foreach_{op}")
      for c in cases(n, ["xs", "self=xs"])],
    *[c for op in ("addcdiv", "addcmul") for n in (f"_foreach_{op}_", f"_foreach_{op}")
      for c in cases(n, ["xs, ys, ys", "xs, ys, ys, 0.1", "xs, ys, ys, value=-0.3", "xs, ys, ys, [0.5, 2.0]",
                         "xs, ys, ys, torch.tensor([0.5, -2.0])", "xs, ys, ys, scalars=[0.5, 2.0]"])],
    *[c for n in ("_foreach_lerp_", "_foreach_lerp") for c in cases(n, ["xs, ys, 0.3", "xs, ys, weight=0.9", "xs, ys, [0.1, 0.7]"])],
    *cases("_foreach_zero_", ["xs"]),
    *cases("_foreach_copy_", ["xs, ys", "xs, src=ys"]),
    *cases("_foreach_norm", ["xs", "xs, 1", "xs, ord=float('inf')"]),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_foreach(case):
    run_case(case)


def test_the_in_place_forms_keep_the_tensors():
    """torch updates the tensors in the list (an optimizer's state): other names bound to them see it."""
    case = Case("torch._foreach_mul_", f"{HEADER}# @run\nxs = [a, b]\ntorch._foreach_mul_(xs, 2.0)\nout = (a, b)\n",
                inputs=IN)
    run_case(case)
