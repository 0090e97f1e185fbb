"""More torch.nn layers and losses and torch.nn.functional functions (mappings/nn_more.toml): converted code
computes what torch computed, constructors and calls in positional, keyword and variable styles."""
import numpy as np
import pytest

from tests.api.cases import HEADER, call_cases, layer_cases
from tests.harness import assert_unsupported, rng_array, run_case

R = rng_array
TOL = dict(rtol=1e-5, atol=1e-5, why_tolerance="float32 reductions and transcendental kernels differ by a few ulps")
RNN = dict(rtol=1e-4, atol=1e-5, why_tolerance="gate matmuls accumulate in a different order (float32 rounding)")
V1 = {"x": R(2, 3, 8)}
V2 = {"x": R(2, 3, 8, 8)}
V3 = {"x": R(2, 3, 4, 4, 4)}
ACT = {"x": 3 * R(3, 7)}
PAIR = {"a": R(6), "b": R(6, seed=1), "t": np.sign(R(6, seed=2)).astype("float32")}
EMB = {"a": R(4, 5), "b": R(4, 5, seed=1), "t": np.array([1, -1, 1, -1], dtype="float32")}
CLS = {"x": R(4, 5), "t": np.array([0, 3, 1, 4], dtype="int64")}
ML = {"x": R(4, 5), "t": R(4, 5, dtype="bool").astype("float32")}
GAUSS = {"x": R(4, 5), "t": R(4, 5, seed=1), "v": np.abs(R(4, 5, seed=2)) + 0.5}


def loss_cases(api, ctors, inputs, run, **kw):
    return layer_cases(api, ctors, inputs=inputs, run=run, **kw)


