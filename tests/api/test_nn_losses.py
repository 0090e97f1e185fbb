"""torch.nn loss classes (mappings/losses.toml): converted code computes what torch computed."""
import numpy as np
import pytest

from tests.api.cases import HEADER, layer_cases
from tests.harness import Case, assert_unsupported, rng_array

P = 1 / (1 + np.exp(-rng_array(4, 3)))
XY = {"x": rng_array(4, 6), "t": rng_array(4, 6, seed=1)}
CLS = {"x": rng_array(5, 4), "t": rng_array(5, dtype="int64", high=4, seed=1)}
BIN = {"x": P.astype("float32"), "t": (rng_array(4, 3, seed=1) > 0).astype("float32")}
PAIR = {"a": rng_array(5, 4), "b": rng_array(5, 4, seed=1), "y": np.sign(rng_array(5, seed=2)).astype("float32")}
LOGP = {"x": np.log(np.full((4, 5), 0.2, "float32") + np.abs(rng_array(4, 5)) * 0.1).astype("float32"),
        "t": (np.abs(rng_array(4, 5, seed=1)) / 4).astype("float32")}
SEG = {"x": rng_array(2, 4, 3, 3), "t": rng_array(2, 3, 3, dtype="int64", high=4, seed=2)}
PROB = {"x": rng_array(5, 4), "t": (lambda p: (p / p.sum(1, keepdims=True)).astype("float32"))(
    np.abs(rng_array(5, 4, seed=3)) + 0.1)}
IGN = {"x": rng_array(6, 4), "t": np.array([0, -100, 3, 1, -100, 2], dtype="int64")}
TOL = dict(rtol=1e-5, atol=1e-5, why_tolerance="reductions sum in a different order (float32 rounding)")
CASES = [
    # int64 class indices (torch's dtype), N-d (segmentation), class probabilities, ignored labels; the call styles
    *layer_cases("torch.nn.CrossEntropyLoss", [
        "nn.CrossEntropyLoss()", "nn.CrossEntropyLoss(reduction='sum')", "nn.CrossEntropyLoss(label_smoothing=0.1)",
        "nn.CrossEntropyLoss(torch.tensor([1.0, 2.0, 0.5, 1.0]))",
        "nn.CrossEntropyLoss(torch.tensor([1.0, 2.0, 0.5, 1.0]), None, 2, None, 'none', 0.2)",
        "nn.CrossEntropyLoss(label_smoothing=0.05, reduction='mean', ignore_index=1, weight=w)",
        "nn.CrossEntropyLoss(weight=w, reduction=r, label_smoothing=s)"],
        prelude="w, r, s = torch.tensor([0.5, 1.0, 2.0, 1.5]), 'sum', 0.3", run="out = m(x, t)", inputs=CLS, **TOL),
    *layer_cases("torch.nn.CrossEntropyLoss", ["nn.CrossEntropyLoss()", "nn.CrossEntropyLoss(ignore_index=2)",
                                               "nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0]), "
                                               "label_smoothing=0.1, reduction='none')"],
                 run="out = m(x, t)", inputs=SEG, **TOL),
    *layer_cases("torch.nn.CrossEntropyLoss", ["nn.CrossEntropyLoss()", "nn.CrossEntropyLoss(reduction='none')",
                                               "nn.CrossEntropyLoss(torch.tensor([1.0, 2.0, 0.5, 1.0]), "
                                               "label_smoothing=0.2)"],
                 run="out = m(x, t)", inputs=PROB, **TOL),
    *layer_cases("torch.nn.CrossEntropyLoss", ["nn.CrossEntropyLoss()",
                                               "nn.CrossEntropyLoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0]), "
                                               "label_smoothing=0.1)"],
                 run="out = m(x, t)", inputs=IGN, **TOL),
    *layer_cases("torch.nn.NLLLoss", ["nn.NLLLoss()", "nn.NLLLoss(reduction='sum')",
                                      "nn.NLLLoss(ignore_index=1, reduction='mean')",
                                      "nn.NLLLoss(weight=torch.tensor([1.0, 2.0, 0.5, 1.0]))", "nn.NLLLoss(reduction=r)"],
                 prelude="r = 'none'", run="out = m(F.log_softmax(x, dim=1), t)", inputs=CLS, **TOL),
    *layer_cases("torch.nn.BCELoss", ["nn.BCELoss()", "nn.BCELoss(reduction='sum')",
                                      "nn.BCELoss(weight=None, reduction='none')",
                                      "nn.BCELoss(None, reduction=r)"], prelude="r = 'mean'", run="out = m(x, t)",
                 inputs=BIN, **TOL),
    *layer_cases("torch.nn.SmoothL1Loss", ["nn.SmoothL1Loss()", "nn.SmoothL1Loss(reduction='sum')",
                                           "nn.SmoothL1Loss(beta=0.5)", "nn.SmoothL1Loss(reduction='none', beta=2.0)",
                                           "nn.SmoothL1Loss(beta=b)"], prelude="b = 0.3", run="out = m(x, t)",
                 inputs=XY, **TOL),
    *layer_cases("torch.nn.HuberLoss", ["nn.HuberLoss()", "nn.HuberLoss('sum', 0.5)", "nn.HuberLoss(delta=2.0)",
                                        "nn.HuberLoss(delta=0.5, reduction='none')", "nn.HuberLoss(r, d)"],
                 prelude="r, d = 'mean', 0.7", run="out = m(x, t)", inputs=XY, **TOL),
    *layer_cases("torch.nn.KLDivLoss", ["nn.KLDivLoss()", "nn.KLDivLoss(reduction='sum')",
                                        "nn.KLDivLoss(reduction='batchmean')", "nn.KLDivLoss(log_target=False, reduction='none')",
                                        "nn.KLDivLoss(reduction=r)"], prelude="r = 'mean'", run="out = m(x, t)",
                 inputs=LOGP, **TOL),
    *layer_cases("torch.nn.CosineEmbeddingLoss", ["nn.CosineEmbeddingLoss()", "nn.CosineEmbeddingLoss(0.2)",
                                                  "nn.CosineEmbeddingLoss(reduction='sum', margin=0.1)",
                                                  "nn.CosineEmbeddingLoss(margin=mg)"], prelude="mg = 0.3",
                 run="out = m(a, b, y)", inputs=PAIR, **TOL),
    *layer_cases("torch.nn.MarginRankingLoss", ["nn.MarginRankingLoss()", "nn.MarginRankingLoss(0.5)",
                                                "nn.MarginRankingLoss(reduction='none', margin=0.1)",
                                                "nn.MarginRankingLoss(margin=mg)"], prelude="mg = 0.3",
                 run="out = m(a[:, 0], b[:, 0], y)", inputs=PAIR, **TOL),
    *layer_cases("torch.nn.MultiLabelSoftMarginLoss", [
        "nn.MultiLabelSoftMarginLoss()", "nn.MultiLabelSoftMarginLoss(reduction='sum')",
        "nn.MultiLabelSoftMarginLoss(weight=torch.tensor([1.0, 2.0, 0.5]), reduction='none')",
        "nn.MultiLabelSoftMarginLoss(reduction=r)"], prelude="r = 'mean'", run="out = m(x, t)", inputs=BIN, **TOL),
]

