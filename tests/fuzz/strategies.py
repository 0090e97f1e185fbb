"""Hypothesis strategies that write torch calls for a mapping entry, from its torch signature.

One example is a torch snippet (the call, positional and keyword forms mixed), the numpy inputs it reads and
which of them torch gets as a non-contiguous view. Arrays are built by numpy from a drawn seed and a value
profile (normal, small integers, special values: signed zero, +-inf, nan, huge), so hypothesis shrinks an
example to profile 0 / seed 0 / the smallest shape. Argument values come from the parameter's name
(``dim`` -> an axis of the input, ``keepdim`` -> a bool, ``reduction`` -> 'mean'/'sum'/'none', ...); an entry with a
required parameter of unknown meaning is not fuzzed (``Unfuzzable`` says which parameter).
"""
from __future__ import annotations

import keyword
import os
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from .signatures import Param, Signature, signatures

HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
DTYPES = ("bool", "int32", "int64", "float16", "float32", "float64")
PROFILES = ("normal", "ints", "special", "large", "positive", "zeros")
# The "common" slice (MSMIGRATE_FUZZ_COMMON=1, benchmarks/fuzz_mappings.py --common): the inputs real code passes
# (float32 / int64 tensors, non-empty shapes of rank 1-3, finite ordinary values), to tell which loud findings a
# real program would hit.
COMMON = os.environ.get("MSMIGRATE_FUZZ_COMMON") == "1"
if COMMON:
    DTYPES = ("float32", "int64")
    PROFILES = ("normal", "ints", "positive")
SPECIAL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 0.5, -2.5, 3.0])
TORCH_DTYPES = ("torch.float32", "torch.float64", "torch.float16", "torch.int64", "torch.int32", "torch.bool")


@dataclass
class Example:
    api: str
    code: str
    inputs: dict = field(default_factory=dict)   # name -> numpy array (the values both frameworks get)
    strided: tuple = ()                          # inputs torch gets as a non-contiguous (transposed) view
    names: tuple = ("out",)
    compare: str = "values"                      # "values" | "shape" (random results)
    run: str = ""                                # the call lines, for the report

    def describe(self) -> str:
        ins = ", ".join(f"{k}: {v.dtype}{list(v.shape)}" + (" (view)" if k in self.strided else "")
                        for k, v in self.inputs.items())
        return f"{self.run.strip()}   [{ins}]"


class Unfuzzable(Exception):
    """The entry cannot be fuzzed from its signature (the message says why)."""


# Parameter names whose argument is a tensor; AMBIGUOUS ones are tensors in a call that also takes `input`.
TENSOR = {"input", "other", "tensor", "target", "mat1", "mat2", "mat", "vec", "vec1", "vec2", "batch1", "batch2",
          "tensor1", "tensor2", "x1", "x2", "x", "y", "src", "values", "condition", "mask", "index", "indices",
          "sorted_sequence", "boundaries", "weights", "running_mean", "running_var", "pos_weight", "elements",
          "test_elements", "input1", "input2", "self", "A", "B", "b", "a", "grad_output", "var", "log_input"}
AMBIGUOUS_TENSOR = {"end", "weight", "bias", "exponent", "source"}
OMIT = {"out", "generator", "device", "layout", "pin_memory", "requires_grad", "memory_format", "non_blocking",
        "copy", "names", "size_average", "_stacklevel", "inplace", "sparse_grad", "foreach", "pickle_module"}
BOOLS = {"keepdim", "descending", "stable", "largest", "sorted", "unbiased", "equal_nan", "right", "out_int32",
         "as_tuple", "ceil_mode", "count_include_pad", "align_corners", "log_target", "upper", "some",
         "return_inverse", "return_counts", "accumulate", "return_indices", "affine", "full", "hard", "antialias",
         "include_self", "unsafe", "largest", "scale_grad_by_freq", "track_running_stats"}
