"""The dynamic-mode (PyNative) workflow of the seed article, on the converted crack U-Net.

1. print shapes from inside `construct` (PyNative runs construct as plain Python, so print works there);
2. check the gradient of the loss with respect to the logits before any training: non-zero, finite, and equal to
   torch's gradient for the same logits and mask;
3. train one step at a time, looking at the loss and the gradient norm after each step.

    python examples/crack_unet/dynamic_workflow.py
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def load(folder: str):
    """Import model/losses from examples/crack_unet/<folder> (the scripts import each other by file name)."""
    sys.path.insert(0, str(HERE / folder))
    for name in ("model", "losses", "data"):
        sys.modules.pop(name, None)
    import data
    import losses
    import model

    sys.path.pop(0)
    return model, losses, data


def main() -> None:
    import mindspore as ms
    from mindspore import ops
    from mindspore.experimental import optim

    model_ms, losses_ms, data_ms = load("mindspore")
    images, masks = data_ms.make_arrays(4, 64, seed=3)

    print("1. shapes printed from inside construct")

    class LoudDoubleConv(model_ms.DoubleConv):
        def construct(self, x):
            y = self.block(x)
            print(f"   DoubleConv {tuple(x.shape)} -> {tuple(y.shape)}  mean {float(y.mean()):+.3f}")
            return y

    model_ms.DoubleConv = LoudDoubleConv  # the U-Net builds its blocks from the module global
    ms.set_seed(0)
    net = model_ms.CrackUNet()
    net.set_train(True)
    logits = net(ms.Tensor(images))
    print(f"   logits {tuple(logits.shape)}")

    print("2. gradient of CrackLoss with respect to the logits")
    criterion = losses_ms.CrackLoss(edge_weight=0.1)
    mask = ms.Tensor(masks)
    d_logits = ms.grad(criterion, grad_position=0)(logits, mask).asnumpy()
    print(f"   shape {d_logits.shape}, max |grad| {np.abs(d_logits).max():.3e}, "
          f"non-zero {np.count_nonzero(d_logits)}/{d_logits.size}, finite {np.isfinite(d_logits).all()}")
    import torch

    _, losses_t, _ = load("torch")
    logits_t = torch.tensor(logits.asnumpy(), requires_grad=True)
    losses_t.CrackLoss(edge_weight=0.1)(logits_t, torch.from_numpy(masks)).backward()
    diff = np.abs(logits_t.grad.numpy() - d_logits).max()
    print(f"   torch's gradient for the same logits and mask: max |difference| {diff:.2e}")
    assert np.isfinite(d_logits).all() and np.abs(d_logits).max() > 0 and diff < 1e-6

    print("3. one step at a time")
    model_ms.DoubleConv = LoudDoubleConv.__mro__[1]  # quiet blocks again
    net = model_ms.CrackUNet()
    net.set_train(True)
    optimizer = optim.Adam(net.trainable_params(), lr=3e-3)

    def forward_fn(x, y):
        return criterion(net(x), y)

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
    x = ms.Tensor(images)
    for step in range(1, 4):
        loss, grads = grad_fn(x, mask)
        norm = float(ops.sqrt(sum((g * g).sum() for g in grads)))
        optimizer(grads)
        print(f"   step {step}: loss {float(loss):.4f}  gradient norm {norm:.4f}")
    sobel = criterion.edge.sobel.weight
    print(f"   the loss's Sobel conv: requires_grad={sobel.requires_grad}, trainable parameters in the loss: "
          f"{len(criterion.trainable_params())}")


if __name__ == "__main__":
    main()
