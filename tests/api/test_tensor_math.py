"""Tensor methods (mappings/tensor_math.toml), recognised by name: converted code computes what torch computed."""
import numpy as np
import pytest

from tests.api.cases import HEADER, call_cases
from tests.harness import assert_unsupported, rng_array, run_case

X = {"x": rng_array(3, 4)}
POS = {"x": np.abs(rng_array(3, 4)) + 0.1}
UNIT = {"x": np.clip(rng_array(3, 4), -0.9, 0.9)}
BIG = {"x": np.abs(rng_array(3, 4)) + 1.1}
XY = {"x": rng_array(3, 4), "y": rng_array(3, 4, seed=1)}
XYP = {"x": np.abs(rng_array(3, 4)) + 0.5, "y": rng_array(3, 4, seed=1)}
IJ = {"x": rng_array(3, 4, dtype="int64", low=-6, high=7), "y": rng_array(3, 4, dtype="int64", seed=1, low=1, high=4)}
BB = {"x": rng_array(3, 4, dtype="bool"), "y": rng_array(3, 4, dtype="bool", seed=1)}
X3 = {"x": rng_array(2, 3, 4)}
SQ = {"x": rng_array(4, 4) + 3 * np.eye(4, dtype="float32")}
SPECIAL = {"x": np.array([[1.0, -np.inf, np.inf, np.nan], [0.0, -2.5, 3.5, -0.0]], dtype="float32")}
IDX = {**X, "idx": rng_array(3, 4, dtype="int64", low=0, high=3)}
MASK = {**X, "m": rng_array(3, 4, dtype="bool")}
TOL = dict(rtol=1e-5, atol=1e-5, why_tolerance="transcendental kernels and float32 sums differ by a few ulps")

UNARY = {  # method -> inputs
    **{n: X for n in "abs neg negative exp expm1 sin cos tan atan sinh cosh tanh asinh erf erfc floor ceil round trunc frac "
       "sign sgn square sigmoid isnan isfinite logical_not absolute arctan exp2 sinc deg2rad rad2deg i0 signbit".split()},
    **{n: POS for n in "log log2 log10 log1p sqrt rsqrt reciprocal lgamma digamma".split()},
    **{n: UNIT for n in "asin acos atanh erfinv arcsin arccos arctanh logit".split()},
    **{n: BIG for n in "acosh arccosh".split()},
    **{n: SPECIAL for n in "isinf isneginf isposinf nan_to_num".split()},
}
BINARY = "add sub mul div maximum minimum atan2 hypot logaddexp eq ne lt le gt ge greater less greater_equal less_equal not_equal multiply subtract divide true_divide fmax copysign arctan2 xlogy remainder fmod".split()

