"""More torch.nn layers (recurrent, attention, activations, 1-D/3-D, padding, resampling): converted code
computes what torch computed. Mapping: mappings/nn_extra.toml."""
import numpy as np
import pytest

from tests.api.cases import HEADER, layer_cases
from tests.harness import Case, assert_unsupported, rng_array, run_case

SEQ = {"x": rng_array(2, 5, 4)}  # (batch, seq, feature) or (seq, batch, feature)
TOKENS = {"x": rng_array(2, 5, dtype="int64", high=10)}
ACT = {"x": 3 * rng_array(3, 7)}
IMG = {"x": rng_array(2, 4, 6, 6)}
CASES = [
    *layer_cases("torch.nn.LSTM", [
        "nn.LSTM(4, 6)", "nn.LSTM(input_size=4, hidden_size=6, num_layers=2, batch_first=True)",
        "nn.LSTM(bidirectional=True, hidden_size=6, input_size=4, batch_first=True)",
        "nn.LSTM(4, 6, 2, True, True, 0.0, True)", "nn.LSTM(n_in, n_h, num_layers=nl, bias=b)",
    ], prelude="n_in, n_h, nl, b = 4, 6, 2, False", inputs=SEQ, run="out, (h, c) = m(x)", names=("out", "h", "c"),
        rtol=1e-4, atol=1e-5, why_tolerance="gate matmuls accumulate in a different order (float32 rounding)"),
    *layer_cases("torch.nn.GRU", [
        "nn.GRU(4, 6)", "nn.GRU(input_size=4, hidden_size=6, num_layers=2, batch_first=True)",
        "nn.GRU(bidirectional=True, hidden_size=6, input_size=4)", "nn.GRU(n_in, n_h, bias=b)",
    ], prelude="n_in, n_h, b = 4, 6, False", inputs=SEQ, run="out, h = m(x)", names=("out", "h"),
        rtol=1e-4, atol=1e-5, why_tolerance="gate matmuls accumulate in a different order (float32 rounding)"),
    *layer_cases("torch.nn.RNN", [
        "nn.RNN(4, 6)", "nn.RNN(input_size=4, hidden_size=6, num_layers=2, nonlinearity='relu')",
        "nn.RNN(batch_first=True, bidirectional=True, hidden_size=6, input_size=4)", "nn.RNN(n_in, n_h, bias=b)",
    ], prelude="n_in, n_h, b = 4, 6, False", inputs=SEQ, run="out, h = m(x)", names=("out", "h"),
        rtol=1e-4, atol=1e-5, why_tolerance="matmuls accumulate in a different order (float32 rounding)"),
    *layer_cases("torch.nn.Embedding", [
        "nn.Embedding(10, 3)", "nn.Embedding(num_embeddings=10, embedding_dim=3)",
        "nn.Embedding(embedding_dim=3, num_embeddings=10, padding_idx=0)", "nn.Embedding(n, d, max_norm=None)",
    ], prelude="n, d = 10, 3", inputs=TOKENS),
    *layer_cases("torch.nn.MultiheadAttention", [
        "nn.MultiheadAttention(8, 2)", "nn.MultiheadAttention(embed_dim=8, num_heads=2, bias=False)",
        "nn.MultiheadAttention(num_heads=4, embed_dim=8, batch_first=True)", "nn.MultiheadAttention(e, h, 0.0)",
    ], prelude="e, h = 8, 2", inputs={"x": rng_array(5, 2, 8)}, run="out, w = m(x, x, x)", names=("out", "w"),
        rtol=1e-4, atol=1e-5, why_tolerance="softmax and matmuls reduce in a different order (float32 rounding)"),
    # torchvision's ViT encoder block: x, _ = self.self_attention(x, x, x, need_weights=False)
    *layer_cases("torch.nn.MultiheadAttention", ["nn.MultiheadAttention(8, 2, batch_first=True)"],
                 inputs={"x": rng_array(2, 5, 8)}, run="out, w = m(x, x, x, need_weights=False)\nnone = w is None",
                 names=("out", "none"), rtol=1e-4, atol=1e-5,
                 why_tolerance="softmax and matmuls reduce in a different order (float32 rounding)"),
    *layer_cases("torch.nn.PReLU", ["nn.PReLU()", "nn.PReLU(4)", "nn.PReLU(num_parameters=4, init=0.1)",
                                    "nn.PReLU(init=0.3)", "nn.PReLU(c, a)"], prelude="c, a = 4, 0.2", inputs=IMG),
    *layer_cases("torch.nn.ELU", ["nn.ELU()", "nn.ELU(1.0)", "nn.ELU(alpha=1.0, inplace=False)",
                                  "nn.ELU(inplace=True)"], inputs=ACT),
    *layer_cases("torch.nn.SELU", ["nn.SELU()", "nn.SELU(inplace=True)"], inputs=ACT),
    *layer_cases("torch.nn.CELU", ["nn.CELU()", "nn.CELU(0.5)", "nn.CELU(alpha=2.0)", "nn.CELU(a)"],
                 prelude="a = 1.5", inputs=ACT),
    *layer_cases("torch.nn.Softsign", ["nn.Softsign()"], inputs=ACT),
    *layer_cases("torch.nn.Hardtanh", ["nn.Hardtanh()", "nn.Hardtanh(-2.0, 2.0)", "nn.Hardtanh(min_val=-0.5, max_val=1.5)",
                                       "nn.Hardtanh(max_val=2.0, min_val=0.0)", "nn.Hardtanh(lo, hi)"],
                 prelude="lo, hi = -1.5, 0.5", inputs=ACT),
    *layer_cases("torch.nn.Hardswish", ["nn.Hardswish()", "nn.Hardswish(inplace=True)"], inputs=ACT),
    *layer_cases("torch.nn.Hardsigmoid", ["nn.Hardsigmoid()", "nn.Hardsigmoid(inplace=False)"], inputs=ACT),
    *layer_cases("torch.nn.Mish", ["nn.Mish()"], inputs=ACT),
    *layer_cases("torch.nn.LogSoftmax", ["nn.LogSoftmax(dim=1)", "nn.LogSoftmax(-1)", "nn.LogSoftmax(d)"],
                 prelude="d = 0", inputs=ACT,
                 rtol=1e-4, atol=1e-5, why_tolerance="log-sum-exp is reduced in a different order (float32 rounding)"),
    *[c for shape in ((5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)) for c in layer_cases(
        "torch.nn.LogSoftmax", ["nn.LogSoftmax()", "nn.LogSoftmax(None)"], shape,
        prelude="import warnings\nwarnings.simplefilter('ignore')", rtol=1e-4, atol=1e-5,
        why_tolerance="log-sum-exp is reduced in a different order (float32 rounding)")],
    *layer_cases("torch.nn.Softmin", ["nn.Softmin(dim=1)", "nn.Softmin(0)", "nn.Softmin(d)"], prelude="d = -1",
                 inputs=ACT),
    *layer_cases("torch.nn.Threshold", ["nn.Threshold(0.1, 20.0)", "nn.Threshold(threshold=0.5, value=-1.0)",
                                        "nn.Threshold(value=2.0, threshold=0.0, inplace=False)", "nn.Threshold(t, v)"],
                 prelude="t, v = 0.2, 0.0", inputs=ACT),
    *layer_cases("torch.nn.BatchNorm3d", [
        "nn.BatchNorm3d(3)", "nn.BatchNorm3d(num_features=3, eps=1e-3, momentum=0.3)",
        "nn.BatchNorm3d(momentum=0.2, num_features=3)", "nn.BatchNorm3d(c, momentum=mom)",
    ], shape=(2, 3, 4, 4, 4), prelude="c, mom = 3, 0.25", run="train_out = m(x)\nm.eval()\nout = m(x + 1)",
        names=("train_out", "out"), rtol=1e-4, atol=1e-5,
        why_tolerance="batch variance is reduced in a different order (float32 rounding)"),
    *layer_cases("torch.nn.Conv3d", [
        "nn.Conv3d(3, 4, 3, 1, 1)", "nn.Conv3d(in_channels=3, out_channels=4, kernel_size=3)",
        "nn.Conv3d(kernel_size=2, stride=2, out_channels=4, in_channels=3, bias=False)", "nn.Conv3d(3, 4, 3)",
        "nn.Conv3d(cin, cout, k, padding=p)", "nn.Conv3d(3, 4, (3, 7, 7), padding=(1, 3, 3))",
        "nn.Conv3d(3, 4, (3, 1, 1), 1, (1, 0, 0), bias=False)", "nn.Conv3d(3, 4, 3, stride=(1, 2, 2), padding=(0, 2, 1))",
    ], shape=(2, 3, 6, 6, 6), prelude="cin, cout, k, p = 3, 4, 3, 1", rtol=1e-4, atol=1e-5,
        why_tolerance="3-D convolution sums 81 products in a different order (float32 rounding)"),
    *layer_cases("torch.nn.MaxPool1d", ["nn.MaxPool1d(2)", "nn.MaxPool1d(kernel_size=3, stride=2)",
                                        "nn.MaxPool1d(stride=1, kernel_size=2)", "nn.MaxPool1d(3, 2, 1)", "nn.MaxPool1d(k)"],
                 shape=(2, 3, 16), prelude="k = 4"),
    *layer_cases("torch.nn.MaxPool3d", ["nn.MaxPool3d(2)", "nn.MaxPool3d(kernel_size=3, stride=2)",
                                        "nn.MaxPool3d(stride=1, kernel_size=2)", "nn.MaxPool3d(k)"],
                 shape=(2, 3, 6, 6, 6), prelude="k = 3"),
    *layer_cases("torch.nn.AvgPool1d", ["nn.AvgPool1d(2)", "nn.AvgPool1d(kernel_size=3, stride=2)",
                                        "nn.AvgPool1d(stride=1, kernel_size=2)", "nn.AvgPool1d(3, 2, 1)", "nn.AvgPool1d(k)"],
                 shape=(2, 3, 16), prelude="k = 4"),
    *layer_cases("torch.nn.AdaptiveMaxPool2d", ["nn.AdaptiveMaxPool2d(1)", "nn.AdaptiveMaxPool2d((2, 3))",
                                               "nn.AdaptiveMaxPool2d(output_size=3, return_indices=False)",
                                               "nn.AdaptiveMaxPool2d(s)"], prelude="s = 2", inputs=IMG),
    *layer_cases("torch.nn.AdaptiveAvgPool1d", ["nn.AdaptiveAvgPool1d(4)", "nn.AdaptiveAvgPool1d(output_size=2)",
                                               "nn.AdaptiveAvgPool1d(s)"], shape=(2, 3, 16), prelude="s = 8"),
    *layer_cases("torch.nn.Upsample", [
        "nn.Upsample(scale_factor=2)", "nn.Upsample(size=(12, 10))",
        "nn.Upsample(scale_factor=2.0, mode='bilinear')", "nn.Upsample(mode='bilinear', align_corners=True, size=9)",
        "nn.Upsample(None, 3, 'nearest')",
        # a factor known when it runs (smp's SegmentationHead): checked integral by a generated helper
        "nn.Upsample(mode='bilinear', scale_factor=up, align_corners=True)", "nn.Upsample(scale_factor=up)",
    ], prelude="up = 2", inputs=IMG, rtol=1e-5, atol=1e-5, why_tolerance="bilinear weights are computed in float32 differently"),
    *layer_cases("torch.nn.UpsamplingBilinear2d", [
        "nn.UpsamplingBilinear2d(scale_factor=2)", "nn.UpsamplingBilinear2d(size=(9, 7))",
        "nn.UpsamplingBilinear2d((8, 8))",
    ], inputs=IMG, rtol=1e-5, atol=1e-5, why_tolerance="bilinear weights are computed in float32 differently"),
    *layer_cases("torch.nn.UpsamplingNearest2d", ["nn.UpsamplingNearest2d(scale_factor=2)",
                                                 "nn.UpsamplingNearest2d(size=(12, 12))"], inputs=IMG),
    *layer_cases("torch.nn.ZeroPad2d", ["nn.ZeroPad2d(2)", "nn.ZeroPad2d((1, 2, 0, 3))", "nn.ZeroPad2d(padding=1)",
                                        "nn.ZeroPad2d(p)"], prelude="p = (0, 1, 2, 3)", inputs=IMG),
    *layer_cases("torch.nn.ReflectionPad2d", ["nn.ReflectionPad2d(2)", "nn.ReflectionPad2d((1, 2, 0, 3))",
                                              "nn.ReflectionPad2d(padding=1)"], inputs=IMG),
    *layer_cases("torch.nn.ReplicationPad2d", ["nn.ReplicationPad2d(2)", "nn.ReplicationPad2d((1, 2, 0, 3))",
                                               "nn.ReplicationPad2d(padding=1)"], inputs=IMG),
    *layer_cases("torch.nn.ConstantPad2d", ["nn.ConstantPad2d(2, 3.5)", "nn.ConstantPad2d((1, 2, 0, 3), -1.0)",
                                            "nn.ConstantPad2d(value=1.0, padding=1)", "nn.ConstantPad2d(p, v)"],
                 prelude="p, v = (0, 1, 2, 3), 0.5", inputs=IMG),
    *layer_cases("torch.nn.PixelShuffle", ["nn.PixelShuffle(2)", "nn.PixelShuffle(upscale_factor=2)", "nn.PixelShuffle(r)"],
                 prelude="r = 2", inputs=IMG),
    *layer_cases("torch.nn.PixelUnshuffle", ["nn.PixelUnshuffle(2)", "nn.PixelUnshuffle(downscale_factor=3)"],
                 inputs=IMG),
    *layer_cases("torch.nn.ChannelShuffle", ["nn.ChannelShuffle(2)", "nn.ChannelShuffle(groups=4)", "nn.ChannelShuffle(g)"],
                 prelude="g = 2", inputs=IMG),
    *layer_cases("torch.nn.Unflatten", ["nn.Unflatten(1, (2, 2))", "nn.Unflatten(dim=1, unflattened_size=(4, 1))",
                                        "nn.Unflatten(unflattened_size=(3, 2), dim=-1)", "nn.Unflatten(d, s)"],
                 prelude="d, s = 2, (2, 3)", inputs=IMG),
    *layer_cases("torch.nn.Bilinear", [
        "nn.Bilinear(3, 4, 5)", "nn.Bilinear(in1_features=3, in2_features=4, out_features=5, bias=False)",
        "nn.Bilinear(out_features=5, in2_features=4, in1_features=3)", "nn.Bilinear(a, b, c)",
    ], prelude="a, b, c = 3, 4, 5", inputs={"x": rng_array(6, 3), "y": rng_array(6, 4, seed=1)}, run="out = m(x, y)",
        rtol=1e-5, atol=1e-5, why_tolerance="the bilinear form sums 12 products in a different order"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_layer(case):
    run_case(case)


@pytest.mark.parametrize("code,api,reason", [
    ("nn.ELU(0.5)", "torch.nn.ELU", "alpha must be 1.0"),
    ("nn.ELU(alpha=a)", "torch.nn.ELU", "alpha must be 1.0"),
    ("nn.LSTM(4, 6, proj_size=2)", "torch.nn.LSTM", "projection"),
    ("nn.Embedding(10, 3, max_norm=1.0)", "torch.nn.Embedding", "max_norm"),
    ("nn.Embedding(10, 3, sparse=True)", "torch.nn.Embedding", "sparse"),
    ("nn.Conv3d(3, 4, 3, padding=(1, 1, 1, 1))", "torch.nn.Conv3d", "no MindSpore form"),
    ("nn.MaxPool1d(2, return_indices=True)", "torch.nn.MaxPool1d", "indices"),
    ("nn.AdaptiveMaxPool2d(2, return_indices=True)", "torch.nn.AdaptiveMaxPool2d", "indices"),
    ("nn.Upsample(scale_factor=1.5)", "torch.nn.Upsample", "not integral"),
    ("nn.Upsample(scale_factor=2, mode='bicubic')", "torch.nn.Upsample", "bicubic"),
])
def test_unsupported_arguments(code, api, reason):
    assert_unsupported(HEADER + f"m = {code}\n", api, reason)


TRANSFORMER = layer_cases("torch.nn.TransformerEncoderLayer", [
    "nn.TransformerEncoderLayer(8, 2, 16, 0.0)",
    "nn.TransformerEncoderLayer(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0, batch_first=True)",
    "nn.TransformerEncoderLayer(norm_first=True, dropout=0.0, dim_feedforward=32, nhead=4, d_model=8)",
    "nn.TransformerEncoderLayer(8, 2, 16, 0.0, 'gelu', layer_norm_eps=1e-6)",
    "nn.TransformerEncoderLayer(d, h, ff, dropout=p)",
], prelude="d, h, ff, p = 8, 2, 16, 0.0", inputs={"x": rng_array(5, 2, 8)}, rtol=1e-4, atol=1e-5,
    why_tolerance="attention softmax, matmuls and layer norms reduce in a different order (float32 rounding)")
CASES += TRANSFORMER  # the same list object test_layer is parametrized with


# torchvision's quantizable blocks: tensor arithmetic through a FloatFunctional attribute, before quantization
FF_BLOCK = """
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 3, padding=1)
        self.skip_add = {ctor}

    def forward(self, x):
        y = self.conv(x)
        a = self.skip_add.add(y, x)
        b = self.skip_add.add_relu(y, x)
        c = self.skip_add.mul(a, b)
        d = self.skip_add.add_scalar(self.skip_add.mul_scalar(c, 0.5), 1.0)
        return self.skip_add.cat([a, d], dim=1), self.skip_add.cat((b, c)), self.skip_add.matmul(a, b)
"""
FLOAT_FUNCTIONAL = [
    Case(api, HEADER + f"import torch.ao.nn.quantized\n{FF_BLOCK.format(ctor=ctor)}\nm = Block()\n# @run\nout = m(x)\n",
         inputs={"x": rng_array(2, 3, 4, 4)}, id=f"{api}:{ctor}", rtol=1e-5, atol=1e-5,
         why_tolerance="a convolution and a matmul reduce in a different order (float32 rounding)")
    for api, ctor in (("torch.nn.quantized.FloatFunctional", "nn.quantized.FloatFunctional()"),
                      ("torch.ao.nn.quantized.FloatFunctional", "torch.ao.nn.quantized.FloatFunctional()"))
]
CASES += FLOAT_FUNCTIONAL