AXES = {"dim", "dim0", "dim1", "dim2", "start_dim", "end_dim", "axis", "axis0", "axis1", "destination"}
LITERALS = {
    "alpha": ["1", "2", "0.5", "-1", "0"],
    "beta": ["1", "0.5", "0", "2"],
    "p": ["2", "1", "0.5", "0.0", "float('inf')"],
    "eps": ["1e-05", "1e-12", "0.1"],
    "value": ["0", "1", "-1.5", "2.5", "True"],
    "decimals": ["0", "1", "2", "-1"],
    "diagonal": ["0", "1", "-1", "2"],
    "offset": ["0", "1", "-1"],
    "k": ["1", "2", "3"],
    "n": ["0", "1", "2"],
    "chunks": ["1", "2", "3"],
    "sections": ["1", "2", "3"],
    "split_size": ["1", "2", "[1, 2]"],
    "split_size_or_sections": ["1", "2", "[1, 2]"],
    "indices_or_sections": ["1", "2", "3", "[1, 2]"],
    "rounding_mode": ["None", "'trunc'", "'floor'"],
    "reduction": ["'mean'", "'sum'", "'none'"],
    "correction": ["0", "1", "2"],
    "ddof": ["0", "1"],
    "shifts": ["1", "-1", "2"],
    "nan": ["0.0", "1.0", "-9.0"],
    "posinf": ["None", "9.0", "1e30"],
    "neginf": ["None", "-9.0"],
    "fill_value": ["0", "1.5", "-2", "True"],
    "threshold": ["0.5", "-1.0", "0.0"],
    "min_val": ["-1.0", "-0.5", "0.0"],
    "max_val": ["1.0", "0.5", "2.0"],
    "negative_slope": ["0.01", "0.2", "-0.5"],
    "lambd": ["0.5", "0.0", "1.0"],
    "approximate": ["'none'", "'tanh'"],
    "upscale_factor": ["1", "2"],
    "downscale_factor": ["1", "2"],
    "num_classes": ["-1", "5"],
    "minlength": ["0", "5"],
    "indexing": ["'ij'", "'xy'"],
    "start": ["0", "1", "-2", "0.5"],
    "step": ["1", "2", "0.5"],
    "steps": ["0", "1", "5"],
    "low": ["0", "-3"],
    "high": ["5", "10"],
    "margin": ["0.0", "1.0", "0.5"],
    "delta": ["1.0", "0.5"],
    "label_smoothing": ["0.0", "0.1"],
    "ignore_index": ["-100", "0", "1"],
    "training": ["False"],
    "training_mode": ["False"],
    "max_norm": ["1.0", "0.5"],
    "norm_type": ["2.0", "1.0"],
    "ord": ["None", "1", "2", "float('inf')"],
    "exponent": ["2", "0.5", "-1", "3", "0"],
    "other": ["2", "-1.5", "0", "True"],
    "min": ["None", "-1", "0", "0.5"],
    "max": ["None", "1", "2", "-0.5"],
    "weight": ["0.5", "0.0", "1.0"],
    "end": ["5", "3.5", "-1"],
    "dtype": list(TORCH_DTYPES),
    "reduce": ["'add'", "'multiply'"],
    "mode": None,  # per-API meaning: not fuzzed
    "lower": ["0.125"],
    "pad": ["(1, 1)", "(0, 1, 1, 0)", "(1,)"],
    "output_size": ["1", "2", "(1, 2)"],
    "kernel_size": ["1", "2", "3"],
    "stride": ["1", "2", "None"],
    "padding": ["0", "1"],
    "dilation": ["1", "2"],
    "groups": ["1"],
    "scale_factor": ["2.0", "0.5"],
    "size": None,  # shape-like: handled below
    "num_groups": ["1", "2"],
    "normalized_shape": None,
    "half_to_float": ["False"],
    "beta_": ["1"],
}
SHAPEY = {"size", "shape", "sizes", "repeats", "dims"}


