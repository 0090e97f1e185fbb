"""Tests of the PyTorch reference of the crack-segmentation example (examples/crack_unet/torch)."""
import importlib
import os
import subprocess
import sys
import types

import numpy as np
import pytest
import torch

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
EXAMPLE = os.path.join(ROOT, "examples", "crack_unet")
TORCH_DIR = os.path.join(EXAMPLE, "torch")
MODULES = ("data", "model", "losses", "evaluate", "train")


def _load_example():
    """Import the example's scripts without leaving their generic names in sys.modules.

    The scripts import each other as top-level modules (`from model import CrackUNet`), and the
    converted MindSpore example uses the same names, so both are loaded with a clean slate.
    """
    saved = {name: sys.modules.pop(name) for name in MODULES if name in sys.modules}
    sys.path.insert(0, TORCH_DIR)
    try:
        return types.SimpleNamespace(**{name: importlib.import_module(name) for name in MODULES})
    finally:
        sys.path.remove(TORCH_DIR)
        for name in MODULES:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


ex = _load_example()


def _run(script, *args, cwd=TORCH_DIR):
    """Run one of the example's scripts as a user would; return its stdout."""
    result = subprocess.run([sys.executable, script, *map(str, args)], cwd=cwd,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


# ---------------------------------------------------------------- model

@pytest.mark.parametrize("size, n_classes", [(64, 1), (32, 2)])
def test_unet_output_shape(size, n_classes):
    torch.manual_seed(0)
    model = ex.model.CrackUNet(in_channels=3, n_classes=n_classes, base=8)
    out = model(torch.randn(2, 3, size, size))
    assert out.shape == (2, n_classes, size, size)
    assert torch.isfinite(out).all()


def test_unet_layer_names_are_meaningful():
    names = dict(ex.model.CrackUNet().named_modules())
    for name in ["encoders.0.block.0", "encoders.2.block.4", "bottleneck.0.block.3", "bottleneck.1",
                 "upsamples.0", "decoders.2.block.1", "head"]:
        assert name in names, name
    assert isinstance(names["encoders.0.block.0"], torch.nn.Conv2d)
    assert names["encoders.0.block.0"].bias is None
    assert isinstance(names["bottleneck.1"], torch.nn.Dropout2d)
    assert isinstance(names["upsamples.0"], torch.nn.ConvTranspose2d)


# ---------------------------------------------------------------- losses

def _batch(seed=0, size=32):
    gen = torch.Generator().manual_seed(seed)
    logits = torch.randn(2, 1, size, size, generator=gen)
    mask = (torch.rand(2, 1, size, size, generator=gen) > 0.9).float()
    return logits, mask


def test_crack_loss_is_finite_positive_and_sums_its_terms():
    logits, mask = _batch()
    with_edge = ex.losses.CrackLoss(edge_weight=0.1)(logits, mask)
    without_edge = ex.losses.CrackLoss(edge_weight=0.0)(logits, mask)
    assert with_edge.dim() == 0 and torch.isfinite(with_edge) and with_edge > 0
    bce = torch.nn.functional.binary_cross_entropy_with_logits(logits, mask)
    dice = ex.losses.DiceLoss()(logits, mask)
    edge = ex.losses.EdgeAwareLoss(weight=0.1)(logits, mask)
    torch.testing.assert_close(without_edge, bce + dice)
    torch.testing.assert_close(with_edge, bce + dice + edge)
    assert edge > 0


def test_edge_loss_is_zero_for_identical_inputs_and_positive_otherwise():
    logits, _ = _batch()
    loss = ex.losses.EdgeAwareLoss(weight=0.1)
    assert loss(logits, torch.sigmoid(logits)).item() == 0.0
    assert loss(logits, torch.sigmoid(logits + 1.0)).item() > 0.0


def test_edge_loss_sobel_is_frozen_and_passes_gradient_to_logits():
    logits, mask = _batch()
    logits.requires_grad_(True)
    loss = ex.losses.EdgeAwareLoss(weight=0.1)
    loss(logits, mask).backward()
    assert loss.sobel.weight.requires_grad is False
    assert loss.sobel.weight.grad is None
    assert logits.grad is not None and logits.grad.abs().sum() > 0
    assert [p for p in loss.parameters() if p.requires_grad] == []


def test_sobel_kernels_detect_vertical_and_horizontal_edges():
    step = torch.zeros(1, 1, 8, 8)
    step[..., 4:] = 1.0  # intensity rises along x
    edges = ex.losses.EdgeAwareLoss().sobel(step)[0, :, 1:-1, 1:-1]
    assert edges[0].abs().max() == 4.0   # x-gradient channel responds (1 + 2 + 1)
    assert edges[1].abs().max() == 0.0   # y-gradient channel does not
    assert torch.equal(ex.losses.EdgeAwareLoss().sobel(step.transpose(2, 3))[0, 1, 1:-1, 1:-1],
                       edges[0].transpose(0, 1))


def test_dice_loss_near_zero_for_perfect_and_near_one_for_inverted_logits():
    _, mask = _batch()
    dice = ex.losses.DiceLoss()
    perfect = (mask * 2 - 1) * 20.0
    assert dice(perfect, mask).item() < 1e-3
    assert dice(-perfect, mask).item() > 0.95


# ---------------------------------------------------------------- data

def test_arrays_are_deterministic_for_a_seed():
    a_images, a_masks = ex.data.make_arrays(3, size=32, seed=7)
    b_images, b_masks = ex.data.make_arrays(3, size=32, seed=7)
    c_images, _ = ex.data.make_arrays(3, size=32, seed=8)
    assert np.array_equal(a_images, b_images) and np.array_equal(a_masks, b_masks)
    assert not np.array_equal(a_images, c_images)


def test_arrays_shapes_values_and_positive_share():
    images, masks = ex.data.make_arrays(48, size=64, seed=0)
    assert images.shape == (48, 3, 64, 64) and images.dtype == np.float32
    assert masks.shape == (48, 1, 64, 64) and masks.dtype == np.float32
    assert set(np.unique(masks)) == {0.0, 1.0}
    share = masks.mean(axis=(1, 2, 3))
    assert 0.03 <= share.mean() <= 0.08, share.mean()
    assert share.min() > 0.005  # every sample has a crack
    assert abs(images.mean()) < 0.2 and 0.7 < images.std() < 1.3  # normalised


def test_cracks_are_darker_than_background():
    images, masks = ex.data.make_arrays(16, size=64, seed=3)
    grey = images.mean(axis=1, keepdims=True)
    crack, background = grey[masks == 1].mean(), grey[masks == 0].mean()
    assert background - crack > 0.5  # in units of the normalised std
    assert background - crack < 3.0  # low contrast, not a black line


def test_dataset_returns_float_tensors():
    dataset = ex.data.CrackDataset(4, size=32, seed=1)
    image, mask = dataset[2]
    assert len(dataset) == 4
    assert isinstance(image, torch.Tensor) and image.shape == (3, 32, 32) and image.dtype == torch.float32
    assert mask.shape == (1, 32, 32) and mask.dtype == torch.float32
    images, masks = ex.data.make_arrays(4, size=32, seed=1)
    assert np.array_equal(image.numpy(), images[2]) and np.array_equal(mask.numpy(), masks[2])


# ---------------------------------------------------------------- metrics

def _logits(pred):
    """Logits whose thresholded sigmoid is the given 0/1 tensor."""
    return (pred * 2.0 - 1.0) * 10.0


def test_metrics_perfect_prediction():
    _, mask = _batch()
    metrics = ex.evaluate.crack_metrics(_logits(mask), mask)
    assert metrics == {"iou": 1.0, "f1": 1.0, "miou": 1.0}


def test_metrics_empty_prediction():
    _, mask = _batch()
    metrics = ex.evaluate.crack_metrics(_logits(torch.zeros_like(mask)), mask)
    background_iou = 1.0 - mask.mean().item()
    assert metrics["iou"] == 0.0 and metrics["f1"] == 0.0
    assert metrics["miou"] == pytest.approx(background_iou / 2.0)


def test_metrics_hand_computed_case():
    mask = torch.tensor([1.0, 1.0, 0.0, 0.0]).reshape(1, 1, 2, 2)
    pred = torch.tensor([1.0, 0.0, 1.0, 0.0]).reshape(1, 1, 2, 2)  # tp fn fp tn
    metrics = ex.evaluate.crack_metrics(_logits(pred), mask)
    assert metrics["iou"] == pytest.approx(1 / 3)
    assert metrics["f1"] == pytest.approx(1 / 2)
    assert metrics["miou"] == pytest.approx(1 / 3)


def test_metrics_threshold_and_empty_mask():
    mask = torch.zeros(1, 1, 2, 2)
    logits = torch.full((1, 1, 2, 2), 0.5)  # sigmoid = 0.62
    assert ex.evaluate.crack_metrics(logits, mask, threshold=0.7)["iou"] == 1.0  # nothing to find
    assert ex.evaluate.crack_metrics(logits, mask, threshold=0.5)["iou"] == 0.0  # false positives


# ---------------------------------------------------------------- training and scripts

def test_train_steps_update_weights_and_return_losses():
    torch.manual_seed(0)
    model = ex.model.CrackUNet(base=4)
    loader = torch.utils.data.DataLoader(ex.data.CrackDataset(4, size=32), batch_size=2,
                                         shuffle=True, drop_last=True)
    before = [p.detach().clone() for p in model.parameters()]
    losses = ex.train.train(model, loader, ex.losses.CrackLoss(), torch.optim.Adam(model.parameters()),
                            steps=3, log_every=100)
    assert len(losses) == 3 and all(np.isfinite(losses))
    assert all(not torch.equal(a, b) for a, b in zip(before, model.parameters()))


def test_make_data_writes_npz(tmp_path):
    out = tmp_path / "batch.npz"
    _run(os.path.join(EXAMPLE, "make_data.py"), "--n", 3, "--size", 32, "--seed", 5, "-o", out, cwd=tmp_path)
    with np.load(out) as npz:
        assert sorted(npz.files) == ["input", "target"]
        images, masks = ex.data.make_arrays(3, size=32, seed=5)
        assert np.array_equal(npz["input"], images) and np.array_equal(npz["target"], masks)
    assert list(tmp_path.iterdir()) == [out]  # no temp file left behind


@pytest.mark.slow
def test_train_and_evaluate_cli_learn_cracks(tmp_path):
    """A short training run through both CLIs beats the trivial all-background prediction."""
    ckpt = tmp_path / "crack.pth"
    out = _run("train.py", "--steps", 120, "--n-train", 128, "--n-val", 32, "--log-every", 60, "--out", ckpt)
    assert "held-out: crack IoU" in out and ckpt.exists()
    report = _run("evaluate.py", ckpt, "--n", 32).split()
    iou = float(report[report.index("IoU") + 1])
    assert iou > 0.2, report
