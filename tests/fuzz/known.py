"""Findings of the fuzzer that are explained: each class with its measured cause and why it stays.

``explain(target, kind, detail, example)`` returns the explanation, or "" for an unexplained finding. A class
applies only when the example shows its cause (an empty input, a non-finite value, a huge value, a 0-d float16
tensor): the same target failing on ordinary inputs stays unexplained. None of these is a widened tolerance: the
numbers differ, for the stated reason, and the report lists every one.

Resolved findings are not listed here: they were fixed (tests/api/test_fuzz_found.py keeps the minimal example).
"""
from __future__ import annotations

import re

import numpy as np

TORCH_RAISES = ("torch refuses this input (the torch program stops here); the converted code computing a value "
                "misrepresents no result of a working torch program")

EMPTY = ("zero-element input: MindSpore 2.10's CPU kernels return other values or shapes than torch on empty "
         "tensors (any() of nothing True, sum/count_nonzero 1, prod 0, std/norm/loss means garbage or 0 where torch "
         "gives nan, diag/chunk shapes; measured by the fuzzer). Not converted around: every reduction would need a "
         "size test, for tensors real programs almost never leave empty")
NONFINITE = ("non-finite input (inf or nan): MindSpore's CPU kernels drop or produce NaN/inf differently (relu, "
             "clamp, maximum/minimum, hardtanh return the other operand where torch propagates nan; x % inf, "
             "division of nan by zero in float16, softplus/kl_div/logsumexp on inf). Kernel semantics, the converted "
             "call is the right one; a program whose tensors hold inf/nan is outside what parity can promise")
HUGE = ("huge input (|x| >= 1e4 up to 1e30): float overflow inside the kernel's formula differs between the two "
        "libraries (mish/softplus/group_norm/norm intermediate results overflow in one and not the other)")
ZERO_D_F16 = ("0-d tensor in a mixed-dtype call: torch's promotion lets a 0-d tensor (a 'scalar') not widen the "
              "result (float16 tensor / 2.5 stays float16; where(c, float32, 0-d float64) is float32), MindSpore "
              "promotes as for any tensor, and a 0-d int32 with a Python int as two scalars (div(0-d int32, 1, "
              "rounding_mode='trunc') is int64; int32 for shape (3,); measured). Affects only 0-d tensors mixed with "
              "other dtypes or Python numbers")
DUP_SCATTER = ("scatter with repeated indices: torch documents the result as undefined (which write wins is up to "
               "the kernel), so no conversion can promise torch's numbers")
F16_PRECISION = ("float16 input: MindSpore computes this kernel in float16 where torch accumulates in float32 "
                 "(or the reverse), and the result differs by more than two half-precision ulps")
SIGNED_ZERO = ("signed zero: MindSpore loses the sign of a -0.0 divisor or operand (x / -0.0 gives +inf where torch "
               "gives -inf; copysign/atan2 of -0.0), measured; IEEE sign-of-zero semantics, not a conversion")
CRASH = ("MindSpore 2.10 crashes the process (segfault / SIGFPE) on one of the fuzzer's inputs for this op; "
         "loud, reported to the lead, not a wrong number")
CONVERT_LITERAL = ("the converter raised an internal error for a literal where torch requires a tensor "
                   "(x.equal(2)): torch refuses the call too; reported to the lead (the template writes {other}.shape)")
HANG_POLYGAMMA = ("torch's own polygamma does not return for n=2 on a large negative non-integer (torch.polygamma(2, "
                  "tensor([-10122561256.779533], dtype=torch.float64)) runs for minutes; MindSpore's kernel too, "
                  "measured): the fuzzer stops the target at its time limit; no result of either side to compare")
FINFO = ("the call returns a dtype-information object: torch's finfo and the converted code's namespace hold the same "
         "fields (bits, eps, max, min, tiny, smallest_normal, resolution), but two objects of two classes never compare "
         "equal; the fields are compared by tests/api/test_references.py (torch.finfo cases)")
DUP_INDEX = ("index_copy with repeated indices: torch documents the result as nondeterministic (which copy lands last "
             "is up to the kernel), so no conversion can promise torch's numbers")
ZETA = ("Hurwitz zeta outside its domain (x <= 1 or q <= 0): torch gives nan/inf, MindSpore's kernel 0 or nan "
        "(measured); inside it (x > 1, q > 0) the two agree")
