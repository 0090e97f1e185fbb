"""Export a torch model to ONNX with the TorchScript exporter, in the form the converter reads best."""
from __future__ import annotations

import warnings


def export_torch(model, example_inputs, path: str, opset: int | None = None) -> str:
    """Export ``model`` (a torch.nn.Module) called on ``example_inputs`` to ``path``; return path.

    Uses ``torch.onnx.export(..., dynamo=False)`` (the TorchScript exporter; its default opset
    in torch 2.13 is 20, which the converter handles, as it does 13-19).  The model is put in
    eval mode and exported with ``TrainingMode.PRESERVE`` so BatchNorm stays a layer instead of
    being folded into the preceding Conv, and with gradients enabled so
    ``nn.TransformerEncoderLayer`` does not take its fused fast path (which has no ONNX form).
    Shapes are static: the exported graph is specialised to the example inputs' shapes.
    The file is written atomically.
    """
    import torch

    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    model.eval()
    from ..io import atomic_path

    kwargs = {"opset_version": opset} if opset else {}
    with atomic_path(path, suffix=".onnx") as tmp:
        with warnings.catch_warnings(), torch.enable_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, example_inputs, tmp, dynamo=False,
                              training=torch.onnx.TrainingMode.PRESERVE, **kwargs)
    return path