CASES = [
    *layer_cases("torch.nn.AdaptiveAvgPool3d", ["nn.AdaptiveAvgPool3d(2)", "nn.AdaptiveAvgPool3d(output_size=(1, 2, 2))"],
                 inputs=V3, **TOL),
    *layer_cases("torch.nn.AdaptiveMaxPool1d", ["nn.AdaptiveMaxPool1d(4)", "nn.AdaptiveMaxPool1d(output_size=2)"], inputs=V1),
    *layer_cases("torch.nn.AvgPool3d", ["nn.AvgPool3d(2)", "nn.AvgPool3d(2, stride=1)", "nn.AvgPool3d(kernel_size=3, stride=1, padding=1)"],
                 inputs=V3, **TOL),
    *layer_cases("torch.nn.ConstantPad1d", ["nn.ConstantPad1d(2, 3.5)", "nn.ConstantPad1d((1, 2), value=-1.0)"], inputs=V1),
    *layer_cases("torch.nn.ConstantPad3d", ["nn.ConstantPad3d(1, 0.5)", "nn.ConstantPad3d((1, 0, 0, 1, 1, 0), 2.0)"], inputs=V3),
    *layer_cases("torch.nn.ReflectionPad1d", ["nn.ReflectionPad1d(2)", "nn.ReflectionPad1d((1, 3))"], inputs=V1),
    *layer_cases("torch.nn.ReflectionPad3d", ["nn.ReflectionPad3d(1)", "nn.ReflectionPad3d(padding=(1, 0, 0, 1, 1, 0))"], inputs=V3),
    *layer_cases("torch.nn.ReplicationPad1d", ["nn.ReplicationPad1d(2)", "nn.ReplicationPad1d((1, 3))"], inputs=V1),
    *layer_cases("torch.nn.ReplicationPad3d", ["nn.ReplicationPad3d(1)", "nn.ReplicationPad3d((1, 0, 0, 1, 1, 0))"], inputs=V3),
    *layer_cases("torch.nn.ZeroPad1d", ["nn.ZeroPad1d(2)", "nn.ZeroPad1d(padding=(1, 3))"], inputs=V1),
    *layer_cases("torch.nn.ZeroPad3d", ["nn.ZeroPad3d(1)", "nn.ZeroPad3d((1, 0, 0, 1, 1, 0))"], inputs=V3),
    *layer_cases("torch.nn.Dropout1d", ["nn.Dropout1d()", "nn.Dropout1d(0.3)", "nn.Dropout1d(p=0.2, inplace=False)"], inputs=V1,
                 run="m.eval()\nout = m(x)"),
    *layer_cases("torch.nn.Dropout3d", ["nn.Dropout3d()", "nn.Dropout3d(0.3)"], inputs=V3, run="m.eval()\nout = m(x)"),
    *layer_cases("torch.nn.Dropout1d", ["nn.Dropout1d(0.5)"], inputs={"x": R(4, 16, 32)}, compare="shape"),
    *layer_cases("torch.nn.GLU", ["nn.GLU()", "nn.GLU(dim=0)", "nn.GLU(-1)"], inputs={"x": R(4, 6)}, **TOL),
    *[c for n in ("Tanhshrink", "LogSigmoid") for c in layer_cases(f"torch.nn.{n}", [f"nn.{n}()"], inputs=ACT, **TOL)],
    *layer_cases("torch.nn.Softmax2d", ["nn.Softmax2d()"], inputs=V2, **TOL),
    *layer_cases("torch.nn.Hardshrink", ["nn.Hardshrink()", "nn.Hardshrink(1.0)", "nn.Hardshrink(lambd=2.0)"], inputs=ACT),
    *layer_cases("torch.nn.Softshrink", ["nn.Softshrink()", "nn.Softshrink(1.0)", "nn.Softshrink(lambd=2.0)"], inputs=ACT, **TOL),
    *layer_cases("torch.nn.LPPool1d", ["nn.LPPool1d(2, 2)", "nn.LPPool1d(norm_type=1, kernel_size=3, stride=1)"],
                 inputs={"x": np.abs(R(2, 3, 8)) + 0.1}, **TOL),
    *layer_cases("torch.nn.LPPool2d", ["nn.LPPool2d(2, 2)", "nn.LPPool2d(3, kernel_size=2, stride=1)"],
                 inputs={"x": np.abs(R(2, 3, 8, 8)) + 0.1}, **TOL),
    *loss_cases("torch.nn.GaussianNLLLoss", ["nn.GaussianNLLLoss()", "nn.GaussianNLLLoss(full=True)",
                                             "nn.GaussianNLLLoss(eps=1e-3, reduction='sum')"], GAUSS, "out = m(x, t, v)", **TOL),
    *loss_cases("torch.nn.HingeEmbeddingLoss", ["nn.HingeEmbeddingLoss()", "nn.HingeEmbeddingLoss(0.5)",
                                                "nn.HingeEmbeddingLoss(margin=2.0, reduction='sum')"], EMB, "out = m(a, t[:, None] * 0 + t[0])",
                **TOL),
    *loss_cases("torch.nn.MultiMarginLoss", ["nn.MultiMarginLoss()", "nn.MultiMarginLoss(2, 0.5)",
                                             "nn.MultiMarginLoss(margin=2.0, reduction='sum')"], CLS, "out = m(x, t)", **TOL),
    *loss_cases("torch.nn.PoissonNLLLoss", ["nn.PoissonNLLLoss()", "nn.PoissonNLLLoss(log_input=False)",
                                            "nn.PoissonNLLLoss(True, True, reduction='sum')"],
                {"x": np.abs(R(4, 5)) + 0.1, "t": np.abs(R(4, 5, seed=1)) * 3}, "out = m(x, t)", **TOL),
    *loss_cases("torch.nn.CTCLoss", ["nn.CTCLoss()", "nn.CTCLoss(blank=0, reduction='sum')", "nn.CTCLoss(0, 'none', True)"],
                {"lp": np.log(np.random.default_rng(0).dirichlet(np.ones(5), size=(6, 2))).astype("float32"),
                 "tg": np.array([[1, 2, 3], [2, 4, 0]], dtype="int64"), "il": np.array([6, 5], dtype="int64"),
                 "tl": np.array([3, 2], dtype="int64")}, "out = m(lp, tg, il, tl)", **TOL),
    *layer_cases("torch.nn.LSTMCell", ["nn.LSTMCell(4, 6)", "nn.LSTMCell(input_size=4, hidden_size=6, bias=False)"],
                 inputs={"x": R(3, 4), "h": R(3, 6, seed=1), "c": R(3, 6, seed=2)}, run="out = m(x, (h, c))", **RNN),
    *layer_cases("torch.nn.GRUCell", ["nn.GRUCell(4, 6)", "nn.GRUCell(input_size=4, hidden_size=6, bias=False)"],
                 inputs={"x": R(3, 4), "h": R(3, 6, seed=1)}, run="out = m(x, h)", **RNN),
    *layer_cases("torch.nn.RNNCell", ["nn.RNNCell(4, 6)", "nn.RNNCell(4, 6, nonlinearity='relu')", "nn.RNNCell(4, 6, bias=False)"],
                 inputs={"x": R(3, 4), "h": R(3, 6, seed=1)}, run="out = m(x, h)", **RNN),
    *layer_cases("torch.nn.ConvTranspose1d", ["nn.ConvTranspose1d(3, 4, 3)", "nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1)",
                                              "nn.ConvTranspose1d(in_channels=3, out_channels=6, kernel_size=2, stride=2, groups=3, bias=False)"],
                 inputs=V1, **RNN),
    # functional
    *call_cases("torch.nn.functional.hardsigmoid", ["F.hardsigmoid(x)", "F.hardsigmoid(x, inplace=False)"], ACT),
    *[c for n in ("hardshrink", "softshrink") for c in call_cases(f"torch.nn.functional.{n}", [f"F.{n}(x)", f"F.{n}(x, 1.0)",
                                                                                            f"F.{n}(x, lambd=2.0)"], ACT, **TOL)],
    *[c for n in ("tanhshrink", "softsign") for c in call_cases(f"torch.nn.functional.{n}", [f"F.{n}(x)", f"F.{n}(input=x)"], ACT, **TOL)],
    *call_cases("torch.nn.functional.celu", ["F.celu(x)", "F.celu(x, 0.5)", "F.celu(x, alpha=2.0)"], ACT, **TOL),
    *call_cases("torch.nn.functional.threshold", ["F.threshold(x, 0.1, 2.0)", "F.threshold(x, threshold=0.0, value=-1.0)"], ACT),
    *call_cases("torch.nn.functional.rrelu", ["F.rrelu(x)", "F.rrelu(x, 0.1, 0.3)", "F.rrelu(x, training=False)"], ACT, **TOL),
    *call_cases("torch.nn.functional.rrelu", ["F.rrelu(x, training=True)"], ACT, compare="shape"),
    *call_cases("torch.nn.functional.prelu", ["F.prelu(x, w)", "F.prelu(x, weight=w)"], {"x": R(2, 3, 4), "w": np.array([0.25, 0.1, 0.5], "float32")}),
    *call_cases("torch.nn.functional.adaptive_avg_pool1d", ["F.adaptive_avg_pool1d(x, 4)", "F.adaptive_avg_pool1d(x, output_size=2)"], V1, **TOL),
    *call_cases("torch.nn.functional.adaptive_avg_pool3d", ["F.adaptive_avg_pool3d(x, 2)", "F.adaptive_avg_pool3d(x, (1, 2, 2))"], V3, **TOL),
    *call_cases("torch.nn.functional.adaptive_max_pool1d", ["F.adaptive_max_pool1d(x, 4)", "F.adaptive_max_pool1d(x, output_size=2)"], V1),
    *call_cases("torch.nn.functional.avg_pool3d", ["F.avg_pool3d(x, 2)", "F.avg_pool3d(x, 3, 1, 1)",
                                                   "F.avg_pool3d(x, kernel_size=2, stride=1, count_include_pad=False)"], V3, **TOL),
    *call_cases("torch.nn.functional.max_pool3d", ["F.max_pool3d(x, 2)", "F.max_pool3d(x, 3, 1, 1)", "F.max_pool3d(x, kernel_size=2, stride=1)"], V3),
    *call_cases("torch.nn.functional.lp_pool1d", ["F.lp_pool1d(x, 2, 2)", "F.lp_pool1d(x, norm_type=1, kernel_size=3, stride=1)"],
                {"x": np.abs(R(2, 3, 8)) + 0.1}, **TOL),
    *call_cases("torch.nn.functional.lp_pool2d", ["F.lp_pool2d(x, 2, 2)", "F.lp_pool2d(x, 3, kernel_size=2, stride=1)"],
                {"x": np.abs(R(2, 3, 8, 8)) + 0.1}, **TOL),
    *call_cases("torch.nn.functional.conv3d", ["F.conv3d(x, w)", "F.conv3d(x, w, b, 1, 1)", "F.conv3d(x, w, stride=2, padding=1)",
                                               "F.conv3d(input=x, weight=w, bias=b, dilation=1)"],
                {**V3, "w": R(5, 3, 3, 3, 3, seed=1), "b": R(5, seed=2)}, **RNN),
    *call_cases("torch.nn.functional.fold", ["F.fold(x, (4, 4), 2)", "F.fold(x, output_size=(4, 4), kernel_size=2)"],
                {"x": R(1, 12, 9)}, **TOL),
    *call_cases("torch.nn.functional.fold", ["F.fold(x, output_size=(4, 4), kernel_size=2, stride=2)"], {"x": R(1, 12, 4)}, **TOL),
    *call_cases("torch.nn.functional.pixel_unshuffle", ["F.pixel_unshuffle(x, 2)", "F.pixel_unshuffle(x, downscale_factor=4)"], V2),
    *call_cases("torch.nn.functional.channel_shuffle", ["F.channel_shuffle(x, 2)"], {"x": R(2, 4, 3, 3)}),
    *call_cases("torch.nn.functional.dropout1d", ["F.dropout1d(x, 0.5, False)", "F.dropout1d(x, p=0.2, training=False)"], V1),
    *call_cases("torch.nn.functional.dropout1d", ["F.dropout1d(x)"], V1, compare="shape"),
    *call_cases("torch.nn.functional.dropout3d", ["F.dropout3d(x, 0.5, False)", "F.dropout3d(x, training=False)"], V3),
    *[c for n in ("alpha_dropout", "feature_alpha_dropout") for c in call_cases(f"torch.nn.functional.{n}",
                                                                             [f"F.{n}(x)", f"F.{n}(x, 0.5, False)"], V2)],
    *call_cases("torch.nn.functional.margin_ranking_loss", ["F.margin_ranking_loss(a, b, t)", "F.margin_ranking_loss(a, b, t, 0.5)",
                                                            "F.margin_ranking_loss(a, b, t, margin=1, reduction='sum')"], PAIR, **TOL),
    *call_cases("torch.nn.functional.cosine_embedding_loss", ["F.cosine_embedding_loss(a, b, t)", "F.cosine_embedding_loss(a, b, t, 0.2)",
                                                              "F.cosine_embedding_loss(a, b, t, reduction='none')"], EMB, **TOL),
    *call_cases("torch.nn.functional.hinge_embedding_loss", ["F.hinge_embedding_loss(a, t)", "F.hinge_embedding_loss(a, t, margin=0.5)",
                                                             "F.hinge_embedding_loss(a, t, reduction='sum')"], PAIR, **TOL),
    *call_cases("torch.nn.functional.multi_margin_loss", ["F.multi_margin_loss(x, t)", "F.multi_margin_loss(x, t, 2, 0.5)",
                                                          "F.multi_margin_loss(x, t, reduction='none')"], CLS, **TOL),
    *call_cases("torch.nn.functional.multilabel_soft_margin_loss", ["F.multilabel_soft_margin_loss(x, t)",
                                                                    "F.multilabel_soft_margin_loss(x, t, reduction='sum')"], ML, **TOL),
    *call_cases("torch.nn.functional.gaussian_nll_loss", ["F.gaussian_nll_loss(x, t, v)", "F.gaussian_nll_loss(x, t, v, full=True)",
                                                          "F.gaussian_nll_loss(x, t, v, eps=1e-3, reduction='sum')"], GAUSS, **TOL),
    *call_cases("torch.nn.functional.huber_loss", ["F.huber_loss(x, t)", "F.huber_loss(x, t, delta=0.5)",
                                                   "F.huber_loss(x, t, reduction='sum', delta=2.0)"], GAUSS, **TOL),
    *call_cases("torch.nn.functional.gumbel_softmax", ["F.gumbel_softmax(x)", "F.gumbel_softmax(x, tau=0.5, hard=True)"], ACT,
                compare="shape"),
    *call_cases("torch.nn.functional.pdist", ["F.pdist(x)", "F.pdist(x, p=1)"], {"x": R(4, 5)}, **TOL),
]

