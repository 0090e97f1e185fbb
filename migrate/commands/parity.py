"""`msmigrate parity`: does the MindSpore port compute what the torch model computes, layer by layer?"""
from __future__ import annotations

import os
import sys
import tempfile

from .. import exitcodes

HELP = "run torch and MindSpore side by side and name the first layer where they part"
DESCRIPTION = """\
Run a torch model and its MindSpore port eagerly on identical inputs and weights; compare every layer's
output, every parameter gradient and optionally N optimizer steps; name the first layer, and when the
forward parts the first source line and variable on both sides, where they part.

  msmigrate parity nets/unet.py:UNet --args '{"n_classes": 1}' --input 2,3,64,64 --report parity/

TARGET:NAME: a file (nets/unet.py) or a dotted module (nets.unet, under --path DIR); NAME a class or
factory, --args (JSON) its keyword arguments on both sides. Without --ms the MindSpore side is converted
on the fly (with its package). Weights are the torch model's (or --weights), copied by the weights
converter. Both sides run in train mode, dropout / drop-path disabled; the loss is --loss or the sum of
the outputs. Inputs: --input SHAPE[:DTYPE] (repeatable) or --data FILE.npz (input, target).

Each tensor is judged against a noise floor (a float32 screen, then torch's own float32 error against a
float64 run): error / floor <= 1 passes, a real slip reads 30x to 1e6x. How and why: docs/parity.md.

WARNING: this command IMPORTS AND RUNS the Python files you name. Only run it on code you trust.
""" + exitcodes.help_line("a divergence (or the MindSpore side raised, or --jit differs)")


def add_arguments(parser) -> None:
    parser.add_argument("model", metavar="TORCH_FILE:NAME", help="torch model class or factory (FILE.py:NAME, or "
                        "package.module:NAME found on --path)")
    parser.add_argument("--path", action="append", metavar="DIR", default=[],
                        help="import root for package.module targets (repeatable)")
    parser.add_argument("--ms", metavar="MS_FILE:NAME", help="MindSpore port (default: convert TORCH_FILE now)")
    parser.add_argument("--args", metavar="JSON", help="keyword arguments for NAME on both sides")
    parser.add_argument("--input", action="append", metavar="SHAPE[:DTYPE]", default=[],
                        help="random input, e.g. 2,3,64,64 or 4,16:int64 (repeatable)")
    parser.add_argument("--data", metavar="FILE.npz", help="real arrays: input (or input0..), optional target")
    parser.add_argument("--loss", metavar="TORCH_FILE:NAME", help="torch loss, called loss(output, target)")
    parser.add_argument("--ms-loss", metavar="MS_FILE:NAME", help="MindSpore loss (default: convert --loss's file)")
    parser.add_argument("--weights", metavar="FILE", help="start from these weights (.pt/.pth or .ckpt)")
    parser.add_argument("--steps", type=int, default=0, metavar="N", help="optimizer steps to compare (default 0)")
    parser.add_argument("--optimizer", default="sgd", choices=["sgd", "adam"], help="for --steps (default sgd)")
    parser.add_argument("--lr", type=float, default=1e-3, help="learning rate for --steps (default 1e-3)")
    parser.add_argument("--rtol", type=float, default=1e-4,
                        help="float32 screen, relative to max|torch| (default 1e-4)")
    parser.add_argument("--grad-rtol", type=float, default=1e-2,
                        help="the same for gradients (default 1e-2)")
    parser.add_argument("--atol", type=float, default=1e-5, help="float32 screen: absolute tolerance (default 1e-5)")
    parser.add_argument("--no-reference", action="store_true",
                        help="the float32 screen's verdict is final")
    parser.add_argument("--jit", action="store_true",
                        help="also compare ms.jit with PyNative")
    parser.add_argument("--seed", type=int, default=0, help="seed for random inputs and torch init (default 0)")
    parser.add_argument("--report", metavar="DIR", help="write parity.json, parity.html (and repro.py on a "
                        "divergence) into DIR")
    parser.add_argument("--no-color", action="store_true", help="plain table even on a terminal")


class UsageError(ValueError):
    pass