HINGE = ("hinge_embedding_loss with targets other than 1 and -1 (torch documents y in {1, -1}): torch and MindSpore "
         "treat other values differently; with +-1 targets the two agree (measured)")
KL_TARGET = ("kl_div with a negative target (not a probability): torch's target * log(target) is nan there, MindSpore's "
             "kernel computes a number; with non-negative targets the two agree (measured)")
UNPOOL_DUP = ("max_unpool with repeated indices: several inputs write one output cell and which write lands is up to "
              "the kernel (torch: undefined); indices from max_pool(return_indices=True) never repeat")
VAR_CORRECTION = ("var/std with a correction larger than the reduced size (correction=2 over 1 element): torch divides by "
                  "max(0, N - correction) and gives nan/inf, MindSpore divides by N - correction < 0 and gives -0.0 "
                  "(measured); correction 0 and 1, and correction 2 over 2 or more elements, agree")
POLYGAMMA_POLE = ("polygamma next to a pole (an input within 0.01 of 0 or a negative integer): the result ~ 1/d**(n+1) is "
                  "ill-conditioned in float32 and the two kernels' series differ beyond 2e-5 relative there; elsewhere "
                  "they agree (measured)")
LOUD = ("the converted call raises in MindSpore where torch computes (a dtype, rank or argument MindSpore's kernel "
        "does not take): loud, never a wrong number; listed for follow-up")

TANH = ("MindSpore 2.10's CPU Tanh kernel is off by up to 1e-4 near saturation (tanh(-5) = -1.0000098, outside "
        "[-1, 1]; torch -0.9999092), measured: a kernel inaccuracy beyond the float32 tolerance, not a conversion")

ERFINV = ("MindSpore 2.10's Erfinv kernel (float32 and float64) loses precision towards +-1: relative error 1e-7 below "
          "|x| = 0.9, 1.3e-5 up to 0.99, 2e-2 up to 0.999 and 0.12 beyond (torch 6e-8 throughout; measured against "
          "scipy in float64): a kernel inaccuracy, not a conversion (docs/call_forms.md)")

LAYOUT = ("memory-layout query on a view: the fuzzer hands torch a non-contiguous view and MindSpore a contiguous "
          "copy of the same values (engine._inject), so x.is_contiguous() and x.stride() differ by construction; on MindSpore's "
          "own views (x.T, permute, transpose, strided slices) it is False as in torch, and x.T.stride() of a [5, 5] "
          "tensor is [1, 5] as in torch (measured; "
          "tests/api/test_fuzz_found.py::test_is_contiguous_of_views)")

IGAMMA = ("igamma at the domain edge a = 0: torch gives nan for igamma(0, 0) and 1 for igamma(0, x > 0), MindSpore's "
          "kernel 0 and nan (measured); elsewhere the two agree")
DECORATOR = ("the call returns a decorator (a Python function): the fuzzer can only compare two function objects, "
             "which always differ; what the decorator does is proven by the two-framework cases of tests/api")
PY_OBJECT = ("the call returns a Python object (a multiprocessing queue, context or manager, a hook handle, a pytree "
             "spec, a dataset, a type or a decorated function): two fresh objects compare by identity and always "
             "differ; what they do is proven by the two-framework cases of tests/api (test_torch_runtime.py)")

UNINIT = ("uninitialised memory: torch documents the values of empty/new_empty as undefined (what the allocator "
          "left there), so only shape and dtype can agree")
ADDRESS = ("a memory address (data_ptr): two allocations in two libraries never share one; what code does with it "
           "(comparing two pointers of the same library) is not a number the conversion changes")
TIES = ("repeated values: which index kthvalue/mode/topk return among equal values is not specified (torch's docs "
        "promise no order among ties), the values agree; only the index of a tie differs (for topk: its values, out[0], "
        "matched and the input repeats a value)")
UNSORTED = ("topk with sorted=False: torch's docs say sorted controls whether the k elements come in sorted order; "
            "without it each kernel returns them in its own order (torch and MindSpore differ in order, the same k "
            "values); the sorted=True examples compare the values")
SHIFT = ("shift count outside [0, bit width): torch gives 0 (<<) or the sign (>>), MindSpore's kernel the hardware's "
         "count-modulo result (1 << 32 on int32: 0 vs 1; measured). C leaves such shifts undefined; open, not converted "
         "around")