CASES = [
    *[c for n, inp in UNARY.items() for c in call_cases(f"Tensor.{n}", [f"x.{n}()"], inp, **TOL)],
    *[c for n in BINARY for c in call_cases(f"Tensor.{n}", [f"x.{n}(y)", f"x.{n}(other=y)"],
                                            XYP if n == "xlogy" else XY, **TOL)],
    *[c for n in ("add", "sub", "mul", "div", "eq", "gt", "remainder", "fmod") for c in call_cases(f"Tensor.{n}", [f"x.{n}(0.5)"], XY, **TOL)],
    *[c for n in ("logical_and", "logical_or", "logical_xor") for c in call_cases(f"Tensor.{n}", [f"x.{n}(y)"], BB)],
    *[c for n in ("bitwise_and", "bitwise_or", "bitwise_xor") for c in call_cases(f"Tensor.{n}", [f"x.{n}(y)"], IJ)],
    *call_cases("Tensor.add", ["x.add(y, alpha=2)", "x.add(alpha=0.5, other=y)"], XY),
    *call_cases("Tensor.sub", ["x.sub(y, alpha=2)"], XY),
    *call_cases("Tensor.div", ["x.div(y, rounding_mode='floor')", "x.div(y, rounding_mode='trunc')"], XY),
    *call_cases("Tensor.pow", ["x.pow(2)", "x.pow(y)", "x.pow(exponent=0.5)"], XYP, **TOL),
    *call_cases("Tensor.float_power", ["x.float_power(2)"], {"x": rng_array(3, 4, dtype="float64")}),
    *call_cases("Tensor.floor_divide", ["x.floor_divide(y)"], XY),
    *call_cases("Tensor.lerp", ["x.lerp(y, 0.3)", "x.lerp(y, weight=0.7)", "x.lerp(end=y, weight=y)"], XY),
    *call_cases("Tensor.clamp", ["x.clamp(-0.5, 0.5)", "x.clamp(min=0.0)", "x.clamp(max=0.1)", "x.clamp(max=1.0, min=-1.0)"], X),
    *call_cases("Tensor.clip", ["x.clip(-0.5, 0.5)", "x.clip(min=0.0)", "x.clip(max=0.1)"], X),
    *call_cases("Tensor.clamp_min", ["x.clamp_min(0.1)"], X),
    *call_cases("Tensor.clamp_max", ["x.clamp_max(0.1)"], X),
    *call_cases("Tensor.isclose", ["x.isclose(y)", "x.isclose(y, rtol=0.5, atol=0.5)"], XY),
    *call_cases("Tensor.allclose", ["x.allclose(y)", "x.allclose(x + 1e-7)", "x.allclose(y, 1.0, 3.0)"], XY),
    *call_cases("Tensor.equal", ["x.equal(y)", "x.equal(x * 1)", "x.equal(x[:2])"], XY),
    *call_cases("Tensor.prod", ["x.prod()", "x.prod(1)", "x.prod(dim=0, keepdim=True)"], X, **TOL),
    *[c for n in ("amax", "amin") for c in call_cases(f"Tensor.{n}", [f"x.{n}()", f"x.{n}(1)", f"x.{n}(dim=(0, 2), keepdim=True)"], X3)],
    *[c for n in ("all", "any") for c in call_cases(f"Tensor.{n}", [f"x.{n}()", f"x.{n}(1)", f"x.{n}(dim=0, keepdim=True)"],
                                                    {"x": rng_array(3, 4, dtype="bool")})],
    *[c for n in ("argmin", "argmax") for c in call_cases(f"Tensor.{n}", [f"x.{n}()", f"x.{n}(1)", f"x.{n}(dim=0, keepdim=True)"], X)],
    *[c for n in ("max", "min") for c in call_cases(f"Tensor.{n}", [f"x.{n}()", f"x.{n}(1)", f"x.{n}(dim=0, keepdim=True)",
                                                                  f"tuple(x.{n}(1))"], X)],
    *[c for n in ("std", "var") for c in call_cases(f"Tensor.{n}", [f"x.{n}()", f"x.{n}(1)", f"x.{n}(dim=0, keepdim=True)",
                                                                  f"x.{n}(unbiased=False)", f"x.{n}(1, correction=0)"], X, **TOL)],
    *call_cases("Tensor.norm", ["x.norm()", "x.norm(1)", "x.norm(p=2, dim=1)", "x.norm(dim=0, keepdim=True)"], X, **TOL),
    *call_cases("Tensor.logsumexp", ["x.logsumexp(1)", "x.logsumexp(dim=0, keepdim=True)"], X, **TOL),
    *[c for n in ("cumsum", "cumprod") for c in call_cases(f"Tensor.{n}", [f"x.{n}(1)", f"x.{n}(dim=0)"], X, **TOL)],
    *[c for n in ("cummax", "cummin") for c in call_cases(f"Tensor.{n}", [f"x.{n}(1)", f"x.{n}(dim=0)"], X)],
    *call_cases("Tensor.count_nonzero", ["x.count_nonzero()", "x.count_nonzero(1)"], {"x": rng_array(3, 4, dtype="int64", low=0, high=3)}),
    *call_cases("Tensor.nansum", ["x.nansum()", "x.nansum(1)"], SPECIAL),
    *call_cases("Tensor.topk", ["x.topk(2)", "x.topk(2, 0)", "x.topk(k=3, dim=1, largest=False)"], X),
    *call_cases("Tensor.sort", ["x.sort()", "x.sort(0)", "x.sort(dim=1, descending=True)", "x.sort(descending=True)"], X),
    *call_cases("Tensor.argsort", ["x.argsort()", "x.argsort(0)", "x.argsort(dim=1, descending=True)"], X),
    *call_cases("Tensor.gather", ["x.gather(1, idx)", "x.gather(dim=0, index=idx)"], IDX),
    *call_cases("Tensor.take_along_dim", ["x.take_along_dim(idx, 1)", "x.take_along_dim(idx, dim=0)"], IDX),
    *call_cases("Tensor.index_select", ["x.index_select(1, idx)", "x.index_select(dim=0, index=idx)"],
                {**X, "idx": np.array([2, 0], dtype="int64")}),
    *call_cases("Tensor.masked_fill", ["x.masked_fill(m, 0.0)", "x.masked_fill(mask=m, value=-1.5)"], MASK),
    *call_cases("Tensor.masked_select", ["x.masked_select(m)"], MASK),
    *call_cases("Tensor.nonzero", ["x.nonzero()"], {"x": rng_array(3, 4, dtype="int64", low=0, high=2)}),
    *call_cases("Tensor.take", ["x.take(idx)"], {**X, "idx": np.array([0, 5, 11], dtype="int64")}),
    *call_cases("Tensor.scatter", ["x.scatter(1, idx, s)", "x.scatter(dim=1, index=idx, src=s)"],
                {**X, "idx": np.array([[0, 1], [2, 3], [1, 0]], dtype="int64"), "s": rng_array(3, 2, seed=2)}),
    *call_cases("Tensor.tile", ["x.tile((2, 1))", "x.tile(2, 2)", "x.tile(dims=(1, 2, 2))"], X),
    *call_cases("Tensor.repeat_interleave", ["x.repeat_interleave(2)", "x.repeat_interleave(2, 0)", "x.repeat_interleave(repeats=3, dim=1)"], X),
    *call_cases("Tensor.flip", ["x.flip((0,))", "x.flip((0, 1))", "x.flip(dims=(1,))"], X),
    *call_cases("Tensor.fliplr", ["x.fliplr()"], X),
    *call_cases("Tensor.flipud", ["x.flipud()"], X),
    *call_cases("Tensor.narrow", ["x.narrow(1, 1, 2)", "x.narrow(dim=0, start=1, length=2)"], X),
    *[c for n in ("movedim", "moveaxis") for c in call_cases(f"Tensor.{n}", [f"x.{n}(0, 2)", f"x.{n}(source=0, destination=-1)"], X3)],
    *[c for n in ("swapaxes", "swapdims") for c in call_cases(f"Tensor.{n}", [f"x.{n}(0, 2)"], X3)],
    *call_cases("Tensor.t", ["x.t()"], X),
    *call_cases("Tensor.unbind", ["x.unbind()", "x.unbind(1)", "x.unbind(dim=2)"], X3),
    *call_cases("Tensor.chunk", ["x.chunk(2)", "x.chunk(2, 1)", "x.chunk(chunks=3, dim=1)"], {"x": rng_array(4, 6)}),
    *call_cases("Tensor.split", ["x.split(2)", "x.split([1, 5], 1)", "x.split(3, dim=1)"], {"x": rng_array(4, 6)}),
    *call_cases("Tensor.tensor_split", ["x.tensor_split(3)", "x.tensor_split([1, 3], 1)"], {"x": rng_array(4, 6)}),
    *call_cases("Tensor.expand", ["x.expand(2, 3, 4)", "x.expand((5, 3, 4))", "x.expand(-1, 4)"], {"x": rng_array(3, 1)}),
    *call_cases("Tensor.expand_as", ["x.expand_as(y)"], {"x": rng_array(3, 1), "y": rng_array(2, 3, 4)}),
    *call_cases("Tensor.view_as", ["x.view_as(y)"], {"x": rng_array(3, 4), "y": rng_array(2, 6)}),
    *call_cases("Tensor.reshape_as", ["x.reshape_as(y)"], {"x": rng_array(3, 4), "y": rng_array(2, 6)}),
    *call_cases("Tensor.type_as", ["x.type_as(y)"], {"x": rng_array(3, 4), "y": rng_array(2, dtype="int64")}),
    *call_cases("Tensor.broadcast_to", ["x.broadcast_to((2, 3, 4))"], {"x": rng_array(3, 1)}),
    *call_cases("Tensor.ravel", ["x.ravel()"], X3),
    *call_cases("Tensor.diag", ["x.diag()"], {"x": rng_array(4)}),
    *call_cases("Tensor.diagonal", ["x.diagonal()", "x.diagonal(1)", "x.diagonal(offset=-1)"], X),
    *[c for n in ("tril", "triu") for c in call_cases(f"Tensor.{n}", [f"x.{n}()", f"x.{n}(1)", f"x.{n}(diagonal=-1)"], X)],
    *call_cases("Tensor.trace", ["x.trace()"], SQ),
    *call_cases("Tensor.outer", ["a.outer(b)"], {"a": rng_array(3), "b": rng_array(4, seed=1)}),
    *call_cases("Tensor.dot", ["a.dot(b)"], {"a": rng_array(5), "b": rng_array(5, seed=1)}),
    *call_cases("Tensor.mm", ["a.mm(b)"], {"a": rng_array(3, 4), "b": rng_array(4, 5, seed=1)}),
    *call_cases("Tensor.matmul", ["a.matmul(b)"], {"a": rng_array(3, 4), "b": rng_array(4, 5, seed=1)}),
    *call_cases("Tensor.bmm", ["a.bmm(b)"], {"a": rng_array(2, 3, 4), "b": rng_array(2, 4, 5, seed=1)}),
    *call_cases("Tensor.mv", ["a.mv(b)"], {"a": rng_array(3, 4), "b": rng_array(4, seed=1)}),
    *call_cases("Tensor.inverse", ["x.inverse()"], SQ, **TOL),
    *call_cases("Tensor.det", ["x.det()"], SQ, rtol=1e-4, atol=1e-4, why_tolerance="LU-based determinant, different pivot order"),
    *call_cases("Tensor.addmm", ["c.addmm(a, b)", "c.addmm(a, b, beta=0.5, alpha=2.0)"],
                {"a": rng_array(3, 4), "b": rng_array(4, 5, seed=1), "c": rng_array(3, 5, seed=2)}, **TOL),
    *call_cases("Tensor.kron", ["x.kron(y)"], {"x": rng_array(2, 2), "y": rng_array(2, 3, seed=1)}),
    *call_cases("Tensor.diff", ["x.diff()", "x.diff(dim=0)"], X),
    *[c for n in ("long", "int", "half", "double", "bool", "byte", "short") for c in call_cases(f"Tensor.{n}", [f"x.{n}()"], {"x": rng_array(3, 4) * 3})],
    *call_cases("Tensor.clone", ["x.clone()"], X),
    *call_cases("Tensor.is_floating_point", ["(x.is_floating_point(), x.long().is_floating_point())"], X),
    *call_cases("Tensor.tolist", ["x.tolist()"], {"x": rng_array(2, 3, dtype="int64")}),
    *call_cases("Tensor.nelement", ["x.nelement()"], X),
    *call_cases("Tensor.new_zeros", ["x.new_zeros((2, 3))", "x.new_zeros(2, 3)"], X),
    *call_cases("Tensor.new_ones", ["x.new_ones((2, 3))", "x.new_ones(4)"], X),
    *call_cases("Tensor.new_full", ["x.new_full((2, 3), 1.5)"], X),
    *call_cases("Tensor.copy_", ["(x.copy_(y), x)[1]"], XY),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_tensor_math(case):
    run_case(case)
