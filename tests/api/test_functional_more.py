"""More torch.nn.functional calls (mappings/functional.toml): converted code computes what torch computed."""
import numpy as np
import pytest

from tests.api.cases import HEADER, call_cases
from tests.harness import assert_unsupported, rng_array, run_case

X = {"x": rng_array(2, 3, 8, 8)}
ACT = {"x": 3 * rng_array(3, 7)}
SEQ = {"x": rng_array(2, 3, 16)}
TOL = dict(rtol=1e-4, atol=1e-5, why_tolerance="sums of products are reduced in a different order (float32 rounding)")
CONV2 = {"x": rng_array(2, 3, 8, 8), "w": rng_array(4, 3, 3, 3, seed=1), "b": rng_array(4, seed=2)}
CONV1 = {"x": rng_array(2, 3, 16), "w": rng_array(4, 3, 3, seed=1), "b": rng_array(4, seed=2)}
LIN = {"x": rng_array(5, 6), "w": rng_array(4, 6, seed=1), "b": rng_array(4, seed=2)}
BN = {"x": rng_array(4, 3, 5, 5), "rm": rng_array(3, seed=1), "rv": np.abs(rng_array(3, seed=2)) + 0.5,
      "w": rng_array(3, seed=3), "b": rng_array(3, seed=4)}
LN = {"x": rng_array(2, 5, 8), "w": rng_array(8, seed=1), "b": rng_array(8, seed=2), "w2": rng_array(5, 8, seed=3)}
GN = {"x": rng_array(2, 6, 4, 4), "w": rng_array(6, seed=1), "b": rng_array(6, seed=2)}
EMB = {"i": rng_array(2, 5, dtype="int64", high=10), "w": rng_array(10, 3, seed=1)}
CLS = {"x": rng_array(5, 4), "t": rng_array(5, dtype="int64", high=4, seed=1), "cw": np.abs(rng_array(4, seed=2)) + 0.1}
PROB = {"x": (1 / (1 + np.exp(-rng_array(4, 3)))).astype("float32"), "t": (rng_array(4, 3, seed=1) > 0).astype("float32"),
        "bw": np.abs(rng_array(4, 3, seed=2)).astype("float32")}
XY = {"x": rng_array(4, 6), "y": rng_array(4, 6, seed=1)}
KL = {"x": np.log(np.abs(rng_array(4, 5)) + 0.1).astype("float32"), "t": (np.abs(rng_array(4, 5, seed=1)) / 4).astype("float32")}
GRID = {"x": rng_array(2, 3, 5, 5), "g": np.tanh(rng_array(2, 4, 6, 2, seed=1)).astype("float32"),
        "theta": rng_array(2, 2, 3, seed=2)}

