"""``msmigrate convert`` options for the graph route (SRC.onnx, or TORCH_FILE:NAME with --via-onnx).

``convert.add_arguments`` calls ``add_arguments``; ``convert.run`` calls ``run`` first, which returns
None when the graph route is not asked for.  Heavy imports (torch, onnx, mindspore) happen in ``run``.
"""
from __future__ import annotations

import importlib.util
import json
import os
import re
import sys

from .. import exitcodes

EXIT_OK, EXIT_INPUT, EXIT_USAGE, EXIT_UNSUPPORTED = (exitcodes.OK, exitcodes.USAGE, exitcodes.USAGE,
                                                  exitcodes.UNSUPPORTED)  # an unreadable model: input error

_DTYPES = {"float32", "float16", "float64", "int64", "int32", "bool", "uint8"}


def add_arguments(p) -> None:
    g = p.add_argument_group(
        "graph route (via ONNX)",
        "SRC.onnx, or TORCH_FILE:NAME with --via-onnx, becomes OUT/<stem>.py (an nn.Cell) plus "
        "OUT/<stem>.ckpt; exit 0 all ops converted, 3 some op left as a stub, 2 usage or input error. "
        "WARNING: --via-onnx imports TORCH_FILE and runs NAME, i.e. it EXECUTES the user's code.")
    g.add_argument("--via-onnx", action="store_true",
                   help="SRC is TORCH_FILE:NAME (an nn.Module class or factory); EXECUTES that file to "
                        "trace the model")
    g.add_argument("--input", action="append", metavar="SHAPE[:DTYPE]", default=[],
                   help="example input, e.g. 1x3x64x64 or 2,16:int64 (repeat for several inputs)")
    g.add_argument("--args", metavar="JSON", help="constructor arguments: a JSON list or object")
    g.add_argument("--weights", metavar="FILE", help="torch state_dict to load (torch.load weights_only)")
    g.add_argument("--name", metavar="CLASS", help="class name of the generated Cell")


def wants_graph_route(args) -> bool:
    return bool(getattr(args, "via_onnx", False)) or str(args.src).lower().endswith(".onnx")


def parse_input(spec: str) -> tuple[tuple[int, ...], str]:
    """``1x3x64x64`` / ``2,16:int64`` -> ((1, 3, 64, 64), 'float32')."""
    shape, _, dtype = spec.partition(":")
    dtype = dtype or "float32"
    dims = [d for d in re.split(r"[x,]", shape.strip()) if d]
    if not dims or not all(d.isdigit() and int(d) > 0 for d in dims) or dtype not in _DTYPES:
        raise ValueError(f"--input {spec!r}: expected SHAPE[:DTYPE] like 1x3x64x64 or 2,16:int64 "
                         f"(dtypes: {', '.join(sorted(_DTYPES))})")
    return tuple(int(d) for d in dims), dtype


def _load_model(src: str, args):
    """Import TORCH_FILE, build NAME(*args) and load --weights.  Executes the user's file."""
    import torch

    path, sep, name = src.rpartition(":")
    if not sep or not path or not name.isidentifier():
        raise ValueError(f"{src}: --via-onnx expects TORCH_FILE:NAME")
    if not os.path.isfile(path):
        raise ValueError(f"{path}: no such file")
    try:
        ctor_args = json.loads(args.args) if args.args else []
    except json.JSONDecodeError as exc:
        raise ValueError(f"--args is not valid JSON ({exc})") from None
    if not isinstance(ctor_args, (list, dict)):
        raise ValueError("--args must be a JSON list or object")
    spec = importlib.util.spec_from_file_location("msmigrate_user_model", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.pop(0)
    factory = getattr(module, name, None)
    if factory is None:
        raise ValueError(f"{path}: no {name!r} defined")
    model = factory(**ctor_args) if isinstance(ctor_args, dict) else factory(*ctor_args)
    if not isinstance(model, torch.nn.Module):
        raise ValueError(f"{path}:{name} did not produce a torch.nn.Module")
    if args.weights:
        state = torch.load(args.weights, map_location="cpu", weights_only=True)
        if isinstance(state, dict) and isinstance(state.get("state_dict"), dict):
            state = state["state_dict"]
        model.load_state_dict(state)
    return model, name


def _example(shape, dtype):
    import torch

    if dtype == "bool":
        return torch.zeros(shape, dtype=torch.bool)
    if dtype.startswith(("int", "uint")):
        return torch.zeros(shape, dtype=getattr(torch, dtype))
    return torch.randn(shape, dtype=getattr(torch, dtype))


def run(args) -> int | None:
    """Convert through ONNX when asked (else None); print the summary; return the exit code."""
    if not wants_graph_route(args):
        return None
    if not args.out:
        print("msmigrate: the graph route writes files: give -o OUT (a directory)", file=sys.stderr)
        return EXIT_USAGE
    try:
        inputs = [parse_input(s) for s in args.input]
    except ValueError as exc:
        print(f"msmigrate: {exc}", file=sys.stderr)
        return EXIT_USAGE
    from . import OnnxInputError, convert_onnx, export_torch

    src = str(args.src)
    try:
        if args.via_onnx:
            if not inputs:
                print("msmigrate: --via-onnx needs at least one --input SHAPE[:DTYPE]", file=sys.stderr)
                return EXIT_USAGE
            model, name = _load_model(src, args)
            os.makedirs(args.out, exist_ok=True)
            stem = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()
            onnx_path = os.path.join(args.out, f"{stem}.onnx")
            export_torch(model, tuple(_example(s, d) for s, d in inputs), onnx_path)
            report = convert_onnx(onnx_path, args.out, args.name or name)
        else:
            report = convert_onnx(src, args.out, args.name)
    except (OnnxInputError, ValueError, OSError) as exc:
        print(f"msmigrate: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except Exception as exc:  # the user's model failed to build, load weights or export
        print(f"msmigrate: {src}: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
              file=sys.stderr)
        return EXIT_INPUT
    print(report.summary())
    if getattr(args, "report", None):
        from .api import write_text_atomic

        write_text_atomic(args.report, json.dumps(report.to_dict(), indent=2) + "\n")
    return EXIT_OK if report.ok else EXIT_UNSUPPORTED
