"""Graph route: a traceable torch model (or any .onnx file) -> a readable MindSpore Cell + checkpoint.

    from migrate.onnx import export_torch, convert_onnx
    export_torch(model, (torch.randn(1, 3, 64, 64),), "unet.onnx")
    report = convert_onnx("unet.onnx", "ms_out/")      # ms_out/unet.py + ms_out/unet.ckpt

Pipeline: graph.load_graph (shape inference + constant folding) -> patterns.fuse (Linear, GroupNorm,
GELU) -> codegen.generate (op table: layers.LAYERS + tensor_ops.FUNCTIONAL) -> files written atomically.
"""
from .api import class_name_for, convert_onnx
from .export import export_torch
from .graph import OnnxInputError
from .report import OnnxReport

__all__ = ["convert_onnx", "export_torch", "OnnxReport", "OnnxInputError", "class_name_for"]