CASES = [
    *call_cases("torch.nn.functional.conv2d", [
        "F.conv2d(x, w)", "F.conv2d(x, w, b, 1, 1)", "F.conv2d(input=x, weight=w, bias=b, stride=2, padding=(1, 2))",
        "F.conv2d(padding='same', weight=w, input=x)", "F.conv2d(x, w, b, padding=p, dilation=2)",
        "F.conv2d(x, w, None, 1, 'valid')",
    ], CONV2, prelude="p = 2", **TOL),
    *call_cases("torch.nn.functional.conv1d", [
        "F.conv1d(x, w)", "F.conv1d(x, w, b, 2, 1)", "F.conv1d(input=x, weight=w, bias=b, padding=1)",
        "F.conv1d(padding='same', weight=w, input=x)", "F.conv1d(x, w, b, padding=p)",
    ], CONV1, prelude="p = 2", **TOL),
    *call_cases("torch.nn.functional.linear", ["F.linear(x, w)", "F.linear(x, w, b)", "F.linear(input=x, weight=w, bias=b)",
                                               "F.linear(bias=b, weight=w, input=x)"], LIN, **TOL),
    *call_cases("torch.nn.functional.batch_norm", [
        "F.batch_norm(x, rm, rv)", "F.batch_norm(x, rm, rv, w, b)", "F.batch_norm(x, rm, rv, w, b, True, 0.1, 1e-3)",
        "F.batch_norm(input=x, running_mean=rm, running_var=rv, weight=w, bias=b, eps=1e-4)",
        "F.batch_norm(x, rm, rv, training=True, momentum=0.3, weight=w, bias=b)",
    ], BN, names=("out", "rm", "rv"), **TOL),
    *call_cases("torch.nn.functional.layer_norm", [
        "F.layer_norm(x, (8,))", "F.layer_norm(x, [8], w, b)", "F.layer_norm(input=x, normalized_shape=(8,), weight=w, bias=b, eps=1e-3)",
        "F.layer_norm(eps=1e-6, bias=b, weight=w, normalized_shape=(8,), input=x)", "F.layer_norm(x, (5, 8), w2)",
        "F.layer_norm(x, (8,), None, b)",
    ], LN, **TOL),
    *call_cases("torch.nn.functional.group_norm", [
        "F.group_norm(x, 3)", "F.group_norm(x, 2, w, b)", "F.group_norm(input=x, num_groups=3, weight=w, bias=b, eps=1e-3)",
        "F.group_norm(eps=1e-4, num_groups=6, input=x)", "F.group_norm(x, g, w, b)",
    ], GN, prelude="g = 2", **TOL),
    *call_cases("torch.nn.functional.normalize", [
        "F.normalize(x)", "F.normalize(x, 1.0, -1)", "F.normalize(input=x, p=2.0, dim=0, eps=1e-6)",
        "F.normalize(dim=1, input=x, p=3)", "F.normalize(x, p=q)",
    ], ACT, prelude="q = 2.0", **TOL),
    *call_cases("torch.nn.functional.embedding", [
        "F.embedding(i, w)", "F.embedding(input=i, weight=w)", "F.embedding(weight=w, input=i, padding_idx=0)",
        "F.embedding(i, w, None, None)",
    ], EMB),
    *call_cases("torch.nn.functional.one_hot", [
        "F.one_hot(i, 10)", "F.one_hot(i, num_classes=12)", "F.one_hot(num_classes=10, input=i)", "F.one_hot(i, n)",
    ], EMB, prelude="n = 11"),
    *call_cases("torch.nn.functional.pixel_shuffle", ["F.pixel_shuffle(x, 2)", "F.pixel_shuffle(input=x, upscale_factor=2)",
                                                      "F.pixel_shuffle(upscale_factor=r, input=x)"],
                {"x": rng_array(2, 8, 3, 3)}, prelude="r = 2"),
    *call_cases("torch.nn.functional.unfold", [
        "F.unfold(x, 2)", "F.unfold(x, 3, 1, 1, 2)", "F.unfold(input=x, kernel_size=(2, 3), stride=2)",
        "F.unfold(stride=1, padding=1, kernel_size=3, input=x)", "F.unfold(x, k, dilation=2)",
    ], X, prelude="k = 2"),
    *call_cases("torch.nn.functional.grid_sample", [
        "F.grid_sample(x, g)", "F.grid_sample(x, g, 'nearest')", "F.grid_sample(x, g, align_corners=True)",
        "F.grid_sample(input=x, grid=g, mode='bilinear', padding_mode='border', align_corners=False)",
        "F.grid_sample(padding_mode='reflection', grid=g, input=x)",
    ], GRID, **TOL),
    *call_cases("torch.nn.functional.affine_grid", [
        "F.affine_grid(theta, (2, 3, 4, 5))", "F.affine_grid(theta, [2, 3, 4, 5], align_corners=True)",
        "F.affine_grid(size=(2, 3, 6, 6), theta=theta, align_corners=False)", "F.affine_grid(theta, x.size())",
    ], GRID, **TOL),
    *call_cases("torch.nn.functional.cosine_similarity", [
        "F.cosine_similarity(x, y)", "F.cosine_similarity(x, y, 0)", "F.cosine_similarity(x1=x, x2=y, dim=-1, eps=1e-6)",
        "F.cosine_similarity(eps=1e-8, x2=y, x1=x)",
    ], XY, **TOL),
    *call_cases("torch.nn.functional.pairwise_distance", [
        "F.pairwise_distance(x, y)", "F.pairwise_distance(x, y, 1.0)", "F.pairwise_distance(x1=x, x2=y, p=3.0, eps=1e-4, keepdim=True)",
        "F.pairwise_distance(keepdim=False, x2=y, x1=x)",
    ], XY, **TOL),
    # activations
    *call_cases("torch.nn.functional.elu", ["F.elu(x)", "F.elu(x, 1.0)", "F.elu(input=x, alpha=1.0, inplace=False)",
                                            "F.elu(inplace=False, input=x)"], ACT),
    *call_cases("torch.nn.functional.selu", ["F.selu(x)", "F.selu(input=x)", "F.selu(x, False)"], ACT),
    *call_cases("torch.nn.functional.silu", ["F.silu(x)", "F.silu(input=x, inplace=False)"], ACT),
    *call_cases("torch.nn.functional.mish", ["F.mish(x)", "F.mish(input=x)"], ACT),
    *call_cases("torch.nn.functional.softplus", ["F.softplus(x)", "F.softplus(x, 2)", "F.softplus(input=x, beta=0.5, threshold=2)",
                                                 "F.softplus(threshold=1, input=x)", "F.softplus(x, b, t)"],
                ACT, prelude="b, t = 2.0, 3.0"),
    *call_cases("torch.nn.functional.hardtanh", ["F.hardtanh(x)", "F.hardtanh(x, -2.0, 2.0)",
                                                 "F.hardtanh(input=x, min_val=-0.5, max_val=0.5)",
                                                 "F.hardtanh(max_val=2.0, input=x)", "F.hardtanh(x, lo, hi)"],
                ACT, prelude="lo, hi = -1.5, 1.0"),
    *call_cases("torch.nn.functional.hardswish", ["F.hardswish(x)", "F.hardswish(input=x, inplace=False)"], ACT),
    *call_cases("torch.nn.functional.relu6", ["F.relu6(x)", "F.relu6(input=x)", "F.relu6(x, inplace=False)"], ACT),
    *call_cases("torch.nn.functional.logsigmoid", ["F.logsigmoid(x)", "F.logsigmoid(input=x)"], ACT),
    *call_cases("torch.nn.functional.softmin", ["F.softmin(x, dim=1)", "F.softmin(x, 0)", "F.softmin(dim=-1, input=x)",
                                                "F.softmin(x, d)"], ACT, prelude="d = 1", **TOL),
    *call_cases("torch.nn.functional.glu", ["F.glu(x)", "F.glu(x, 0)", "F.glu(input=x, dim=1)", "F.glu(dim=-1, input=x)"],
                {"x": rng_array(4, 6)}),
    # pooling, dropout
    *call_cases("torch.nn.functional.max_pool1d", ["F.max_pool1d(x, 2)", "F.max_pool1d(x, 3, 2)",
                                                   "F.max_pool1d(input=x, kernel_size=4, stride=2)",
                                                   "F.max_pool1d(stride=1, kernel_size=2, input=x)", "F.max_pool1d(x, k)"],
                SEQ, prelude="k = 4"),
    *call_cases("torch.nn.functional.avg_pool1d", ["F.avg_pool1d(x, 2)", "F.avg_pool1d(x, 3, 2, 1)",
                                                   "F.avg_pool1d(input=x, kernel_size=4, stride=2)",
                                                   "F.avg_pool1d(stride=1, kernel_size=2, input=x)", "F.avg_pool1d(x, k)"],
                SEQ, prelude="k = 4"),
    *call_cases("torch.nn.functional.adaptive_max_pool2d", ["F.adaptive_max_pool2d(x, 1)", "F.adaptive_max_pool2d(x, (2, 4))",
                                                            "F.adaptive_max_pool2d(input=x, output_size=4)",
                                                            "F.adaptive_max_pool2d(output_size=s, input=x)"], X, prelude="s = 2"),
    *call_cases("torch.nn.functional.dropout2d", ["F.dropout2d(x, 0.5, False)", "F.dropout2d(x, p=0.3, training=False)",
                                                  "F.dropout2d(training=False, input=x)"], X),
    *call_cases("torch.nn.functional.dropout2d", ["F.dropout2d(x)", "F.dropout2d(x, 0.5)"], {"x": rng_array(4, 16, 8, 8)},
                compare="shape"),
    # losses
    *call_cases("torch.nn.functional.cross_entropy", [
        "F.cross_entropy(x, t)", "F.cross_entropy(x, t, cw)", "F.cross_entropy(input=x, target=t, reduction='sum')",
        "F.cross_entropy(label_smoothing=0.1, target=t, input=x, ignore_index=2)", "F.cross_entropy(x, t, reduction=r)",
    ], CLS, prelude="r = 'none'", **TOL),
    *call_cases("torch.nn.functional.cross_entropy", ["F.cross_entropy(x, F.softmax(x * 2, dim=1))"], CLS, **TOL),
    *call_cases("torch.nn.functional.nll_loss", [
        "F.nll_loss(F.log_softmax(x, dim=1), t)", "F.nll_loss(F.log_softmax(x, dim=1), t, cw)",
        "F.nll_loss(input=F.log_softmax(x, dim=1), target=t, reduction='sum', ignore_index=1)",
        "F.nll_loss(reduction=r, target=t, input=F.log_softmax(x, dim=1))",
    ], CLS, prelude="r = 'none'", **TOL),
    *call_cases("torch.nn.functional.binary_cross_entropy", [
        "F.binary_cross_entropy(x, t)", "F.binary_cross_entropy(x, t, bw)", "F.binary_cross_entropy(input=x, target=t, reduction='sum')",
        "F.binary_cross_entropy(reduction='none', target=t, input=x)", "F.binary_cross_entropy(x, t, reduction=r)",
    ], PROB, prelude="r = 'mean'", **TOL),
    *call_cases("torch.nn.functional.smooth_l1_loss", [
        "F.smooth_l1_loss(x, y)", "F.smooth_l1_loss(x, y, reduction='sum')", "F.smooth_l1_loss(input=x, target=y, beta=0.5)",
        "F.smooth_l1_loss(beta=2.0, reduction='none', target=y, input=x)", "F.smooth_l1_loss(x, y, beta=b)",
    ], XY, prelude="b = 0.3", **TOL),
    *call_cases("torch.nn.functional.kl_div", [
        "F.kl_div(x, t)", "F.kl_div(x, t, reduction='sum')", "F.kl_div(input=x, target=t, reduction='batchmean')",
        "F.kl_div(log_target=False, reduction='none', target=t, input=x)", "F.kl_div(x, t, reduction=r)",
        "F.kl_div(x, t.log(), reduction='batchmean', log_target=True)", "F.kl_div(x, t.log(), log_target=True, reduction='sum')",
        "F.kl_div(x, t.log(), log_target=lt)",
    ], KL, prelude="r = 'mean'\nlt = True", **TOL),
    # pad modes (the entry is in functional.toml; constant padding is in test_functions.py)
    *call_cases("torch.nn.functional.pad", [
        "F.pad(x, (1, 2, 0, 1), mode='reflect')", "F.pad(x, (2, 2, 1, 1), 'replicate')",
        "F.pad(input=x, pad=(1, 1, 1, 1), mode='circular')", "F.pad(mode='reflect', pad=(0, 1, 1, 0), input=x)",
        "F.pad(x, p, m)",
    ], X, prelude="p, m = (1, 1, 2, 2), 'replicate'"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_functional(case):
    run_case(case)


@pytest.mark.parametrize("code,api,reason", [
    ("F.elu(x, 0.5)", "torch.nn.functional.elu", "alpha=1.0"),
    ("F.one_hot(i)", "torch.nn.functional.one_hot", "num_classes=-1"),
    ("F.one_hot(i, -1)", "torch.nn.functional.one_hot", "num_classes=-1"),
    ("F.embedding(i, w, max_norm=1.0)", "torch.nn.functional.embedding", "max_norm"),
    ("F.softmin(x)", "torch.nn.functional.softmin", "no form"),
    ("F.max_pool1d(x, 2, padding=1)", "torch.nn.functional.max_pool1d", "padded"),
])
def test_unsupported_functional_arguments(code, api, reason):
    assert_unsupported(HEADER + f"out = {code}\n", api, reason)