PINV_RANK = ("pinverse of a numerically rank-deficient matrix (its smallest singular value is below max(m, n) * eps * "
             "the largest, i.e. rounding noise of a zero): torch.pinverse's documented cut rcond=1e-15 keeps that noise "
             "and inverts it (a 1e6 entry), the converted ops.pinv(rtol=1e-15) makes the same cut, but the noise itself "
             "is each SVD kernel's rounding (torch 4.9e-7, MindSpore 1.8e-15 for [[0, 0, 0], [3, -3, -2], [3, -4, -4]], "
             "measured), so the results are noise on both sides; full-rank inputs agree (300 random, measured)")

# Loud classes (kind ms_raises: torch computed, the converted call raised). Each applies only when the example shows
# its cause (the input's dtype or shape) and MindSpore's message names it; the call fails at once, with MindSpore's
# message, never with a wrong number.
LOUD_EMPTY = ("loud, zero-element input or zero size: MindSpore 2.10's CPU kernels refuse empty tensors and zero "
              "counts that torch accepts (Tile 'fast stride can not be equal to 0', diff/digamma 'can not be an empty "
              "Tensor', LinSpace/RandpermV2/fftfreq 'must be greater than 0', Svd of an empty matrix; measured): the "
              "converted call raises where torch returns an empty result")
LOUD_BOOL = ("loud, bool input: MindSpore 2.10's CPU kernel for this op has no bool variant (its message: "
             "'Unsupported data type', 'must be a type of {...}, but got Bool'), torch computes on True/False as 1/0; "
             "the converted call raises at once")
LOUD_0D = ("loud, 0-d input to an op that takes a dim: MindSpore 2.10's kernels (Sort, Cummax/Cummin/CumProd, "
           "ReverseV2, Transpose, GatherD, Softmax) refuse rank 0 ('axis must be in the range of [-0, 0)', 'rank ... "
           "must be greater than 0'), torch treats a 0-d tensor as one element along dim 0 / -1")
LOUD_DTYPE = ("loud, an input dtype MindSpore 2.10's CPU kernel for this op lacks (its message names the dtype: "
              "float64 Lerp/HShrink/LpNorm/Histogram, float16 Hypot/Argmax, integer Atan2/Xlogy/IsInf/Ceil, or "
              "two dtypes where the kernel takes one: Igamma/NextAfter 'the input type must be same'); torch "
              "computes (or promotes) them; the converted call raises at once")
LOUD_UNBATCHED = ("loud, an unbatched input: torch's convolution, pooling, dropout, unfold and channel_shuffle functions also take an "
                  "input without the batch dimension ((C, L) for 1d, (C, H, W) for 2d, (C, D, H, W) for 3d), "
                  "MindSpore's kernels require it ('input must have 3 dim', 'x_rank must be equal to 5', 'the rank "
                  "of input must be equal to 4', measured); the converted call raises at once")
LOUD_BROADCAST = ("loud, a target that broadcasts to the input: torch's kl_div / smooth_l1_loss broadcast input and target "
                  "(smooth_l1_loss with a warning), MindSpore's KLDivLoss / SmoothL1Loss kernels require equal shapes "
                  "('must be equal to', measured); with equal shapes the two agree")
LOUD_1X1 = ("loud, a 1x1 matrix: MindSpore 2.10's MatrixDeterminant / MatrixInverse / LogMatrixDeterminant kernels "
            "require at least 2 rows ('the row size must be greater than or equal to 2, but got 1', measured); "
            "2x2 and larger agree")
LOUD_NOARGS = ("loud, a call with no tensors at all (torch.atleast_1d() returns (), torch.block_diag() an empty "
               "tensor): MindSpore's functions require at least one ('missing 1 required positional argument', "
               "'the input is empty')")
LOUD_DOMAIN = ("loud, an input outside the function's domain: mvlgamma(x, p) with some x <= (p - 1) / 2 gives nan in "
               "torch 2.x, MindSpore's Mvlgamma raises ('all elements of x must be greater than (p-1)/2', measured)")
LOUD_DEGENERATE = ("loud, a degenerate argument: p=0 in normalize / pairwise_distance (MindSpore's formula divides by p: "
                   "ZeroDivisionError), beta=0 in softplus (torch divides by it and gives inf/nan, MindSpore refuses "
                   "'beta cannot be 0'), a bool as threshold's value (torch takes True as 1, MindSpore wants a float "
                   "or int), p=1 in a training-mode dropout (torch returns zeros, MindSpore's Dropout refuses keep_prob 0); measured")
