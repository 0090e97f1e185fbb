"""Rules for optimizers, checkpoints and data loading (mappings/optim.toml, mappings/training.toml)."""
from __future__ import annotations

import libcst as cst

from .. import helpers
from ..core.cst_util import NOT_LITERAL, Unsupported, code, expr


class _TrainableParams(cst.CSTTransformer):
    """``_msmigrate_parameters(X)`` (the converted ``X.parameters()``) -> ``X.trainable_params()``."""

    def leave_Call(self, original, updated):
        f = updated.func
        if isinstance(f, cst.Attribute) and f.attr.value == "get_parameters" and not updated.args:
            return updated.with_changes(func=f.with_changes(attr=cst.Name("trainable_params")))
        if (isinstance(f, cst.Name) and f.value == "_msmigrate_parameters" and len(updated.args) == 1
                and updated.args[0].keyword is None):
            return cst.Call(func=cst.Attribute(value=updated.args[0].value, attr=cst.Name("trainable_params")))
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
    "Select CPU operator[MatMul] fail! Unsupported data type"). ``enabled=False``: a context that does nothing
    (helper ``_MsmigrateNoAutocast``): MindSpore has no autocast region to leave."""
    enabled = call.literal("enabled", absent=True)
    if enabled is False:  # efficientvit's attention: a block kept out of autocast runs as written in MindSpore
        call.replacement = expr("_MsmigrateNoAutocast()")
        return
    device = call.literal("device_type", absent="cuda")
    dtype = call.src("dtype")
    if dtype is None:
        if call.entry.torch == "torch.cuda.amp.autocast" or device == "cuda":
            dtype = "ms.float16"
        elif device is NOT_LITERAL and enabled is not True:
            # torch.autocast(device.type, enabled=amp): the scripts that write it enable AMP on cuda, where torch
            # casts to float16 (on CPU torch would use bfloat16, which MindSpore's CPU MatMul does not run)
            dtype = "ms.float16"
        else:
            raise Unsupported(f"device_type={device!r} without dtype autocasts to bfloat16, which MindSpore's CPU "
                              "MatMul does not run (measured); dtype=torch.float16 is converted")
    if dtype != "ms.float16":
        raise Unsupported(f"dtype={dtype}: only float16 is converted (bfloat16 MatMul has no MindSpore CPU kernel, "
                          "measured)")
    if enabled is not True:  # enabled=amp: the training pass casts the network only when it holds
        call.replacement = expr(f"ms.amp.autocast_O1(enabled={call.src('enabled')})")
        return
    call.replacement = expr("ms.amp.autocast_O1()")


def grad_scaler(call) -> None:
    """GradScaler(init_scale=2**16, growth_factor=2, backoff_factor=0.5, growth_interval=2000) ->
    ``ms.amp.DynamicLossScaler(scale_value, scale_factor, scale_window)``, which divides by scale_factor on overflow
    (so backoff_factor must be 1 / growth_factor) and never goes below 1 (torch can)."""
    enabled = call.literal("enabled", absent=True)
    if enabled is False:
        raise Unsupported("enabled=False is not converted")
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
    scaler = f"ms.amp.DynamicLossScaler(scale_value={scale}, scale_factor={growth}, scale_window={window})"
    if enabled is not True:  # GradScaler(enabled=amp): disabled, torch's scale / unscale_ are identities
        scaler = f"{scaler} if {call.src('enabled')} else ms.amp.StaticLossScaler(1.0)"
    call.replacement = expr(scaler)


def _calls(node, attr):
    found = []

    class V(cst.CSTVisitor):
        def visit_Call(self, n):
            if isinstance(n.func, cst.Attribute) and n.func.attr.value == attr:
                found.append(n)

    node.visit(V())
    return found


_LOADER_SPEED = {"num_workers", "pin_memory", "timeout", "prefetch_factor", "persistent_workers", "pin_memory_device",
                 "in_order"}


def dataloader(call) -> None:
    """``DataLoader(dataset, batch_size=1, shuffle=False, drop_last=False)`` over a map-style dataset ->
    ``ds.GeneratorDataset(dataset, column_names=..., shuffle=...).batch(batch_size, drop_remainder=...)``.
    Iterating it yields tuples of Tensors like torch's default collate of a tuple-returning ``__getitem__``.
    Worker, pinning and prefetch options only affect speed and are dropped. What a GeneratorDataset does not do as
    torch does -- a sampler or batch sampler, a collate_fn, a seeded ``generator=`` (torch's shuffled order),
    ``batch_size=None``, worker options beyond speed, or ``**kwargs`` whose keys are known only when it runs --
    becomes ``MapDataLoader(...)``, a helper written into the file that reads the dataset like torch's DataLoader
    with num_workers=0 (same batches, same order). So does a dataset built in the call (GeneratorDataset's column
    names would build it three times and read a sample) and any loader of a file that keeps torchvision's data
    pipeline: its samples (torch tensors, dicts of them) become MindSpore tensors at the loader's boundary."""
    exact = {"sampler", "batch_sampler", "collate_fn", "generator", "worker_init_fn", "multiprocessing_context"}
    dataset_node = call.bound.get("dataset")
    evaluated_once = dataset_node is None or isinstance(dataset_node, (cst.Name, cst.Attribute)) or (
        isinstance(dataset_node, cst.Call) and not dataset_node.args)
    if (call.kwargs or any(code(call.bound[k]) != "None" for k in exact & call.bound.keys()) or not evaluated_once
            or getattr(call, "torch_data", False)):
        # not evaluated_once: GeneratorDataset's column names read ``dataset[0]``: a dataset built there would be
        # built three times (and its first sample read once more, drawing its augmentation's random numbers);
        # torch_data: the file keeps torchvision's pipeline, whose samples (torch tensors, dicts) MapDataLoader
        # turns into MindSpore tensors at the boundary
        call.replacement = call.node.with_changes(func=expr("MapDataLoader"))
        return
    batch = call.literal("batch_size", absent=1)
    if batch is None:
        call.replacement = call.node.with_changes(func=expr("MapDataLoader"))
        return
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


def distributed_data_parallel(call) -> None:
    """``DistributedDataParallel(module, device_ids=[local_rank], ...)`` -> ``DistributedDataParallel(module)``, a
    Cell written into the file (rank 0's weights broadcast when built, buffers before each training forward, the
    training step averages its gradients). Device placement and bucketing options have no MindSpore meaning."""
    for name in ("process_group", "device_mesh", "mixed_precision", "delay_all_reduce_named_params",
                 "param_to_hook_all_reduce"):
        if name in call.bound and code(call.bound[name]) != "None":
            raise Unsupported(f"{name}= is not converted (the whole msrun group averages the gradients)")
    if "init_sync" in call.bound and code(call.bound["init_sync"]) != "True":
        raise Unsupported("init_sync=False is not converted (rank 0's weights are broadcast when it is built)")
    if "dim" in call.bound and code(call.bound["dim"]) != "0":
        raise Unsupported("dim= is not converted")
    args = [code(call.bound["module"])]
    forward = call.src("forward_sync_buffers")
    broadcast = call.src("broadcast_buffers")
    if forward is not None and forward != "None":
        args += [f"broadcast_buffers={forward}", "init_buffers=True"]
    elif broadcast is not None and broadcast != "None":
        args.append(f"broadcast_buffers={broadcast}")
    call.replacement = expr(f"DistributedDataParallel({', '.join(args)})")


def all_reduce(call) -> None:
    """``dist.all_reduce(t)`` / ``op=ReduceOp.SUM`` (in place) -> ``t.copy_(ops.AllReduce()(t))``. Other reductions are
    refused: MindSpore's CPU AllReduce only sums (measured), so they could not be proven here."""
    op = call.src("op")
    if op not in (None, "ops.ReduceOp.SUM"):
        raise Unsupported(f"op={op}: only ReduceOp.SUM is converted (MindSpore's CPU AllReduce only sums, measured)")
    for name, ok in (("group", "None"), ("async_op", "False")):
        if name in call.bound and code(call.bound[name]) != ok:
            raise Unsupported(f"{name}= is not converted")
    tensor = code(call.bound["tensor"])
    call.replacement = expr(f"{tensor}.copy_(ops.AllReduce()({tensor}))")


def init_process_group(call) -> None:
    """``dist.init_process_group("gloo" | "nccl", ...)`` under torchrun -> ``init_data_parallel()`` under msrun (a
    helper written into the file: communication.init() + DATA_PARALLEL). msrun gives each process its rank and the
    group size (--worker_num), so world_size / rank / timeout / device_id are dropped; a rendezvous other than
    torchrun's environment (init_method='tcp://...', a store) is not what msrun replaces."""
    init = call.literal("init_method", absent=None)
    if init not in (None, "env://"):
        raise Unsupported("init_method other than 'env://' (torchrun's environment) is not converted: launch with "
                          "msrun, which takes the rendezvous's place")
    for name in ("store", "pg_options", "_ranks"):
        if name in call.bound and code(call.bound[name]) != "None":
            raise Unsupported(f"{name}= is not converted (msrun sets up the process group)")
    call.replacement = expr("init_data_parallel()")


def requires_grad_(call) -> None:
    """``X.requires_grad_(flag)`` recognised by name: ``setattr(X, 'requires_grad', flag)`` when X is known to be a
    tensor (a Parameter); otherwise X may be a module (``model.encoder.requires_grad_(False)``: setting an attribute
    of a Cell would freeze nothing), so a helper decides when it runs."""
    if (getattr(call, "receiver_is_tensor", False) and isinstance(call.receiver, (cst.Name, cst.Attribute))
            and getattr(call, "is_statement", True)):
        return  # p.requires_grad_(False): setattr (`r = p.requires_grad_()` uses the value: the helper returns p)
    flag = code(call.bound["requires_grad"]) if "requires_grad" in call.bound else "True"
    call.replacement = expr(f"_msmigrate_requires_grad_({code(call.receiver)}, {flag})")


RULES = {f.__name__: f for f in (optim_params, save_state_dict, load_checkpoint, dataloader, autocast, grad_scaler,
                                 distributed_data_parallel, init_process_group, all_reduce, requires_grad_)}


# Definitions some entries' targets need in a converted script (converted code never imports msmigrate): name ->
# (the torch API(s) whose conversion emits it, source), from the one helper registry (migrate/helpers/templates/
# script/NAME.py). The training pass writes each one the converted file calls (and does not define itself) after
# its imports.
HELPERS = helpers.script_helpers()