def _array(rng: np.random.Generator, shape, dtype: str, profile: str) -> np.ndarray:
    if dtype == "bool":
        return np.asarray(rng.random(shape) > 0.5)
    kind = np.dtype(dtype).kind
    if kind in "iu":
        if profile == "large":
            hi = 2**31 - 1 if dtype == "int32" else 2**40
            v = rng.integers(-hi, hi, size=shape)
        elif profile == "positive":
            v = rng.integers(1, 6, size=shape)
        elif profile == "zeros":
            v = np.zeros(shape)
        else:
            v = rng.integers(-5, 6, size=shape)
        return np.asarray(v).astype(dtype)
    if profile == "ints":
        v = rng.integers(-4, 5, size=shape).astype("float64")
    elif profile == "special":
        v = rng.choice(SPECIAL, size=shape)
    elif profile == "large":
        v = rng.choice([-1.0, 1.0], size=shape) * 10.0 ** rng.uniform(3, 30, size=shape)
    elif profile == "positive":
        v = np.abs(rng.standard_normal(shape)) + 0.1
    elif profile == "zeros":
        v = np.zeros(shape)
    else:
        v = rng.standard_normal(shape) * 2
    with np.errstate(over="ignore"):
        return np.asarray(v).astype(dtype)


@st.composite
def shapes(draw, max_rank=3):
    rank = draw(st.integers(1 if COMMON else 0, max_rank))
    dims = []
    for _ in range(rank):
        if COMMON:
            dims.append(draw(st.sampled_from([3, 2, 4, 1, 5])))
        else:
            dims.append(draw(st.sampled_from([3, 2, 4, 1, 5, 0])) if draw(st.integers(0, 9)) else 0)
    return tuple(dims)


@st.composite
def broadcast_of(draw, shape):
    """A shape that broadcasts against ``shape`` (usually ``shape`` itself)."""
    choice = draw(st.integers(0, 9))
    if choice < 6 or not shape:
        return shape
    if choice < 8:
        return shape[draw(st.integers(1, len(shape))):]  # drop leading dims
    return tuple(1 if draw(st.booleans()) else d for d in shape)


class Ctx:
    """What one example draws while its arguments are written: tensors, names, the base shape."""

    def __init__(self, draw, shape, dtype, profiles=None):
        self.draw, self.shape, self.dtype = draw, shape, dtype
        self.rng = np.random.default_rng(draw(st.integers(0, 2**16)))
        self.profile = draw(st.sampled_from(profiles or PROFILES))
        self.inputs: dict[str, np.ndarray] = {}
        self.strided: list[str] = []

    def name(self) -> str:
        pool = "xyzwvuabcdefgh"
        return next(n for n in pool if n not in self.inputs) if len(self.inputs) < len(pool) else f"t{len(self.inputs)}"

    def tensor(self, shape=None, dtype=None, values=None) -> str:
        draw = self.draw
        shape = self.shape if shape is None else shape
        if dtype is None:
            dtype = self.dtype if draw(st.integers(0, 4)) else draw(st.sampled_from(DTYPES))
        name = self.name()
        arr = values if values is not None else _array(self.rng, shape, dtype, self.profile)
        self.inputs[name] = arr
        if len(shape) >= 2 and draw(st.integers(0, 4)) == 0:
            self.strided.append(name)
        return name


def _axis_values(rank: int) -> list[str]:
    if rank == 0:
        return ["0", "-1"]
    return [str(d) for d in range(-rank, rank)]