LOUD_0D_SHAPE = ("loud, the 0-d shape (): MindSpore 2.10's CPU Zeros / Ones kernels refuse it ('Select CPU operator[Zeros] "
                 "fail! Unsupported data type' for ops.zeros(()) in every dtype, measured; ops.zeros(1) runs), torch "
                 "returns a 0-d tensor")
LOUD_ADAPTIVE_UP = ("loud, an adaptive pooling output that does not divide its input (output_size 2 over a length-1 or "
                    "length-3 axis): torch's windows overlap or repeat cells, MindSpore's adaptive_avg_pool1d requires "
                    "the input length to be at least and a multiple of the output size ('must be greater or equal to "
                    "output size', 'must be divisible by output size', measured)")
LOUD_BOOL_BOUNDARIES = ("loud, bool boundaries: MindSpore 2.10's SearchSorted kernel fails on a bool sorted sequence "
                        "('Unknown Error!'; torch.bucketize(tensor([0.5, 1.0]), tensor([False, True])) gives [1, 1]), "
                        "measured; the converted call raises at once")
LOUD_SIZE1_CONTRACT = ("loud, a contracted axis of size 1 against a longer one: torch's tensordot broadcasts it "
                       "(tensordot(ones(4, 1), full((1, 1), 2.)) is 12.0), MindSpore's tensor_dot requires equal "
                       "sizes ('the 'i' should exist such that ...', measured); equal sizes agree")
LOUD_NOT_PD = ("loud, a matrix that is not positive definite: torch's cholesky_ex returns a partial factor and reports "
               "the failure in info, MindSpore's Cholesky raises ('expects symmetric positive definite matrices'; the "
               "entry's note says so): code that reads info gets an exception instead; positive definite inputs agree")
LOUD_TENSOR_AXIS = ("loud, a tensor given as an axis: torch takes a 0-d integer tensor where a dim is expected "
                    "(moveaxis(source=tensor(1))), MindSpore's axes must be Python ints ('The axes must be integers', "
                    "measured)")