def run(args) -> int:
    from migrate.parity.loading import LoadError, parse_args_json
    from migrate.parity.runner import ParityError
    from migrate.weights import WeightsError

    try:
        report, jit_report = _run(args, parse_args_json(args.args))
    except (UsageError, LoadError, ParityError, WeightsError) as exc:
        print(f"msmigrate parity: error: {exc}", file=sys.stderr)
        return exitcodes.USAGE
    print(report.table(color=False if args.no_color else None))
    if jit_report is not None:
        print(jit_report.format_text())
    if args.report:
        paths = report.write(args.report)
        print(f"report: {paths['json']}, {paths['html']}")
        if getattr(report, "repro_path", None):
            print(f"repro: {report.repro_path} (python {report.repro_path}: exit 1 when it reproduces)")
    return exitcodes.OK if report.passed else exitcodes.FAILED


def _run(args, kwargs):
    import numpy as np
    import torch

    from migrate.parity.loading import load_object
    from migrate.parity.runner import compare

    if args.steps < 0:
        raise UsageError("--steps must be >= 0")
    if not args.input and not args.data:
        raise UsageError("give --input SHAPE[:DTYPE] or --data FILE.npz")
    if args.ms_loss and not args.loss:
        raise UsageError("--ms-loss needs --loss (the torch loss it is compared with)")
    for spec in args.input:  # fail fast, before any user code runs
        _parse_input(spec, np)
    torch.manual_seed(args.seed)
    paths = args.path or []
    torch_model = load_object(args.model, kwargs, side="torch", paths=paths)
    if not isinstance(torch_model, torch.nn.Module):
        raise UsageError(f"{args.model} gives a {type(torch_model).__name__}, not a torch.nn.Module")
    # the converted sources stay on disk until the end: ms.jit (--jit) reads a Cell's source to compile it
    with tempfile.TemporaryDirectory(prefix="msmigrate-parity-") as tmp:
        ms_model = _ms_side(args.ms, args.model, kwargs, tmp, "model", paths)
        loss = load_object(args.loss, side="torch", paths=paths) if args.loss else None
        ms_loss = _ms_side(args.ms_loss, args.loss, {}, tmp, "loss", paths) if args.loss else None
        inputs, target, batches, targets = _inputs(args, torch_model, loss, np)
        weights = _weights(args.weights, torch_model) if args.weights else None
        from migrate.progress import Progress

        with Progress("parity", unit="stage") as bar:  # forward+backward, then one tick per step (terminals only)
            report = compare(torch_model, ms_model, inputs, target=target, loss=loss, ms_loss=ms_loss,
                             steps=args.steps, optimizer=args.optimizer, lr=args.lr, rtol=args.rtol, atol=args.atol,
                             grad_rtol=args.grad_rtol, weights=weights, step_inputs=batches, step_targets=targets,
                             reference=not args.no_reference, progress=bar, keep_start=bool(args.report))
        jit_report = _jit_parity(report, ms_model, inputs, args) if args.jit else None
        if args.report and not report.passed and report.error is None:
            report.repro_path = _repro(args, report, kwargs, inputs, tmp, paths)
    return report, jit_report


def _repro(args, report, kwargs, inputs, tmp, paths):
    """--report DIR on a divergence: DIR/repro.py + DIR/repro_inputs.npz (migrate/parity/repro.py). A port converted
    now is copied to DIR/port/ (the temporary directory goes away)."""
    import shutil

    from migrate.parity.loading import locate, split_spec
    from migrate.parity.repro import write_line_repro, write_repro

    target, name = split_spec(args.model)
    root, dotted, _ = locate(target, paths)
    if args.ms:
        m_target, m_name = split_spec(args.ms)
        m_root, m_dotted, _ = locate(m_target, paths)
    else:
        m_root, m_dotted, m_name = os.path.join(args.report, "port"), dotted, name
        if os.path.isdir(m_root):
            shutil.rmtree(m_root)
        shutil.copytree(os.path.join(tmp, "model"), m_root, ignore=shutil.ignore_patterns("__pycache__"))
        ln = report.first_divergence.get("line")
        converted = os.path.realpath(os.path.join(tmp, "model"))
        if ln and os.path.realpath(ln["ms_file"]).startswith(converted + os.sep):  # name the copy, not the temp
            ln["ms_file"] = os.path.join(m_root, os.path.relpath(os.path.realpath(ln["ms_file"]), converted))
            ln["ms"] = f"{ln['ms_file']}:{ln['ms_line']}"
    capture = getattr(report, "line_capture", None)
    ln = report.first_divergence.get("line")
    if capture and ln:  # the first divergent line alone, when it stands alone (lines.capture_line)
        t_mod, m_mod = _module_of(ln["torch_file"], root), _module_of(ln["ms_file"], m_root)
        if t_mod and m_mod:
            return write_line_repro(args.report, report, capture, (root, t_mod), (m_root, m_mod))
    t_state, ms_state = getattr(report, "start", ({}, {}))
    return write_repro(args.report, report, (root, dotted, name), (m_root, m_dotted, m_name), kwargs, inputs,
                       t_state, ms_state)


