"""Rules for optimizers, checkpoints and data loading (migrate/mappings/optim.toml, migrate/mappings/training.toml)."""
from __future__ import annotations

import libcst as cst

from ..core.cst_util import Unsupported, code, expr


class _TrainableParams(cst.CSTTransformer):
    """``X.get_parameters()`` (the converted ``X.parameters()``) -> ``X.trainable_params()``."""

    def leave_Call(self, original, updated):
        f = updated.func
        if isinstance(f, cst.Attribute) and f.attr.value == "get_parameters" and not updated.args:
            return updated.with_changes(func=f.with_changes(attr=cst.Name("trainable_params")))
        return updated


def optim_params(call) -> None:
    """torch optimizers take ``model.parameters()`` (a generator, frozen parameters included: they get no
    gradient, so torch never moves them); MindSpore's experimental optimizers take a list, and the training pass
    differentiates with respect to ``optimizer.parameters``, so frozen ones are left out with
    ``trainable_params()``. Parameter groups (dicts with their own lr / weight_decay) keep their keys."""
    if "params" not in call.bound:
        raise Unsupported("needs params")
    if (call.entry.torch == "torch.optim.Adam" and "amsgrad" in call.bound and code(call.bound["amsgrad"]) != "False"
            and "weight_decay" in call.bound and code(call.bound["weight_decay"]) not in ("0", "0.0")):
        raise Unsupported("amsgrad with weight_decay: MindSpore's update drifts from torch's (measured 4e-4 "
                          "relative after 6 steps)")
    call.bound["params"] = call.bound["params"].visit(_TrainableParams())


def save_state_dict(call) -> None:
    """``torch.save(model.state_dict(), path)`` -> ``ms.save_checkpoint(model, path)``; any other object (the
    checkpoint dict ``{'epoch': e, 'model': net.state_dict(), 'optimizer': opt.state_dict(), 'best': b}``) ->
    ``save_checkpoint_dict(obj, path)``, a helper written into the file (state dicts under '<key>/<name>', plain
    values beside them; ``torch.load`` -> ``load_checkpoint_dict`` rebuilds the dict). Anything else in the dict
    raises TypeError when saved. A learning-rate scheduler's state is refused: MindSpore's experimental schedulers
    have no state_dict."""
    for name in ("pickle_module", "pickle_protocol", "_use_new_zipfile_serialization"):
        if name in call.bound:
            raise Unsupported(f"{name}: no MindSpore equivalent")
    obj = call.bound.get("obj")
    if (isinstance(obj, cst.Call) and isinstance(obj.func, cst.Attribute)
            and obj.func.attr.value == "parameters_dict" and not obj.args):
        call.replacement = expr(f"ms.save_checkpoint({code(obj.func.value)}, {code(call.bound['f'])})")
        return
    if obj is None or "f" not in call.bound:
        raise Unsupported("needs the object and the path")
    for c in _calls(obj, "parameters_dict"):
        if "sched" in code(c.func.value).lower():
            raise Unsupported(f"{code(c.func.value)}.state_dict(): MindSpore's experimental lr schedulers have no "
                              "state_dict (save last_epoch yourself)")
    call.replacement = expr(f"save_checkpoint_dict({code(obj)}, {code(call.bound['f'])})")


def load_checkpoint(call) -> None:
    """``torch.load(path)`` -> ``load_checkpoint_dict(path)`` (helper): the dict ``save_checkpoint_dict`` wrote,
    or the Parameters of a plain ``ms.save_checkpoint`` file (found under the '.ckpt' name MindSpore gives it)."""
    call.replacement = expr(f"load_checkpoint_dict({code(call.bound['f'])})")


def autocast(call) -> None:
    """``torch.autocast(device, dtype=torch.float16)`` -> ``ms.amp.autocast_O1()``, which the training pass turns
    into ``amp.auto_mixed_precision(net, "O1")`` of the networks called in the region (MindSpore casts per
    network). float16 only: torch's CPU default, bfloat16, has no MindSpore CPU MatMul kernel (measured:
    "Select CPU operator[MatMul] fail! Unsupported data type")."""
    enabled = call.literal("enabled", absent=True)
    if enabled is not True:
        raise Unsupported("enabled= other than True is not converted")
    device = call.literal("device_type", absent="cuda")
    dtype = call.src("dtype")
    if dtype is None:
        if call.entry.torch == "torch.cuda.amp.autocast" or device == "cuda":
            dtype = "ms.float16"
        else:
            raise Unsupported(f"device_type={device!r} without dtype autocasts to bfloat16, which MindSpore's CPU "
                              "MatMul does not run (measured); dtype=torch.float16 is converted")
    if dtype != "ms.float16":
        raise Unsupported(f"dtype={dtype}: only float16 is converted (bfloat16 MatMul has no MindSpore CPU kernel, "
                          "measured)")
    call.replacement = expr("ms.amp.autocast_O1()")


