"""The fuzzer's explanation classes apply only where the example shows their cause (tests/fuzz/known.py)."""
import numpy as np

from tests.fuzz import known
from tests.fuzz.strategies import Example


def _ex(**inputs):
    return Example("f", "out = f(x)\n", {k: np.asarray(v) for k, v in inputs.items()}, run="out = f(x)\n")


def test_pinverse_rank_deficient_only():
    singular = np.array([[[0.0, 0.0, 0.0], [3.0, -3.0, -2.0], [3.0, -4.0, -4.0]]], dtype="float32")
    full = np.array([[[2.0, 1.0, 0.0], [0.0, 1.0, 0.5], [1.0, 0.0, 3.0]]], dtype="float32")
    assert known.explain("torch.pinverse", "value", "", _ex(x=singular)) == known.PINV_RANK
    assert known.explain("torch.pinverse", "value", "", _ex(x=full)) == ""
    assert known.explain("torch.linalg.inv", "value", "", _ex(x=singular)) == ""


def test_loud_classes_need_their_cause():
    bool_msg = "MindSpore: TypeError: Select CPU operator[Atan2] fail! Unsupported data type!"
    assert known.explain("torch.atan2", "ms_raises", bool_msg, _ex(x=np.array([True]), y=np.array([False]))) \
        == known.LOUD_BOOL
    assert known.explain("torch.sort", "ms_raises", "MindSpore: ValueError: For Sort, the check range left must be "
                         "smaller than right number", _ex(x=np.zeros((0, 3), "float32"))) == known.LOUD_EMPTY
    assert known.explain("torch.flip", "ms_raises", "MindSpore: ValueError: For primitive[ReverseV2], the rank of x "
                         "must be not equal to 0", _ex(x=np.float32(1.0))) == known.LOUD_0D
    assert known.explain("torch.lerp", "ms_raises", "MindSpore: TypeError: For primitive[Lerp], the input[start] "
                         "supports types: Float16, Float32. But got Float64.", _ex(x=np.ones(2))) == known.LOUD_DTYPE
    # an ordinary float32 input with a keyword MindSpore does not take: no class applies (a conversion bug)
    assert known.explain("torch.sqrt", "ms_raises", "MindSpore: TypeError: sqrt() got an unexpected keyword argument "
                         "'input'", _ex(x=np.ones(3, "float32"))) == ""
    assert known.explain_text("torch.sqrt", "ms_raises", "MindSpore: TypeError: sqrt() got an unexpected keyword "
                              "argument 'input'", "out = torch.sqrt(input=x)   [x: float32[3]]") == ""
    assert known.explain_text("torch.atan2", "ms_raises", bool_msg,
                              "out = torch.atan2(x, y)   [x: bool[0], y: bool[2]]") == known.LOUD_EMPTY
    assert known.explain_text("torch.linspace", "ms_raises", "MindSpore: ValueError: the num must be greater than 0",
                              "out = torch.linspace(start=0, end=5, steps=0)   []") == known.LOUD_EMPTY


def test_loud_shape_classes_need_their_cause():
    msg = "MindSpore: ValueError: For primitive[MatrixInverse], the row size must be greater than or equal to 2, but got 1."
    assert known.explain_text("torch.linalg.inv", "ms_raises", msg, "out = torch.linalg.inv(A=x)   [x: float64[1, 1]]") \
        == known.LOUD_1X1
    assert known.explain_text("torch.linalg.inv", "ms_raises", msg, "out = torch.linalg.inv(A=x)   [x: float64[3, 3]]") \
        == ""
    msg = "MindSpore: ValueError: For primitive[KLDivLoss], the x shape: [4,1,] must be equal to [1,1,]"
    assert known.explain_text("torch.nn.functional.kl_div", "ms_raises", msg,
                              "out = F.kl_div(x, y)   [x: float32[4, 1], y: float32[1, 1]]") == known.LOUD_BROADCAST
    msg = "MindSpore: ValueError: For adaptive_avg_pool1d input must have 3 dim, but got 2."
    assert known.explain_text("torch.nn.functional.adaptive_avg_pool1d", "ms_raises", msg,
                              "out = F.adaptive_avg_pool1d(x, 1)   [x: float32[3, 3]]") == known.LOUD_UNBATCHED
    assert known.explain_text("torch.sqrt", "ms_raises", msg, "out = torch.sqrt(x)   [x: float32[3, 3]]") == ""


def test_loud_dtype_from_the_kernels_list():
    msg = ("MindSpore: TypeError: For primitive[Bernoulli], the input argument[x] must be a type of {Tensor[Bool], "
           "Tensor[Float32], Tensor[Float64], Tensor[Int16], Tensor[")
    assert known.explain_text("Tensor.bernoulli", "ms_raises", msg, "out = x.bernoulli()   [x: float16[3]]") \
        == known.LOUD_DTYPE
    assert known.explain_text("Tensor.bernoulli", "ms_raises", msg, "out = x.bernoulli()   [x: float32[3]]") == ""