# (target regex, kinds, cause predicate name, explanation)
KNOWN: list[tuple[str, tuple[str, ...], str, str]] = [
    (r"Tensor\.equal|torch\.equal|Tensor\.is_same_size", ("convert_error", "crash"), "any", CONVERT_LITERAL),
    (r"(Tensor|torch)\.igamma_?|torch\.special\.gammainc", ("value",), "any", IGAMMA),
    (r"torch\.finfo", ("value",), "any", FINFO),
    (r"torch\.nn\.functional\.hinge_embedding_loss|torch\.nn\.HingeEmbeddingLoss", ("value",), "hinge", HINGE),
    (r"torch\.nn\.functional\.kl_div|torch\.nn\.KLDivLoss", ("value",), "negative_target", KL_TARGET),
    (r"torch\.nn\.functional\.max_unpool[123]d|torch\.nn\.MaxUnpool[123]d", ("value",), "dup_index", UNPOOL_DUP),
    (r"(Tensor|torch)\.(var|std)(_mean)?", ("value",), "correction", VAR_CORRECTION),
    (r"(Tensor|torch)\.(special\.)?polygamma_?", ("value",), "pole", POLYGAMMA_POLE),
    (r"(Tensor|torch)\.index_copy_?", ("value",), "dup_index", DUP_INDEX),
    (r"torch\.special\.zeta", ("value",), "zeta", ZETA),
    (r"torch\.jit\.(ignore|unused|export)", ("value",), "any", DECORATOR),
    (r"torch\.multiprocessing\.\w+|torch\.utils\.hooks\.RemovableHandle|torch\.utils\._pytree\.TreeSpec|"
     r"torch\.utils\.data\.ConcatDataset|torch\.(jit\.)?Script(Module|Function)|torch\._dynamo\.(eval_frame\.)?OptimizedModule|"
     r"torch\.jit\.(_script_if_tracing|_overload_method|script)", ("value",), "any", PY_OBJECT),
    (r".*", ("crash",), "any", CRASH),
    (r"(torch|Tensor)\.(special\.)?polygamma_?", ("hang",), "any", HANG_POLYGAMMA),
    (r"(Tensor|torch)\.scatter.*", ("value",), "any", DUP_SCATTER),
    (r"Tensor\.tanh_?|torch\.tanh|torch\.nn\.functional\.tanh(shrink)?|torch\.nn\.Tanhshrink", ("value",), "any", TANH),
    (r"(Tensor|torch)\.(special\.)?erfinv_?", ("value",), "any", ERFINV),
    (r"Tensor\.(is_contiguous|stride)", ("value",), "view", LAYOUT),
    (r"(Tensor\.new_empty|torch\.empty(_like)?|Tensor\.new_empty_strided|torch\.empty_strided)", ("value",), "any",
     UNINIT),
    (r"Tensor\.data_ptr", ("value",), "any", ADDRESS),
    (r"(Tensor|torch)\.(kthvalue|mode)", ("value",), "any", TIES),
    (r"(Tensor|torch)\.topk", ("value",), "tie_index", TIES),
    (r"(Tensor|torch)\.topk", ("value",), "unsorted", UNSORTED),
    (r"(Tensor|torch)\.bitwise_(left|right)_shift_?|operator:(<<|>>)=?", ("value",), "shift", SHIFT),
    (r"(Tensor|torch)\.pinverse", ("value",), "rank_deficient", PINV_RANK),
    (r".*", ("ms_raises",), "loud_empty", LOUD_EMPTY),
    (r"torch\.nn\.functional\.(adaptive_)?(avg|max|lp)_pool[123]d|torch\.nn\.functional\.(dropout[123]d|unfold|"
     r"channel_shuffle|conv[123]d)", ("ms_raises",), "loud_unbatched", LOUD_UNBATCHED),
    (r"torch\.nn\.functional\.(kl_div|smooth_l1_loss)", ("ms_raises",), "loud_broadcast", LOUD_BROADCAST),
    (r"(Tensor|torch)\.(linalg\.)?(det|inv|inv_ex|inverse|logdet|slogdet)", ("ms_raises",), "loud_1x1", LOUD_1X1),
    (r"torch\.(atleast_[123]d|block_diag)", ("ms_raises",), "loud_noargs", LOUD_NOARGS),
    (r"(Tensor|torch)\.(special\.)?(mvlgamma_?|multigammaln)", ("ms_raises",), "loud_domain", LOUD_DOMAIN),
    (r"(torch\.nn\.functional|Tensor|torch|torch\.special)\.log_softmax", ("ms_raises",), "loud_0d_unknown", LOUD_0D),
    (r"torch\.nn\.functional\.(normalize|pairwise_distance|softplus|threshold|dropout[123]?d?)|torch\.threshold",
     ("ms_raises",),
     "loud_degenerate", LOUD_DEGENERATE),
    (r"(Tensor|torch)\.(moveaxis|movedim)", ("ms_raises",), "loud_tensor_axis", LOUD_TENSOR_AXIS),
    (r"torch\.(zeros|ones|empty)", ("ms_raises",), "loud_0d_shape", LOUD_0D_SHAPE),
    (r"(Tensor|torch)\.scatter(_add|_reduce)?_?", ("ms_raises",), "loud_0d_scatter", LOUD_0D),
    (r"torch\.nn\.functional\.adaptive_(avg|max)_pool[123]d", ("ms_raises",), "loud_adaptive_up", LOUD_ADAPTIVE_UP),
    (r"(Tensor|torch)\.(bucketize|searchsorted)", ("ms_raises",), "loud_bool_unknown", LOUD_BOOL_BOUNDARIES),
    (r"(Tensor|torch)\.tensordot", ("ms_raises",), "loud_size1_contract", LOUD_SIZE1_CONTRACT),
    (r"torch\.linalg\.cholesky_ex", ("ms_raises",), "loud_not_pd", LOUD_NOT_PD),
    (r".*", ("ms_raises",), "loud_bool", LOUD_BOOL),
    (r".*", ("ms_raises",), "loud_0d", LOUD_0D),
    (r".*", ("ms_raises",), "loud_dtype", LOUD_DTYPE),
]

_SILENT = ("value", "dtype", "shape")


def _arrays(example):
    return [np.asarray(v) for v in (example.inputs.values() if example is not None else ())]


def _shift_out_of_range(example) -> bool:
    """A shift count (an integer input after the first, or a literal in the call) below 0 or >= 32."""
    if example is None:
        return False
    arrays = _arrays(example)[1:]
    if any(a.dtype.kind in "iu" and a.size and (a.min() < 0 or a.max() >= 8 * a.dtype.itemsize) for a in arrays):
        return True
    return bool(re.search(r"(<<|>>|shift\()\s*(other=)?(-\d|\d{2,})", example.run))


