"""torch's deprecated loss arguments size_average= / reduce= (still accepted by torch, written by older research code:
stargan's ``F.binary_cross_entropy_with_logits(logit, target, size_average=False)``) become ``reduction`` as torch's
``_Reduction.legacy_get_string`` computes it. Both frameworks run."""
import numpy as np
import pytest

from tests.harness import Case, assert_unsupported, rng_array, run_case

T = np.random.default_rng(1).random((4, 3)).astype(np.float32)  # probabilities
HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"


@pytest.mark.parametrize("api,call", [
    ("torch.nn.functional.binary_cross_entropy_with_logits", "F.binary_cross_entropy_with_logits(x, t, size_average=False)"),
    ("torch.nn.functional.binary_cross_entropy_with_logits", "F.binary_cross_entropy_with_logits(x, t, reduce=False)"),
    ("torch.nn.functional.mse_loss", "F.mse_loss(x, t, size_average=True, reduction='sum')"),
    ("torch.nn.functional.l1_loss", "F.l1_loss(x, t, size_average=False, reduce=True)"),
    ("torch.nn.MSELoss", "nn.MSELoss(size_average=False)(x, t)"),
])
def test_legacy_reduction_arguments(api, call):
    run_case(Case(api, f"{HEADER}# @run\nout = {call}\n",
                  inputs={"x": rng_array(4, 3), "t": T}, id=call))


def test_a_variable_size_average_is_still_refused():
    assert_unsupported(HEADER + "def f(x, t, avg):\n    return F.mse_loss(x, t, size_average=avg)\n",
                       "torch.nn.functional.mse_loss", "deprecated")


# formerly refused as "deprecated in torch" (tests/api/test_nn_losses.py, test_functional_more.py, test_nn_more.py)
@pytest.mark.parametrize("api,call", [
    ("torch.nn.NLLLoss", "nn.NLLLoss(size_average=False)(F.log_softmax(x, 1), labels)"),
    ("torch.nn.CrossEntropyLoss", "nn.CrossEntropyLoss(reduce=False)(x, labels)"),
    ("torch.nn.BCELoss", "nn.BCELoss(reduce=False)(torch.sigmoid(x), t)"),
    ("torch.nn.functional.cross_entropy", "F.cross_entropy(x, labels, size_average=False)"),
    ("torch.nn.functional.margin_ranking_loss", "F.margin_ranking_loss(x[:, 0], x[:, 1], sign, size_average=True)"),
])
def test_legacy_reduction_of_classification_losses(api, call):
    run_case(Case(api, f"{HEADER}# @run\nout = {call}\n",
                  inputs={"x": rng_array(4, 3), "t": T,
                          "labels": rng_array(4, dtype="int64", low=0, high=3, seed=3),
                          "sign": rng_array(4, seed=4).__gt__(0).astype("float32") * 2 - 1}, id=call))