LOUD_MEASURED = [  # (target, call, inputs, class): torch computes, the converted call raises, for the stated cause
    ("torch.bucketize", "out = torch.bucketize(x, y)\n",
     {"x": np.array([0.5, 1.0], "float32"), "y": np.array([False, True])}, known.LOUD_BOOL_BOUNDARIES),
    ("torch.tensordot", "out = torch.tensordot(x, y)\n",
     {"x": np.arange(4.0).reshape(4, 1), "y": np.full((1, 1), 2.0)}, known.LOUD_SIZE1_CONTRACT),
    ("torch.linalg.cholesky_ex", "out = torch.linalg.cholesky_ex(x)\n",
     {"x": np.array([[[-1.0]]], "float32")}, known.LOUD_NOT_PD),
]


def test_loud_classes_measured_in_both_frameworks():
    """The two classes' claims, run: torch computes, the converted code raises with the named message; the same
    call on inputs without the cause matches (so the class cannot hide a conversion bug)."""
    from tests.api.cases import HEADER
    from tests.fuzz.engine import run_example

    for target, call, inputs, why in LOUD_MEASURED:
        ex = Example(target, f"{HEADER}# @run\n{call}", inputs, run=call)
        outcome = run_example(ex)
        assert outcome.kind == "ms_raises", (target, outcome)
        assert known.explain(target, outcome.kind, outcome.detail, ex) == why
    ok = {"torch.bucketize": {"x": np.array([0.5, 1.0], "float32"), "y": np.array([0.0, 1.0], "float32")},
          "torch.tensordot": {"x": np.arange(4.0).reshape(2, 2), "y": np.full((2, 2), 2.0)},
          "torch.linalg.cholesky_ex": {"x": np.array([[[4.0, 1.0], [1.0, 3.0]]], "float32")}}
    for target, call, _, _ in LOUD_MEASURED:
        assert run_example(Example(target, f"{HEADER}# @run\n{call}", ok[target], run=call)).kind == "match"


def test_topk_ties_only_for_indices_of_repeated_values():
    """The fuzzer's topk finding (x int32[1, 5, 5], k=3, dim=1): both frameworks return the same values and break
    ties between equal values differently. Measured here in both, then the class applies only to that cause."""
    import mindspore as ms
    import torch
    from mindspore import ops

    x = np.array([[3, 1, 3, 0, 3]], dtype="int32")  # three 3s: which two indices is a tie
    tv, ti = torch.topk(torch.from_numpy(x), 2, 1)
    mv, mi = ops.topk(ms.Tensor(x), 2, 1)
    assert np.array_equal(tv.numpy(), mv.asnumpy())  # the values agree
    assert (x[0, ti.numpy()[0]] == 3).all() and (x[0, mi.asnumpy()[0]] == 3).all()  # both indices point at ties
    tie = _ex(x=x)
    assert known.explain("torch.topk", "value", "out[1][0, 1]: 4 (torch) vs 2 (MindSpore)", tie) == known.TIES
    # the values themselves differing, or no repeated value: not a tie
    assert known.explain("torch.topk", "value", "out[0][0, 1]: 3 (torch) vs 1 (MindSpore)", tie) == ""
    distinct = _ex(x=np.array([[4, 1, 3, 0, 2]], dtype="int32"))
    assert known.explain("torch.topk", "value", "out[1][0, 1]: 2 (torch) vs 4 (MindSpore)", distinct) == ""


def test_topk_unsorted_only_with_sorted_false():
    def ex(run):
        return Example("torch.topk", run, {"x": np.zeros((3, 4), "float16")}, run=run)

    d = "out[0][0, 1, 0]: -3.0 (torch) vs -2.0 (MindSpore), 8 of 24 differ"
    assert known.explain("torch.topk", "value", d, ex("out = torch.topk(x, 2, largest=False, sorted=False)\n")) \
        == known.UNSORTED
    assert known.explain("torch.topk", "value", d, ex("out = torch.topk(x, 2, 1, True, False)\n")) == known.UNSORTED
    assert known.explain("Tensor.topk", "value", d, ex("out = x.topk(2, 1, True, False)\n")) == known.UNSORTED
    # largest=False positionally is not sorted=False; sorted=True compares the values
    assert known.explain("torch.topk", "value", d, ex("out = torch.topk(x, 2, 1, False)\n")) == ""
    assert known.explain("torch.topk", "value", d, ex("out = torch.topk(x, 2, sorted=True)\n")) == ""
    assert known.explain_text("torch.topk", "value", d, "out = torch.topk(x, 2, 1, False)   [x: float16[3, 4]]") == ""
    assert known.explain_text("torch.topk", "value", d, "out = torch.topk(x, 2, sorted=False)   [x: float16[3, 4]]") \
        == known.UNSORTED
    # measured: the same k values on both sides, in each kernel's own order
    import mindspore as ms
    import torch
    from mindspore import ops

    x = np.random.default_rng(3).standard_normal((3, 4, 4)).astype("float16")
    tv, _ = torch.topk(torch.from_numpy(x), 2, largest=False, sorted=False)
    mv, _ = ops.topk(ms.Tensor(x), 2, largest=False, sorted=False)
    assert np.array_equal(np.sort(tv.numpy(), -1), np.sort(mv.asnumpy(), -1))