def _module_of(path, root):
    """The dotted module ``path`` imports as with ``root`` on sys.path, or None when it lies outside ``root``."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    if rel.startswith("..") or not rel.endswith(".py"):
        return None
    parts = rel[:-3].split(os.sep)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) or None


def _jit_parity(report, ms_model, inputs, args):
    """--jit: the MindSpore model (with the weights parity used) in PyNative vs under ms.jit, one step's gradients
    of the sum of its outputs; a difference fails the run like any divergence."""
    from migrate.jitcheck import jit_parity

    jit_report = jit_parity(ms_model, inputs, loss_fn=None, rtol=args.rtol, atol=args.atol)
    report.jit = jit_report.to_dict()
    report.passed = report.passed and jit_report.ok
    return jit_report


def _ms_side(ms_spec, torch_spec, kwargs, tmp, what, paths=()):
    """Load the MindSpore object: from --ms/--ms-loss, or by converting the torch side now.

    A torch module inside a package is converted with its whole package (relative imports keep working); a plain
    file with the other .py files of its folder (its sibling imports). The result is imported in the MindSpore
    namespace, apart from the torch side's modules of the same names."""
    import mindspore as ms

    from migrate.parity.loading import LoadError, load_object, locate, namespace, split_spec

    if ms_spec:
        try:
            obj = load_object(ms_spec, kwargs, side="ms", paths=paths)
            if not isinstance(obj, ms.nn.Cell):
                raise UsageError(f"{ms_spec} (MindSpore side) gives a {type(obj).__name__}, not a mindspore.nn.Cell")
        except (LoadError, UsageError) as exc:
            raise UsageError(f"{exc}{_not_converted_hint(ms_spec)}") from None
    else:
        target, name = split_spec(torch_spec)
        root, dotted, file = locate(target, paths)
        out_root = os.path.join(tmp, what)
        if "." in dotted:  # a package: convert its top-level package folder
            top = dotted.split(".")[0]
            _convert_tree(os.path.join(root, top), os.path.join(out_root, top))
        else:
            _convert_siblings(root, file, out_root)
        module = namespace("ms-" + what, ()).import_module(out_root, dotted, os.path.join(out_root, *dotted.split(".")))
        try:
            obj = load_object(f"{target}:{name}", kwargs, module=module)
        except LoadError as exc:
            raise UsageError(f"converted {exc}") from None
    if not isinstance(obj, ms.nn.Cell):
        raise UsageError(f"{ms_spec or torch_spec} (MindSpore side) gives a {type(obj).__name__}, not a mindspore.nn.Cell")
    return obj


def _not_converted_hint(spec: str) -> str:
    """When the MindSpore side fails to load and files beside it are `msmigrate convert`'s copies of files it could
    not convert (their first line says so), name them: the error is likely theirs."""
    target = spec.rpartition(":")[0] or spec
    folder = os.path.dirname(os.path.abspath(target)) if target.endswith(".py") else None
    if not folder or not os.path.isdir(folder):
        return ""
    failed = []
    for name in sorted(os.listdir(folder))[:500]:
        if name.endswith(".py"):
            try:
                with open(os.path.join(folder, name), encoding="utf-8", errors="replace") as fh:
                    first = fh.readline().strip()
            except OSError:
                continue
            if first.startswith("# msmigrate: not converted"):
                failed.append(f"{os.path.join(folder, name)} ({first[2:]})")
    return f"; note: msmigrate convert could not convert {'; '.join(failed[:3])}" if failed else ""


def _checked(result, src, quiet=False):
    """The converted text of one file, or UsageError when it cannot be converted; warnings for what is left."""
    if getattr(result, "errors", None):
        raise UsageError(f"{src}: cannot convert: {result.errors[0]}")
    for u in [] if quiet else getattr(result, "unsupported", []):
        print(f"{src}:{u.line}: warning: unsupported {u.api}: {u.reason}", file=sys.stderr)
    return result.code


