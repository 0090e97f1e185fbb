"""`msmigrate parity`: does the MindSpore port compute what the torch model computes, layer by layer?"""
from __future__ import annotations

import os
import sys
import tempfile

HELP = "run torch and MindSpore side by side and name the first layer where they part"
DESCRIPTION = """\
Run a torch model and its MindSpore port eagerly on identical inputs and weights; compare every
layer's output (forward), every parameter gradient and every layer's output/input gradient
(backward), and optionally N optimizer steps (losses, parameters, BatchNorm running statistics).
The first divergent layer is named; when the forward diverges, both forwards run once more under a
line tracer and the first source line and variable where the values part is named on both sides
(torch file.py:LINE and MindSpore file.py:LINE). A table is printed, and --report DIR writes
parity.json and a self-contained parity.html, and on a divergence repro.py + repro_inputs.npz: a
standalone script (torch, MindSpore, numpy; no msmigrate) that compares what diverged first and exits
1 when it reproduces.

  msmigrate parity model.py:UNet --args '{"channels": 3}' --input 2,3,64,64
  msmigrate parity model.py:UNet --ms ms_model.py:UNet --data batch.npz \\
      --loss losses.py:BCEDice --ms-loss ms_losses.py:BCEDice --steps 3 --optimizer adam --lr 1e-3

TARGET:NAME: TARGET is a file (nets/unet.py) or a dotted module (nets.unet, found under --path DIR,
then the current directory); NAME is a class or a factory function; --args (JSON) are its keyword
arguments, used on both sides. A file inside a package (folders with __init__.py) is imported under
its package name from the package's root, so relative imports work; a plain file with its folder as
the root, so sibling imports work. Each side's imports are kept apart: the MindSpore side never
receives the torch side's module of the same name (`networks`, `modules`) from sys.modules; the loss
shares its own side's modules. Without --ms the MindSpore model is converted on the fly (msmigrate
convert, into a temporary directory) with its whole package, or with the other .py files of its
folder, as one project (relative and star imports resolved as `msmigrate convert DIR` resolves them);
likewise the loss without --ms-loss. Weights are the torch model's (or --weights FILE:
.pt/.pth state_dict or .ckpt), copied to MindSpore by the weights converter; a torch tensor with no
MindSpore parameter (a registered buffer the port holds as a constant, a dropped bias) is noted, not
copied, and the forward shows whether it mattered. Both sides run in train mode with dropout
disabled (BatchNorm uses batch statistics); without --loss the loss is the sum of the outputs; a
model without parameters gets its gradients through its inputs.

Verdict, per tensor (layer outputs, parameter gradients, parameters after a step), in tiers:
  1. float32 screen: |torch - ms| <= atol + rtol * max|torch| for every element (gradients:
     --grad-rtol). torch's backward runs after MindSpore's and takes MindSpore's decision at each
     ReLU / max-pool element where the two decided otherwise (an input closer to the kink than the
     forward difference: either decision is a correct float32 evaluation; more than 0.1% of a layer
     is not noise and keeps torch's own);
  2. a tensor outside the screen is judged on a float64 run of the torch model (run only when some
     tensor needs it): error = ||ms - ref||, noise floor = K x ||torch32 - ref|| (torch's own float32
     error on that tensor; K = 32 for outputs, 128 for gradients: the ratio sqrt(n / log2 n) between a
     single-accumulator and a blocked float32 sum of n terms, for n up to ~14k fan-in / ~3e5 positions,
     see README) + eps32 x ||sum|terms| || (parameter gradients of Linear/Conv/norm layers: a gradient
     summing large terms to zero, like a conv bias before BatchNorm, gets eps x sum|terms|, not
     eps x |result|). The float64 backward takes MindSpore's kink decisions too, so torch32, ms and
     ref differ by rounding only;
  3. where a ReLU / max-pool layer's routing in MindSpore is not known (too many elements differ,
     winners that cannot be read off MindSpore's input), a parameter gradient still outside the screen
     gets a routing term: how far torch's gradient moves when noise of the frameworks' observed forward
     difference is added at those layers' inputs (one more torch run).
The parameter gradients decide the backward verdict (a model without parameters: its input and layer
gradients). Only when one fails are the gradients at every layer's outputs and inputs recorded, in a
second forward+backward on both sides, to name the layer where the backward parts; a layer gradient
outside the screen while every parameter gradient is within its floor (a ReLU / max-pool kink routed
differently) is not a divergence.
The ratio error / floor is shown per tensor (terminal, parity.json, parity.html): <= 1 passes; a real
slip reads 100x, a marginal case 1.2x; * marks ratios judged on the float64 reference.
Steps: each step starts both sides from torch's state (parameters, buffers, optimizer moments), so
float noise does not compound; a parameter may differ by lr x grad_rtol x max|torch gradient|. With
--optimizer adam MindSpore applies torch's exact Adam, and the elements whose gradients the
frameworks disagree on in sign (or by more than 1%) are left out for that step (Adam's normalised
update moves a noise-level gradient by a full lr).

Inputs: --input SHAPE[:DTYPE] (repeat for several positional inputs; random normal floats, ints
in [0, 10)), or --data FILE.npz with `input` (or input0, input1, ...) and optionally `target`.
With --loss and no target, a uniform [0, 1) target of the output's shape is drawn.

WARNING: this command IMPORTS AND RUNS the Python files you name (model, loss, and the converted
code). Only run it on code you trust.

--jit also runs the MindSpore model under ms.jit and compares its outputs and every parameter gradient
with PyNative (parity.json: "jit"), naming gradients that vanish or differ once compiled.

On a terminal a progress bar on stderr counts the stages (forward+backward, then each step); never in CI
(CI set) or when stdout is piped.

Exit codes: 0 parity holds; 1 a divergence was found (or the MindSpore side raised, or --jit differs);
2 usage or input error (missing file or class, bad --input/--args, weights that do not fit, the
torch model itself failing)."""