def _argument(ctx: Ctx, p: Param, names: set[str], api: str):
    """Source text for parameter ``p`` (None: leave it out)."""
    draw, name, rank = ctx.draw, p.name, len(ctx.shape)
    if name in OMIT or (name == "reduce" and "reduction" in names):
        if p.required and name not in ("out",):
            raise Unfuzzable(f"required parameter {name!r} has no generator")
        return None
    if not p.required and draw(st.integers(0, 2)) == 0:
        return None  # defaults omitted
    as_tensor = name in TENSOR or (name in AMBIGUOUS_TENSOR and ("input" in names or api.startswith("Tensor.")))
    if name in ("index", "indices"):
        n = max(min(ctx.shape), 1) if ctx.shape else 1
        shape = ctx.shape if draw(st.booleans()) else (draw(st.integers(0, 3)),)
        return ctx.tensor(shape, "int64", ctx.rng.integers(0, n, size=shape).astype("int64"))
    if name in ("mask", "condition"):
        shape = draw(broadcast_of(ctx.shape))
        return ctx.tensor(shape, "bool", np.asarray(ctx.rng.random(shape) > 0.5))
    if name in ("tensors", "elements") or (p.varargs and name in ("tensors", "operands")):
        k = draw(st.integers(1, 3))
        parts = [ctx.tensor() for _ in range(k)]
        return "[" + ", ".join(parts) + "]" if draw(st.booleans()) else "(" + ", ".join(parts) + ",)"
    if name in BOOLS:
        return draw(st.sampled_from(["False", "True"]))
    if name in AXES:
        if name == "dim" and rank >= 2 and draw(st.integers(0, 5)) == 0:
            return draw(st.sampled_from(["(0, -1)", "(-1, 0)", "[1]", "(0, 1)"]))  # reductions take a tuple of dims
        return draw(st.sampled_from(_axis_values(rank)))
    if name in SHAPEY:
        numel = int(np.prod(ctx.shape)) if ctx.shape else 1
        perm = list(ctx.rng.permutation(rank))
        options = [tuple(ctx.shape), (-1,), (numel,), (2,) + tuple(ctx.shape), (2, 3), tuple(int(i) for i in perm),
                   (1,) * max(rank, 1)]
        return str(draw(st.sampled_from(options)))
    if as_tensor:
        if name in LITERALS and LITERALS[name] and draw(st.integers(0, 4)) == 0:
            return draw(st.sampled_from(LITERALS[name]))
        shape = draw(broadcast_of(ctx.shape)) if name not in ("input", "self") else ctx.shape
        return ctx.tensor(shape)
    values = LITERALS.get(name)
    if values:
        return draw(st.sampled_from(values))
    if p.required:
        raise Unfuzzable(f"required parameter {name!r} has no generator")
    return None


def call_text(api: str) -> str:
    for prefix, short in (("torch.nn.functional.", "F."), ("torch.nn.", "nn.")):
        if api.startswith(prefix):
            return short + api[len(prefix):]
    return api


CONTEXT_MANAGERS = {"torch.no_grad", "torch.inference_mode", "torch.enable_grad", "torch.set_grad_enabled"}


def fuzzable(entry) -> str | None:
    """None when examples can be written for ``entry``; otherwise the reason they cannot."""
    if entry.kind not in ("function", "method"):
        return f"{entry.kind} entries are fuzzed by the module/operator generators only"
    if not entry.torch.startswith(("torch.", "Tensor.")):
        return "not a tensor API"
    if "*" in entry.unsupported:
        return "refused by the table (unsupported '*')"
    if entry.torch in CONTEXT_MANAGERS:
        return "a grad-mode context manager, not a value: the training tests run it"
    sigs = signatures(entry)
    if not sigs:
        return "no torch signature found"
    reasons = []
    for sig in sigs:
        missing = [p.name for p in sig.params if p.required and p.name not in OMIT and p.name not in TENSOR and p.name not in AXES
                   and p.name not in BOOLS and p.name not in SHAPEY and not LITERALS.get(p.name)
                   and p.name not in AMBIGUOUS_TENSOR and p.name not in ("tensors", "index", "indices")]
        if not missing:
            return None
        reasons.append(", ".join(missing))
    return "required parameter(s) with no generator: " + " | ".join(reasons)