def _dup_index(example) -> bool:
    """An integer input (the index) with a repeated value."""
    return any(a.dtype.kind in "iu" and a.size and len(np.unique(a)) < a.size for a in _arrays(example))


def _topk_unsorted(code: str) -> bool:
    """``topk`` called with sorted=False (keyword, or the 5th positional of torch.topk / 4th of Tensor.topk)."""
    import ast

    try:
        tree = ast.parse(code.strip())
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "topk":
            method = not (isinstance(node.func.value, ast.Name) and node.func.value.id == "torch")
            args = {kw.arg: kw.value for kw in node.keywords}
            pos = 3 if method else 4
            value = args.get("sorted", node.args[pos] if len(node.args) > pos else None)
            return isinstance(value, ast.Constant) and value.value is False
    return False


def _repeats(example) -> bool:
    """The first input holds a repeated value (a tie a sort-like op may break either way)."""
    arrays = _arrays(example)
    return bool(arrays) and arrays[0].size > 0 and len(np.unique(arrays[0])) < arrays[0].size


def _zeta_domain(example) -> bool:
    """zeta(x, q) with some x <= 1 or q <= 0 (an input array or a literal q of 0 or below)."""
    if example is None:
        return False
    arrays = _arrays(example)
    if arrays and arrays[0].size and np.nanmin(arrays[0].astype("float64")) <= 1:
        return True
    if len(arrays) > 1 and arrays[1].size and np.nanmin(arrays[1].astype("float64")) <= 0:
        return True
    return bool(re.search(r"other=(0|-)|zeta\([^,]+,\s*(0|-)", example.run))


def _hinge(example) -> bool:
    arrays = _arrays(example)
    return len(arrays) > 1 and arrays[1].size > 0 and not np.isin(arrays[1], (1, -1)).all()


def _negative_target(example) -> bool:
    arrays = _arrays(example)
    return len(arrays) > 1 and arrays[1].size > 0 and bool((arrays[1] < 0).any())


def _correction(example) -> bool:
    m = re.search(r"correction=(\d+)", example.run) if example is not None else None
    return bool(m) and int(m.group(1)) >= 2


def _pole(example) -> bool:
    for a in _arrays(example):
        if a.dtype.kind == "f" and a.size:
            v = a.astype("float64")
            if bool(((v <= 0.01) & (np.abs(v - np.round(v)) < 0.01)).any()):
                return True
    return False


def _rank_deficient(example) -> bool:
    """A matrix of the first input whose smallest singular value is rounding noise: below max(m, n) * eps(float32)
    * the largest (SVD in float64 of the values as given)."""
    arrays = _arrays(example)
    if not arrays or arrays[0].ndim < 2 or not arrays[0].size or arrays[0].dtype.kind != "f":
        return False
    a = arrays[0].astype("float64")
    if not np.isfinite(a).all():
        return False
    sv = np.linalg.svd(a.reshape(-1, *a.shape[-2:]), compute_uv=False)
    cut = max(a.shape[-2:]) * float(np.finfo(np.float32).eps)
    return bool((sv.min(axis=-1) <= cut * sv.max(axis=-1)).any())


_PREDICATES = {"rank_deficient": _rank_deficient, "hinge": _hinge, "negative_target": _negative_target, "correction": _correction, "pole": _pole}


def _has_empty(example) -> bool:
    return any(a.size == 0 for a in _arrays(example))


def _has_nonfinite(example) -> bool:
    if example is not None and re.search(r"\binf\b|nan|1e30", example.run):
        return True
    return any(a.dtype.kind == "f" and not np.isfinite(a).all() for a in _arrays(example))


def _has_huge(example) -> bool:
    return any(a.dtype.kind in "fi" and a.size and np.nanmax(np.abs(a.astype("float64"))) >= 1e4
               for a in _arrays(example))


def _has_signed_zero(example) -> bool:
    if example is not None and "-0.0" in example.run:
        return True
    return any(a.dtype.kind == "f" and bool(np.any((a == 0) & np.signbit(a))) for a in _arrays(example))


def _zero_d_f16(example) -> bool:
    return any(a.ndim == 0 and a.dtype.kind in "fciu" for a in _arrays(example))


def _has_f16(example) -> bool:
    return any(a.dtype == np.float16 for a in _arrays(example))


_ZERO_SIZE = re.compile(r"\b(steps|n|num|bins)=0\b|\((\s*-?\d+\s*,)*\s*0\s*(,\s*-?\d+\s*)*,?\)")
_DTYPE_WORDS = {"bool": "Bool", "float16": "Float16", "float32": "Float32", "float64": "Float64", "int32": "Int32",
                "int64": "Int64"}