def grad_scaler(call) -> None:
    """GradScaler(init_scale=2**16, growth_factor=2, backoff_factor=0.5, growth_interval=2000) ->
    ``ms.amp.DynamicLossScaler(scale_value, scale_factor, scale_window)``, which divides by scale_factor on overflow
    (so backoff_factor must be 1 / growth_factor) and never goes below 1 (torch can)."""
    if call.literal("enabled", absent=True) is not True:
        raise Unsupported("enabled= other than True is not converted")
    growth = call.literal("growth_factor", absent=2.0)
    backoff = call.literal("backoff_factor", absent=0.5)
    if not isinstance(growth, (int, float)) or not isinstance(backoff, (int, float)) or abs(growth * backoff - 1) > 1e-12:
        raise Unsupported("DynamicLossScaler divides by its scale_factor on overflow: backoff_factor must be "
                          "1 / growth_factor (written as numbers)")
    if float(growth) != int(growth):
        raise Unsupported("DynamicLossScaler's scale_factor must be an int (measured: TypeError for a float)")
    growth = int(growth)
    scale = call.src("init_scale") or "65536.0"
    window = call.src("growth_interval") or "2000"
    call.replacement = expr(f"ms.amp.DynamicLossScaler(scale_value={scale}, scale_factor={growth}, "
                            f"scale_window={window})")


def _calls(node, attr):
    found = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n):
            if isinstance(n.func, cst.Attribute) and n.func.attr.value == attr:
                found.append(n)

    node.visit(V())
    return found


def dataloader(call) -> None:
    """``DataLoader(dataset, batch_size=1, shuffle=False, drop_last=False)`` over a map-style dataset ->
    ``ds.GeneratorDataset(dataset, column_names=..., shuffle=...).batch(batch_size, drop_remainder=...)``.
    Iterating it yields tuples of Tensors like torch's default collate of a tuple-returning ``__getitem__``.
    Worker, pinning and prefetch options only affect speed and are dropped. With ``**kwargs`` forwarded, the call
    becomes ``data_loader(...)`` (a helper written into the file) that reads them when it runs."""
    if call.kwargs:  # DataLoader(ds, batch_size=8, **kwargs): the keys are known when it runs
        call.replacement = call.node.with_changes(func=expr("data_loader"))
        return
    batch = call.literal("batch_size", absent=1)
    if batch is None:
        raise Unsupported("batch_size=None (no batching) is not converted")
    dataset = code(call.bound["dataset"])
    shuffle = call.bound.get("shuffle")
    shuffle_src = code(shuffle) if shuffle is not None else "False"
    drop = call.bound.get("drop_last")
    drop_src = code(drop) if drop is not None else "False"
    batch_src = code(call.bound["batch_size"]) if "batch_size" in call.bound else "1"
    columns = (f'[f"column_{{i}}" for i in range(len({dataset}[0]))] if isinstance({dataset}[0], tuple) '
               f'else ["column_0"]')
    call.replacement = expr(f"ds.GeneratorDataset({dataset}, column_names={columns}, shuffle={shuffle_src})"
                            f".batch({batch_src}, drop_remainder={drop_src})")


RULES = {f.__name__: f for f in (optim_params, save_state_dict, load_checkpoint, dataloader, autocast, grad_scaler)}