@st.composite
def calls(draw, entry) -> Example:
    """One call of ``entry`` (a function or method entry), with its inputs."""
    sigs = [s for s in signatures(entry)]
    sig: Signature = draw(st.sampled_from(sigs))
    shape = draw(shapes())
    ctx = Ctx(draw, shape, draw(st.sampled_from(DTYPES)))
    names = set(sig.names())
    is_method = entry.kind == "method"
    receiver = ctx.tensor(shape, ctx.dtype) if is_method else None
    params = [p for p in sig.params if not (is_method and p.name in ("input", "self"))]
    positional, keywords = [], []
    keyword_from = draw(st.integers(0, len(params)))  # params from here on are written as keywords
    skipped = False
    first = None  # the input tensor's name: what inplace=True writes into
    for i, p in enumerate(params):
        text = _argument(ctx, p, names, entry.torch)
        if first is None and text in ctx.inputs:
            first = text
        if text is None:
            if not p.keyword_only:
                skipped = True  # later positional params must be keywords now
            continue
        if p.varargs:
            if name_is_seq(text):
                positional.append(text if not text.startswith(("[", "(")) else text)
            else:
                positional.append(text)
            continue
        if p.keyword_only or skipped or i >= keyword_from:
            if keyword.iskeyword(p.name):
                continue
            keywords.append(f"{p.name}={text}")
        else:
            positional.append(text)
    if keywords and draw(st.booleans()):
        keywords = list(reversed(keywords))
    args = ", ".join(positional + keywords)
    if is_method:
        name = entry.method_name
        if entry.inplace:
            run = f"{receiver}.{name}({args})\nout = {receiver}\n"
        else:
            run = f"out = {receiver}.{name}({args})\n"
    else:
        run = _call_form(draw, entry, f"{call_text(entry.torch)}({args})", names, first)
    compare = "shape" if _random_api(entry.torch) else "values"
    return Example(entry.torch, f"{HEADER}# @run\n{run}", ctx.inputs, tuple(ctx.strided), compare=compare, run=run)


# The out= tensors real code passes (issue 30): one of the result's shape and dtype, an empty one (torch resizes it),
# one of another shape (resized, with a warning) and one of another dtype (the result is cast into it).
OUT_FORMS = {
    "same": "o = torch.zeros_like({call})\n",
    "empty": "o = torch.empty(0)\n",
    "other shape": "o = torch.zeros(2, 7)\n",
    "other dtype": "o = torch.zeros_like({call}, dtype=torch.float64)\n",
}


def _call_form(draw, entry, call: str, names: set, first: str | None) -> str:
    """The statement(s) of a function call, in one of the forms real code writes where the signature allows it:
    the plain call, ``out=`` (the result and out compared), ``inplace=True`` (the result and the input compared)."""
    form = draw(st.integers(0, 2))
    if "out" in names and form == 0:
        kind = draw(st.sampled_from(sorted(OUT_FORMS)))
        with_out = call[:-1] + (", " if not call.endswith("()") else "") + "out=o)"
        return OUT_FORMS[kind].format(call=call) + f"r = {with_out}\nout = (r, o)\n"
    if "inplace" in names and first is not None and form == 1:
        with_flag = call[:-1] + (", " if not call.endswith("()") else "") + "inplace=True)"
        return f"r = {with_flag}\nout = (r, {first})\n"
    return f"out = {call}\n"


def name_is_seq(text: str) -> bool:
    return text.startswith(("[", "("))


RANDOM_APIS = ("rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial", "dropout",
               "uniform_", "normal_", "random_", "exponential_", "empty", "rrelu", "xavier_", "kaiming_",
               "trunc_normal_", "orthogonal_", "sparse_")


def _random_api(api: str) -> bool:
    last = api.rsplit(".", 1)[-1]
    return any(last == r or last.startswith(r) for r in RANDOM_APIS) or "dropout" in last