# user losses on torch's private bases (segmentation_models_pytorch's DiceLoss(_Loss)): forward becomes construct,
# reduction is kept as torch's base keeps it (legacy flags included), _WeightedLoss keeps its weight
USER_LOSS = """
from torch.nn.modules.loss import _Loss, _WeightedLoss


class SoftDice(_Loss):
    def __init__(self, smooth=1.0, **kw):
        super(SoftDice, self).__init__(**kw)
        self.smooth = smooth

    def forward(self, p, t):
        p = p.sigmoid()
        inter = (p * t).sum(dim=1)
        loss = 1 - (2 * inter + self.smooth) / (p.sum(dim=1) + t.sum(dim=1) + self.smooth)
        if self.reduction == 'mean':
            return loss.mean()
        return loss.sum() if self.reduction == 'sum' else loss


class WeightedSq(_WeightedLoss):
    def forward(self, p, t):
        return ((p - t) ** 2 * self.weight).mean()
"""
CASES += [
    Case("torch.nn.modules.loss._Loss", HEADER + USER_LOSS + f"m = {ctor}\n# @run\nout = m(x, t)\n",
         inputs=BIN, id=f"_Loss:{ctor}")
    for ctor in ("SoftDice()", "SoftDice(smooth=0.5, reduction='sum')", "SoftDice(reduction='none')",
                 "SoftDice(size_average=False)", "SoftDice(reduce=False)")
] + [Case("torch.nn.modules.loss._WeightedLoss", HEADER + USER_LOSS +
          "m = WeightedSq(weight=torch.tensor([1.0, 2.0, 0.5]))\n# @run\nout = m(x, t)\n", inputs=BIN,
          id="_WeightedLoss")]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_loss(case):
    from tests.harness import run_case

    run_case(case)


@pytest.mark.parametrize("code,api,reason", [
    ("nn.KLDivLoss(log_target=True)", "torch.nn.KLDivLoss", "log_target"),
    ("nn.BCELoss(weight=w)", "torch.nn.BCELoss", "garbage"),
])
def test_unsupported_loss_arguments(code, api, reason):
    assert_unsupported(HEADER + f"m = {code}\n", api, reason)