# Definitions some entries' targets need in the converted file (converted code never imports msmigrate):
# name -> (the torch API(s) whose conversion emits it, source). The training pass writes each one the converted file
# calls (and does not define itself) after its imports.
HELPERS = {
    "CrossEntropyLoss": ("torch.nn.CrossEntropyLoss", '''
class CrossEntropyLoss(nn.Cell):
    """PyTorch's CrossEntropyLoss (written by msmigrate): targets are int64 class indices or class probabilities.
    MindSpore's nn.CrossEntropyLoss takes int32 labels only; ops.cross_entropy takes both."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__()
        self.weight, self.ignore_index = weight, ignore_index
        self.reduction, self.label_smoothing = reduction, label_smoothing

    def construct(self, input, target):
        return ops.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction, self.label_smoothing)
'''),
    "save_checkpoint_dict": ("torch.save", '''
def save_checkpoint_dict(obj, path):
    """Saves a checkpoint dict as one MindSpore checkpoint (written by msmigrate): state dicts (dicts of
    Parameters) as '<key>/<name>', int / float / bool / str values as ':<key>'; load_checkpoint_dict reads it."""
    entries, values = [], {}
    for key, value in obj.items():
        if isinstance(value, dict):
            entries += [{"name": f"{key}/{name}", "data": data} for name, data in value.items()]
        elif isinstance(value, ms.Tensor):
            entries.append({"name": key, "data": value})
        elif isinstance(value, bool):
            values[f":{key}"] = ms.Tensor(value, ms.bool_)
        elif isinstance(value, (int, float)):
            values[f":{key}"] = ms.Tensor(value, ms.int64 if isinstance(value, int) else ms.float64)
        elif isinstance(value, str):
            values[f":{key}"] = value
        else:
            raise TypeError(f"checkpoint entry {key!r}: a {type(value).__name__} is not a state dict, a Tensor or an "
                            "int, float, bool or str")
    ms.save_checkpoint(entries, str(path), append_dict=values)
'''),
    "load_checkpoint_dict": ("torch.load", '''
def load_checkpoint_dict(path):
    """Loads what save_checkpoint_dict or ms.save_checkpoint wrote (written by msmigrate) as a dict: state dicts
    under their keys, plain values as Python values, or the Parameters of a plain checkpoint. MindSpore adds
    '.ckpt' to a file name without it."""
    import os

    path = str(path)
    if not path.endswith(".ckpt") and os.path.exists(path + ".ckpt"):
        path += ".ckpt"
    out = {}
    for name, value in ms.load_checkpoint(path).items():
        key, sep, rest = name.partition("/")
        if name.startswith(":"):
            out[name[1:]] = value if isinstance(value, str) else value.asnumpy().item()
        elif sep:
            out.setdefault(key, {})[rest] = value
        else:
            out[name] = value
    return out
'''),
    "load_params": (("Module.load_state_dict", "torch.optim.Optimizer.load_state_dict"), '''
def load_params(cell, state_dict, strict=True):
    """Module.load_state_dict (written by msmigrate): copies the values into the Cell's (or optimizer's) Parameters
    in place; after ms.load_param_into_net an optimizer holding them no longer moves them (MindSpore 2.10)."""
    own = cell.parameters_dict()
    missing = [name for name in own if name not in state_dict]
    unexpected = [name for name in state_dict if name not in own]
    if strict and (missing or unexpected):
        raise RuntimeError(f"Error(s) in loading state_dict: missing keys {missing}, unexpected keys {unexpected}")
    for name, value in state_dict.items():
        if name in own:
            if tuple(value.shape) != tuple(own[name].shape):
                raise RuntimeError(f"size mismatch for {name}: {tuple(value.shape)} in the checkpoint, "
                                   f"{tuple(own[name].shape)} in the model")
            own[name].copy_(value)
    return missing, unexpected
'''),
    "data_loader": ("torch.utils.data.DataLoader", '''
def data_loader(dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                collate_fn=None, pin_memory=False, drop_last=False, **options):
    """DataLoader(dataset, ..., **kwargs) over a map-style dataset (written by msmigrate): ds.GeneratorDataset
    batched like PyTorch's default collate of tuples. Worker, pinning, prefetch and timeout options only affect
    speed and are ignored; samplers, collate_fn and generators are not converted and raise."""
    speed = {"timeout", "prefetch_factor", "persistent_workers", "pin_memory_device", "in_order"}
    refused = {"sampler": sampler, "batch_sampler": batch_sampler, "collate_fn": collate_fn,
               **{k: v for k, v in options.items() if k not in speed}}
    for key, value in refused.items():
        if value is not None:
            raise TypeError(f"DataLoader({key}=...) is not converted by msmigrate")
    if batch_size is None:
        raise TypeError("DataLoader(batch_size=None) is not converted by msmigrate")
    columns = [f"column_{i}" for i in range(len(dataset[0]))] if isinstance(dataset[0], tuple) else ["column_0"]
    loader = ds.GeneratorDataset(dataset, column_names=columns, shuffle=bool(shuffle))
    return loader.batch(batch_size, drop_remainder=drop_last)
'''),
}
