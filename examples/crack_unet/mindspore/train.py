"""Train CrackUNet on synthetic road cracks with BCE + Dice + the edge-aware loss.

    python train.py --steps 200 --out crack_unet.pth
    python train.py --edge-weight 0 --out crack_unet_no_edge.pth   # ablation

At the end the model is evaluated on a held-out synthetic set (another seed).
"""
import argparse
import time

import mindspore as ms
from mindspore.experimental import optim
import mindspore.dataset as ds

from data import CrackDataset
from evaluate import evaluate, format_metrics
from losses import CrackLoss
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


def train(model, loader, criterion, optimizer, steps, log_every=50):
    """Run `steps` optimisation steps, cycling over `loader`; return the list of losses."""
    model.set_train(True)
    losses = []
    step = 0
    def forward_fn(images, masks):
        logits = model(images)
        loss = criterion(logits, masks)
        return loss
    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
    while step < steps:
        for images, masks in loader:
            loss, grads = grad_fn(images, masks)
            optimizer(grads)

            losses.append(loss.item())
            step += 1
            if step % log_every == 0 or step == steps:
                print(f"step {step:4d}/{steps}  loss {loss.item():.4f}")
            if step == steps:
                break
    return losses


def parse_args():
    parser = argparse.ArgumentParser(description="Train CrackUNet on synthetic road cracks.")
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--size", type=int, default=64, help="image height and width")
    parser.add_argument("--n-train", type=int, default=512, help="number of training samples")
    parser.add_argument("--n-val", type=int, default=128, help="number of held-out samples")
    parser.add_argument("--seed", type=int, default=0, help="seed for weights, shuffling and data")
    parser.add_argument("--edge-weight", type=float, default=0.1, help="0 disables the edge-aware loss")
    parser.add_argument("--out", default="crack_unet.pth", help="where to save the state_dict")
    parser.add_argument("--init", help="initial weights (a state_dict) instead of a random init")
    parser.add_argument("--log-every", type=int, default=50)
    return parser.parse_args()


def main():
    args = parse_args()
    ms.set_seed(args.seed)
    ds.config.set_seed(args.seed)  # the dataset shuffles

    train_set = CrackDataset(args.n_train, size=args.size, seed=args.seed)
    loader = ds.GeneratorDataset(train_set, column_names=[f"column_{i}" for i in range(len(train_set[0]))] if isinstance(train_set[0], tuple) else ["column_0"], shuffle=True).batch(args.batch_size, drop_remainder=True)
    model = CrackUNet()
    model.set_train(True)  # torch modules start in training mode
    if args.init:  # start from given weights (e.g. the same initial weights in both frameworks)
        load_params(model, load_checkpoint_dict(args.init))
    criterion = CrackLoss(edge_weight=args.edge_weight)
    optimizer = optim.Adam(model.trainable_params(), lr=args.lr)

    start = time.time()
    train(model, loader, criterion, optimizer, args.steps, args.log_every)
    print(f"trained {args.steps} steps in {time.time() - start:.1f} s")
    ms.save_checkpoint(model, args.out)
    print(f"saved {args.out}")

    val_set = CrackDataset(args.n_val, size=args.size, seed=args.seed + 1000)
    print("held-out:", format_metrics(evaluate(model, val_set)))


if __name__ == "__main__":
    main()