def add_arguments(parser) -> None:
    parser.add_argument("model", metavar="TORCH_FILE:NAME", help="torch model class or factory (FILE.py:NAME, or "
                        "package.module:NAME found on --path)")
    parser.add_argument("--path", action="append", metavar="DIR", default=[],
                        help="import root for package.module:NAME targets and their imports (repeatable)")
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
                        help="float32 screen: tolerance relative to each tensor's largest magnitude (default 1e-4)")
    parser.add_argument("--grad-rtol", type=float, default=1e-2,
                        help="the same for gradients, which sum over the batch and pixels (default 1e-2)")
    parser.add_argument("--atol", type=float, default=1e-5, help="float32 screen: absolute tolerance (default 1e-5)")
    parser.add_argument("--no-reference", action="store_true",
                        help="skip the float64 reference: the float32 screen's verdict is final")
    parser.add_argument("--jit", action="store_true",
                        help="also run the MindSpore model under ms.jit and compare outputs and every parameter "
                             "gradient with PyNative (names gradients that vanish or differ once compiled)")
    parser.add_argument("--seed", type=int, default=0, help="seed for random inputs and torch init (default 0)")
    parser.add_argument("--report", metavar="DIR", help="write DIR/parity.json and DIR/parity.html (and, on a "
                        "divergence, DIR/repro.py with DIR/repro_inputs.npz)")
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
        return 2
    print(report.table(color=False if args.no_color else None))
    if jit_report is not None:
        print(jit_report.format_text())
    if args.report:
        paths = report.write(args.report)
        print(f"report: {paths['json']}, {paths['html']}")
        if getattr(report, "repro_path", None):
            print(f"repro: {report.repro_path} (python {report.repro_path}: exit 1 when it reproduces)")
    return 0 if report.passed else 1


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
    from migrate.parity.repro import write_repro

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
    t_state, ms_state = getattr(report, "start", ({}, {}))
    return write_repro(args.report, report, (root, dotted, name), (m_root, m_dotted, m_name), kwargs, inputs,
                       t_state, ms_state)


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
        obj = load_object(ms_spec, kwargs, side="ms", paths=paths)
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