def _convert_siblings(folder, file, out_root):
    """The file, and the other .py files of its folder (what its sibling imports can reach), converted as one
    project: a name the file takes from a sibling (``from parts import *``) is resolved there, as ``msmigrate
    convert DIR`` resolves it."""
    from pathlib import Path

    from migrate.api import convert_file
    from migrate.core.resolve import Project

    names = sorted(n for n in os.listdir(folder) if n.endswith(".py"))
    if len(names) > 200:  # a huge folder: the file alone
        names = [os.path.basename(file)]
    project = Project(Path(folder))
    for n in names:
        src = os.path.join(folder, n)
        main = os.path.abspath(src) == os.path.abspath(file)
        try:
            result = convert_file(Path(src), src, project=project)
            code = _checked(result, src, quiet=not main)
        except UsageError as exc:
            if main:
                raise
            # a sibling that cannot be converted only matters if the model imports it
            print(f"msmigrate parity: warning: {exc} (skipped)", file=sys.stderr)
            continue
        os.makedirs(out_root, exist_ok=True)
        with open(os.path.join(out_root, n), "w", encoding="utf-8") as fh:
            fh.write(code)


def _convert_tree(pkg, out):
    """A package converted as ``msmigrate convert PKG -o OUT`` converts it: its modules resolved together
    (relative and star imports: ``from .unet_parts import *`` keeps the sibling's names), its other files
    copied."""
    from migrate.api import convert_path

    report = convert_path(pkg, out)
    for result in report.files:
        _checked(result, result.filename)


def _parse_input(spec: str, np):
    shape_text, _, dtype = spec.partition(":")
    try:
        shape = tuple(int(d) for d in shape_text.replace("x", ",").split(","))
        dtype = np.dtype(dtype or "float32")
    except (ValueError, TypeError):
        raise UsageError(f"--input {spec!r}: expected SHAPE[:DTYPE] such as 2,3,64,64 or 4,16:int64") from None
    if not shape or any(d <= 0 for d in shape):
        raise UsageError(f"--input {spec!r}: every dimension must be a positive integer")
    return shape, dtype


def _random(shape, dtype, rng, np):
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 10, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def _inputs(args, torch_model, loss, np):
    """-> (inputs, target, per-step inputs, per-step targets)."""
    rng = np.random.default_rng(args.seed)
    if args.data:
        if not os.path.isfile(args.data):
            raise UsageError(f"{args.data}: no such file")
        try:
            data = dict(np.load(args.data, allow_pickle=False))
        except Exception as exc:  # noqa: BLE001
            raise UsageError(f"{args.data}: not a readable .npz ({type(exc).__name__}: {exc})") from None
        keys = ["input"] if "input" in data else sorted(k for k in data if k.startswith("input"))
        if not keys:
            raise UsageError(f"{args.data}: no array named 'input' (or input0, input1, ...); has {sorted(data)}")
        inputs = [data[k] for k in keys]
        target = data.get("target")
        if loss is not None and target is None:
            target = _target_like(torch_model, inputs, rng, np)
        return inputs, target, [inputs], [target]
    specs = [_parse_input(s, np) for s in args.input]
    batches = [[_random(s, d, rng, np) for s, d in specs] for _ in range(max(1, args.steps))]
    targets = [None] * len(batches)
    if loss is not None:
        targets = [_target_like(torch_model, batches[0], rng, np) for _ in batches]
    return batches[0], targets[0], batches, targets


def _target_like(torch_model, inputs, rng, np):
    import copy

    import torch

    probe = copy.deepcopy(torch_model).eval()
    try:
        with torch.no_grad():
            out = probe(*[torch.from_numpy(np.array(x)) for x in inputs])
    except Exception as exc:  # noqa: BLE001
        raise UsageError(f"the torch model raised {type(exc).__name__} on the given input: {exc}") from None
    first = out if torch.is_tensor(out) else out[0]
    return rng.random(tuple(first.shape)).astype(np.float32)


def _weights(path, torch_model):
    from migrate.weights import load_ms_checkpoint, load_torch_state_dict, ms_arrays_to_state_dict

    if path.endswith(".ckpt"):
        return ms_arrays_to_state_dict(load_ms_checkpoint(path), torch_model)[0]
    return load_torch_state_dict(path)
