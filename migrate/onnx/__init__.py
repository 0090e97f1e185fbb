"""Graph route: a traceable torch model (or any .onnx file) -> a readable MindSpore Cell + checkpoint.

    from migrate.onnx import export_torch, convert_onnx
    export_torch(model, (torch.randn(1, 3, 64, 64),), "unet.onnx")
    report = convert_onnx("unet.onnx", "ms_out/")      # ms_out/unet.py + ms_out/unet.ckpt

Pipeline: graph.load_graph (shape inference + constant folding) -> patterns.fuse (Linear, GroupNorm,
GELU) -> codegen.generate (op table: layers.LAYERS + tensor_ops.FUNCTIONAL) -> files written atomically.
Names are imported lazily so that ``migrate.onnx.cli`` (used by ``msmigrate convert --help``) does
not pull in onnx.
"""
import importlib

_EXPORTS = {
    "convert_onnx": "api", "class_name_for": "api", "export_torch": "export",
    "OnnxInputError": "graph", "OnnxReport": "report",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