CTC = {"lp": np.log(np.random.default_rng(0).dirichlet(np.ones(5), size=(6, 2))).astype("float32"),
       "tg": np.array([[1, 2, 3], [2, 4, 0]], dtype="int64"), "il": np.array([6, 5], dtype="int64"),
       "tl": np.array([3, 2], dtype="int64")}
TRIP = {"a": R(4, 5), "p": R(4, 5, seed=1), "n": R(4, 5, seed=2)}
ENC = "layer = nn.TransformerEncoderLayer(8, 2, 16, 0.0)\n"
DEC = "layer = nn.TransformerDecoderLayer(8, 2, 16, 0.0)\n"
CASES += [
    *layer_cases("torch.nn.ConvTranspose3d", ["nn.ConvTranspose3d(3, 4, 3)", "nn.ConvTranspose3d(3, 4, 2, stride=2)",
                                              "nn.ConvTranspose3d(in_channels=3, out_channels=2, kernel_size=3, padding=1, bias=False)"],
                 inputs=V3, **RNN),
    *layer_cases("torch.nn.AdaptiveMaxPool3d", ["nn.AdaptiveMaxPool3d(2)", "nn.AdaptiveMaxPool3d(output_size=(1, 2, 2))"], inputs=V3),
    *call_cases("torch.nn.functional.adaptive_max_pool3d", ["F.adaptive_max_pool3d(x, 2)", "F.adaptive_max_pool3d(x, (1, 2, 2))"], V3),
    *call_cases("torch.nn.functional.poisson_nll_loss", ["F.poisson_nll_loss(x, t)", "F.poisson_nll_loss(x, t, log_input=False)",
                                                         "F.poisson_nll_loss(x, t, True, True, reduction='sum')"],
                {"x": np.abs(R(4, 5)) + 0.1, "t": np.abs(R(4, 5, seed=1)) * 3}, **TOL),
    *call_cases("torch.nn.functional.ctc_loss", ["F.ctc_loss(lp, tg, il, tl)", "F.ctc_loss(lp, tg, il, tl, reduction='sum')",
                                                 "F.ctc_loss(lp, tg, il, tl, blank=0, zero_infinity=True)"], CTC, **TOL),
    *call_cases("torch.nn.functional.soft_margin_loss", ["F.soft_margin_loss(x, t)", "F.soft_margin_loss(x, t, reduction='sum')",
                                                         "F.soft_margin_loss(x, t, reduction='none')"],
                {"x": R(4, 5), "t": np.sign(R(4, 5, seed=1)).astype("float32")}, **TOL),
    *call_cases("torch.nn.functional.triplet_margin_loss", ["F.triplet_margin_loss(a, p, n)", "F.triplet_margin_loss(a, p, n, margin=0.5, p=1)",
                                                            "F.triplet_margin_loss(a, p, n, reduction='none')"], TRIP, **TOL),
    *layer_cases("torch.nn.TransformerEncoder", ["nn.TransformerEncoder(layer, 2)", "nn.TransformerEncoder(layer, num_layers=1, norm=None)"],
                 inputs={"x": R(5, 2, 8)}, prelude=ENC, run="m.eval()\nout = m(x)", **RNN),
    *layer_cases("torch.nn.TransformerDecoderLayer", ["nn.TransformerDecoderLayer(8, 2, 16, 0.0)"],
                 inputs={"x": R(5, 2, 8), "mem": R(4, 2, 8, seed=1)}, run="m.eval()\nout = m(x, mem)", **RNN),
    *layer_cases("torch.nn.TransformerDecoderLayer", ["nn.TransformerDecoderLayer(d_model=8, nhead=2, dim_feedforward=16, batch_first=True)"],
                 inputs={"x": R(2, 5, 8), "mem": R(2, 4, 8, seed=1)}, run="m.eval()\nout = m(x, mem)", **RNN),
    *layer_cases("torch.nn.TransformerDecoder", ["nn.TransformerDecoder(layer, 2)"], inputs={"x": R(5, 2, 8), "mem": R(4, 2, 8, seed=1)},
                 prelude=DEC, run="m.eval()\nout = m(x, mem)", **RNN),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_nn_more(case):
    run_case(case)


@pytest.mark.parametrize("code,api,reason", [
    ("m = nn.AdaptiveMaxPool1d(4, return_indices=True)", "torch.nn.AdaptiveMaxPool1d", "return_indices"),
    ("m = nn.ConvTranspose1d(3, 4, 3, stride=2, output_padding=1)", "torch.nn.ConvTranspose1d", "output_padding"),
    ("out = F.alpha_dropout(x, 0.5, True)", "torch.nn.functional.alpha_dropout", "training"),
    ("m = nn.RReLU(0.1, 0.3)", "torch.nn.RReLU", "random slopes in inference"),
])
def test_refused(code, api, reason):
    assert_unsupported(HEADER + code + "\n", api, reason)