def _loud(cause: str, dtypes: list, shapes: list, call: str, detail: str) -> bool:
    """Whether a loud (ms_raises) example shows ``cause``: from its inputs' dtypes and shapes, its call text and
    MindSpore's message."""
    if cause == "loud_empty":
        if "The input value must be in range of [0, 1), but got 1" in detail and any(1 in s for s in shapes):
            return True  # cumulative_trapezoid over a dim of size 1: torch returns an empty tensor
        return any(0 in s for s in shapes) or bool(_ZERO_SIZE.search(call)) or bool(
            re.search(r"must be greater than 0, but got (data: )?0\b", detail) and re.search(r"[(,]\s*0\s*[,)]", call))
    if cause == "loud_bool":
        return "bool" in dtypes and bool(re.search(r"Bool|bool|Unsupported data type|must be a type of", detail))
    if cause == "loud_0d":
        return any(s == [] for s in shapes) and bool(re.search(
            r"rank|axis|[Dd]im|range|at least|must be greater than 0|Launch kernel failed|cannot deal with empty input",
            detail))
    if cause == "loud_unbatched":
        return bool(shapes) and bool(re.search(r"must have \d dim|rank must be equal to|x_rank must be equal to|"
                                               r"rank of input\s+must be equal to|dim of x must be in|rank of x must "
                                               r"be in|dimension of input x must be equal to|expect input with > \d "
                                               r"dims|input x rank must be equal to|the input must be a \dD Tensor|"
                                               r"x shape size must be equal to", detail))
    if cause == "loud_broadcast":
        return len(shapes) > 1 and shapes[0] != shapes[1] and "must be equal to" in detail
    if cause == "loud_1x1":
        return any(len(s) >= 2 and s[-2:] == [1, 1] for s in shapes) and "greater than or equal to 2" in detail
    if cause == "loud_noargs":
        return not shapes and bool(re.search(r"\w\(\)", call)) and bool(
            re.search(r"missing 1 required positional|input is empty", detail))
    if cause == "loud_0d_scatter":  # scatter of 0-d tensors: 'framework's unexpected error' (1-D runs, measured)
        return any(s == [] for s in shapes) and "unexpected error" in detail
    if cause == "loud_adaptive_up":
        return bool(re.search(r"must be greater or equal|must be divisible by output size", detail))
    if cause == "loud_0d_unknown":  # log_softmax of a 0-d tensor of any float dtype: 'Unknown Error!' (measured)
        return any(s == [] for s in shapes) and "Unknown Error" in detail
    if cause == "loud_degenerate":
        return bool(re.search(r"ZeroDivisionError", detail) and re.search(r"(p=|, )0(\.0)?\b", call)) or bool(
            "beta' cannot be 0" in detail) or bool("but got type 'bool'" in detail and re.search(r"True|False", call)) or bool(
            "'keep_prob' must be in (0.0, 1.0], but got 0" in detail)
    if cause == "loud_0d_shape":
        return bool(re.search(r"\(\s*(\(\s*\)|\[\s*\])", call)) and "Unsupported data type" in detail
    if cause == "loud_bool_unknown":
        return "bool" in dtypes and "Unknown Error" in detail
    if cause == "loud_size1_contract":
        return "should exist such that" in detail and any(1 in s for s in shapes)
    if cause == "loud_not_pd":
        return "positive definite" in detail
    if cause == "loud_tensor_axis":
        return "axes must be integers" in detail and len(shapes) > 1
    if cause == "loud_domain":
        return "must be greater than (p-1)/2" in detail
    if cause == "loud_dtype":
        if re.search(r"input type must be same|should be the same dtype|must be float,\s*but got", detail) and \
                len(set(dtypes)) > 1:
            return True
        listed = re.findall(r"Tensor\[(\w+)\]", detail.split("but got")[0])
        # the dtype MindSpore names as refused: after "but got" (a list of accepted types names the others)
        said = detail.split("but got", 1)[1] if "but got" in detail else ("" if listed else detail)
        named = [w for d, w in _DTYPE_WORDS.items() if d in dtypes and (w in said or f"must not be {d}" in detail)]
        if listed and listed == sorted(listed):  # the kernel's accepted types, listed in order (a cut message too)
            for d in dtypes:
                w = _DTYPE_WORDS.get(d)
                if w and w not in listed and w < listed[-1]:
                    return True  # the input's dtype would be listed before the last one shown: not accepted
        if any(d == "float16" or d.startswith("int") for d in dtypes) and re.search(
                r"KernelMod Init Failed|unregistered", detail):
            return True  # FloorDiv of float16 by a Python float: 'does not support ... input(Float16,Float32)'
        return bool(named) or (bool(re.search(r"Unsupported data type", detail)) and
                               any(d.startswith("int") or d in ("float16", "float64") for d in dtypes))
    return False


