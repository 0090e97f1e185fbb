"""Rules for optimizers, checkpoints and data loading (mappings/optim.toml, mappings/training.toml)."""
from __future__ import annotations

import libcst as cst

from ..rewrite.calls import Unsupported, code, expr


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
    """``torch.save(model.state_dict(), path)`` -> ``ms.save_checkpoint(model, path)``. Any other object would
    need pickling, which MindSpore checkpoints do not do."""
    for name in ("pickle_module", "pickle_protocol", "_use_new_zipfile_serialization"):
        if name in call.bound:
            raise Unsupported(f"{name}: no MindSpore equivalent")
    obj = call.bound.get("obj")
    if (isinstance(obj, cst.Call) and isinstance(obj.func, cst.Attribute)
            and obj.func.attr.value == "parameters_dict" and not obj.args):
        call.replacement = expr(f"ms.save_checkpoint({code(obj.func.value)}, {code(call.bound['f'])})")
        return
    raise Unsupported("only torch.save(model.state_dict(), path) is converted (other objects need pickle)")


def dataloader(call) -> None:
    """``DataLoader(dataset, batch_size=1, shuffle=False, drop_last=False)`` over a map-style dataset ->
    ``ds.GeneratorDataset(dataset, column_names=..., shuffle=...).batch(batch_size, drop_remainder=...)``.
    Iterating it yields tuples of Tensors like torch's default collate of a tuple-returning ``__getitem__``.
    Worker, pinning and prefetch options only affect speed and are dropped."""
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


RULES = {f.__name__: f for f in (optim_params, save_state_dict, dataloader)}


# Definitions some entries' targets need in the converted file (converted code never imports msmigrate): torch API
# -> (name the entry's `ms` emits, source). The training pass writes each one the file converted after its imports.
HELPERS = {
    "torch.nn.CrossEntropyLoss": ("CrossEntropyLoss", '''
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
}
