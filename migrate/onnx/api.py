"""``convert_onnx``: an ONNX file in, a MindSpore Cell source file plus checkpoint out."""
from __future__ import annotations

import os
import re
from collections import Counter

from .codegen import generate, params_for_checkpoint
from .graph import OnnxInputError, load_graph, prune
from .patterns import fuse
from .report import OnnxReport


def class_name_for(stem: str) -> str:
    """``crack_unet`` -> ``CrackUnet``; always a valid identifier."""
    words = re.split(r"[^0-9a-zA-Z]+", stem)
    name = "".join(w[:1].upper() + w[1:] for w in words if w)
    return name if name and not name[0].isdigit() else f"Model{name}"


def _atomic_write(path: str, write) -> None:
    from ..io import atomic_path

    with atomic_path(path, suffix=os.path.splitext(path)[1]) as tmp:
        write(tmp)


def write_text_atomic(path: str, text: str) -> None:
    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)

    _atomic_write(path, write)


def _save_checkpoint(params: dict, path: str) -> None:
    import mindspore as ms

    entries = [{"name": name, "data": ms.Tensor(value)} for name, value in params.items()]
    _atomic_write(path, lambda tmp: ms.save_checkpoint(entries, tmp))


def convert_onnx(onnx_path: str, out_dir: str, class_name: str | None = None) -> OnnxReport:
    """Write ``out_dir/<stem>.py`` (an nn.Cell) and ``out_dir/<stem>.ckpt``; return the report.

    Raises OnnxInputError (a one-line message) for an unreadable file or a bad class name.
    Ops without a mapping become stub methods raising NotImplementedError; the report lists them.
    """
    stem = os.path.splitext(os.path.basename(onnx_path))[0]
    class_name = class_name or class_name_for(stem)
    if not class_name.isidentifier():
        raise OnnxInputError(f"--name {class_name!r} is not a Python identifier")
    from onnx import load as _  # noqa: F401  (fail early if onnx is missing)

    graph = load_graph(onnx_path)
    import onnx

    seen = Counter(n.op_type for n in onnx.load(onnx_path, load_external_data=False).graph.node)
    live_before = len(graph.nodes)
    fuse(graph)
    prune(graph)
    module_stem = re.sub(r"\W", "_", stem)
    code, ctx = generate(graph, class_name, os.path.basename(onnx_path), f"{module_stem}.ckpt")
    stubbed = {u["node"] for u in ctx.unsupported}
    converted = Counter(n.op for n in graph.nodes if n.name not in stubbed)

    os.makedirs(out_dir, exist_ok=True)
    code_path = os.path.join(out_dir, f"{module_stem}.py")
    ckpt_path = os.path.join(out_dir, f"{module_stem}.ckpt")
    params = params_for_checkpoint(ctx)
    _save_checkpoint(params, ckpt_path)

    write_text_atomic(code_path, code)
    return OnnxReport(source=onnx_path, code_path=code_path, checkpoint_path=ckpt_path,
                      class_name=class_name, opset=graph.opset, ops_seen=dict(seen),
                      ops_converted=dict(converted), ops_folded=sum(seen.values()) - live_before,
                      unsupported=ctx.unsupported, parameters=len(params))