def explain(target: str, kind: str, detail: str, example=None) -> str:
    if kind == "torch_raises":
        return TORCH_RAISES
    for pattern, kinds, cause, why in KNOWN:
        if cause.startswith("loud_"):
            if kind not in kinds or example is None or not re.fullmatch(pattern, target):
                continue
            arrays = _arrays(example)
            if _loud(cause, [str(a.dtype) for a in arrays], [list(a.shape) for a in arrays],
                     example.run or example.code, detail):
                return why
            continue
        if cause == "view" and not (example is not None and example.strided):
            continue
        if cause == "shift" and not _shift_out_of_range(example):
            continue
        if cause == "dup_index" and not _dup_index(example):
            continue
        if cause == "tie_index" and not (detail.startswith("out[1]") and _repeats(example)):
            continue  # the indices (out[1]) differ, the values matched (out[0] is compared first), a value repeats
        if cause == "unsorted" and not (example is not None and _topk_unsorted(example.run)):
            continue
        if cause == "zeta" and not _zeta_domain(example):
            continue
        if cause in _PREDICATES and not _PREDICATES[cause](example):
            continue
        if kind in kinds and re.fullmatch(pattern, target):
            return why
    if kind in _SILENT and example is not None:
        if _has_empty(example):
            return EMPTY
        if _has_nonfinite(example):
            return NONFINITE
        if _has_huge(example):
            return HUGE
        if _has_signed_zero(example) and re.search(r"inf|-0\.0|\b0\.0\b", detail):
            return SIGNED_ZERO
        if kind == "dtype" and _zero_d_f16(example):
            return ZERO_D_F16
    return ""


_SHAPE = re.compile(r":\s*\w+\[([0-9, ]*)\]")
_SHAPE_D = re.compile(r":\s*(\w+)\[([0-9, ]*)\]")


def _shapes(description: str) -> list:
    return [[int(d) for d in m.split(",") if d.strip()] for m in _SHAPE.findall(description)]


def explain_text(target: str, kind: str, detail: str, description: str) -> str:
    """``explain`` for a recorded finding, from its description (``out = f(x)   [x: float32[0, 3] (view)]``):
    the classes whose cause the description shows (empty or 0-d inputs, inf/nan/-0.0 in the call text)."""
    if kind == "torch_raises":
        return TORCH_RAISES
    dtypes = [d for d, _ in _SHAPE_D.findall(description.split("   [", 1)[1] if "   [" in description else "")]
    for pattern, kinds, cause, why in KNOWN:
        if cause.startswith("loud_"):
            call = description.split("   [")[0]
            if kind in kinds and re.fullmatch(pattern, target) and _loud(cause, dtypes, _shapes(description), call,
                                                                       detail):
                return why
            continue
        if cause == "view" and "(view)" not in description:
            continue
        if cause == "unsorted" and not _topk_unsorted(description.split("   [")[0]):
            continue
        if cause in ("shift", "dup_index", "tie_index", "hinge", "negative_target", "pole", "rank_deficient"):  # needs the values
            continue
        if cause == "correction" and not re.search(r"correction=([2-9]|\d{2,})", description):
            continue
        if cause == "zeta" and not re.search(r"other=(0|-)|zeta\([^,]+,\s*(0|-)", description):
            continue
        if kind in kinds and re.fullmatch(pattern, target):
            return why
    if kind not in _SILENT:
        return ""
    shapes = [[int(d) for d in m.split(",") if d.strip()] for m in _SHAPE.findall(description)]
    if any(0 in s for s in shapes):
        return EMPTY
    call = description.split("   [")[0]
    if re.search(r"\binf\b|nan|1e30", call):
        return NONFINITE
    if "-0.0" in call and "inf" in detail:
        return SIGNED_ZERO
    if kind == "dtype" and any(s == [] for s in shapes):
        return ZERO_D_F16
    return ""
