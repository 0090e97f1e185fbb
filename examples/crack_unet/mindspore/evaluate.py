"""Crack segmentation metrics, and a CLI that evaluates a checkpoint on held-out synthetic data.

    python evaluate.py crack_unet.pth --n 128 --size 64 --seed 1000
"""
import argparse

import mindspore as ms
from mindspore import ops
import mindspore.dataset as ds

from data import CrackDataset
from model import CrackUNet


def load_checkpoint_dict(path):
    """torch.load (msmigrate): what save_checkpoint_dict or ms.save_checkpoint wrote, as a dict; ms.save_checkpoint
    writes 'a.pth' as 'a.pth.ckpt'."""
    import os

    path = f"{path}.ckpt" if not str(path).endswith(".ckpt") and os.path.exists(f"{path}.ckpt") else str(path)
    out = {}
    for name, value in ms.load_checkpoint(path).items():
        if name.startswith(":"):  # a plain value: ':epoch'
            out[name[1:]] = value if isinstance(value, str) else value.asnumpy().item()
        else:  # 'model/conv.weight' -> out['model']['conv.weight']; a plain checkpoint's names stay flat
            key, sep, rest = name.partition("/")
            (out.setdefault(key, {}) if sep else out)[rest if sep else name] = value
    return out


def load_params(cell, state_dict, strict=True):
    """Module.load_state_dict (msmigrate): raises as torch does where ms.load_param_into_net only reports missing
    names, and copies in place (an optimizer keeps the Parameters it holds)."""
    params = cell.parameters_dict()
    missing, unexpected = [k for k in params if k not in state_dict], [k for k in state_dict if k not in params]
    if strict and (missing or unexpected):
        raise RuntimeError(f"Error(s) in loading state_dict: missing keys {missing}, unexpected keys {unexpected}")
    for name in (k for k in state_dict if k in params):
        if tuple(state_dict[name].shape) != params[name].shape:  # copy_ would broadcast
            raise RuntimeError(f"size mismatch for {name}: {tuple(state_dict[name].shape)} in the checkpoint, "
                               f"{params[name].shape} in the model")
        params[name].copy_(state_dict[name])
    return missing, unexpected


def _ratio(numerator, denominator):
    """numerator / denominator as a float; 1.0 when both are empty (nothing to find, nothing found)."""
    if denominator == 0:
        return 1.0
    return float(numerator / denominator)


def crack_metrics(logits, masks, threshold=0.5):
    """Pixel metrics pooled over the whole batch.

    iou: crack-class IoU, f1: crack-class F1 (= Dice), miou: mean of crack and background IoU.
    A pixel is predicted as crack when sigmoid(logit) > threshold.
    """
    pred = (ops.sigmoid(logits) > threshold).float()
    tp = (pred * masks).sum()
    fp = (pred * (1.0 - masks)).sum()
    fn = ((1.0 - pred) * masks).sum()
    tn = ((1.0 - pred) * (1.0 - masks)).sum()
    iou = _ratio(tp, tp + fp + fn)
    background_iou = _ratio(tn, tn + fp + fn)
    return {
        "iou": iou,
        "f1": _ratio(2.0 * tp, 2.0 * tp + fp + fn),
        "miou": (iou + background_iou) / 2.0,
    }


def evaluate(model, dataset, batch_size=32, threshold=0.5):
    """Run `model` in eval mode over `dataset` and return crack_metrics on all its pixels."""
    loader = ds.GeneratorDataset(dataset, column_names=[f"column_{i}" for i in range(len(dataset[0]))] if isinstance(dataset[0], tuple) else ["column_0"], shuffle=False).batch(batch_size, drop_remainder=False)
    model.set_train(False)
    all_logits, all_masks = [], []
    for images, masks in loader:
        all_logits.append(model(images))
        all_masks.append(masks)
    return crack_metrics(ops.cat(all_logits), ops.cat(all_masks), threshold)


def format_metrics(metrics):
    """One line such as 'crack IoU 0.512  F1 0.677  mIoU 0.745'."""
    return "crack IoU {iou:.3f}  F1 {f1:.3f}  mIoU {miou:.3f}".format(**metrics)


def main():
    parser = argparse.ArgumentParser(description="Evaluate a CrackUNet checkpoint on held-out synthetic cracks.")
    parser.add_argument("checkpoint", help="state_dict saved by train.py")
    parser.add_argument("--n", type=int, default=128, help="number of held-out samples")
    parser.add_argument("--size", type=int, default=64, help="image height and width")
    parser.add_argument("--seed", type=int, default=1000, help="data seed (differs from training)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--threshold", type=float, default=0.5)
    args = parser.parse_args()

    model = CrackUNet()
    model.set_train(True)  # torch modules start in training mode
    load_params(model, load_checkpoint_dict(args.checkpoint))
    metrics = evaluate(model, CrackDataset(args.n, size=args.size, seed=args.seed),
                       args.batch_size, args.threshold)
    print(format_metrics(metrics))


if __name__ == "__main__":
    main()
