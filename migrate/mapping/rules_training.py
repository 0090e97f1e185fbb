"""Rules for optimizers, checkpoints and data loading (mappings/optim.toml, mappings/training.toml)."""
from __future__ import annotations

import libcst as cst

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
}


_DDP = ("torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel")


# -- data loading that must reproduce torch's order: seeded generators, splits, samplers, collate_fn ----------------
HELPERS.update({
    "SeededGenerator": (("torch.Generator", "torch.utils.data.DataLoader", "torch.utils.data.random_split",
                         "torch.utils.data.RandomSampler", "torch.utils.data.SubsetRandomSampler",
                         "torch.utils.data.distributed.DistributedSampler", "torch.utils.data.DistributedSampler"), '''
class SeededGenerator:
    """A random stream drawn like PyTorch's CPU Generator (written by msmigrate): the same Mersenne Twister
    (MT19937 seeded with the low 32 bits of the seed, numpy's RandomState) and the same Fisher-Yates permutation,
    so randperm(n), random_split and the data loaders shuffle exactly as the original script did."""

    def __init__(self, device=None):
        self.manual_seed(67280421310721)  # PyTorch's default seed

    def manual_seed(self, seed):
        import numpy as np

        self.seed_value = int(seed)
        self.state = np.random.RandomState(self.seed_value & 0xFFFFFFFF)
        return self

    def seed(self):
        import random

        return self.manual_seed(random.getrandbits(63)).seed_value

    def initial_seed(self):
        return self.seed_value

    def draw(self, count):
        """The next ``count`` raw 32-bit outputs of the stream."""
        import numpy as np

        return self.state.randint(0, 2 ** 32, size=count, dtype=np.uint64).tolist() if count > 0 else []

    def randperm(self, n):
        """A permutation of range(n) (a list), as PyTorch's CPU randperm draws it."""
        order = list(range(n))
        for i, z in enumerate(self.draw(n - 1)):
            j = i + z % (n - i)
            order[i], order[j] = order[j], order[i]
        return order
'''),
    "Subset": (("torch.utils.data.Subset", "torch.utils.data.random_split"), '''
class Subset:
    """PyTorch's Subset (written by msmigrate): the samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __len__(self):
        return len(self.indices)
'''),
    "random_split": ("torch.utils.data.random_split", '''
def random_split(dataset, lengths, generator=None):
    """PyTorch's random_split (written by msmigrate): lengths or fractions (the remainder is given out one by
    one from the first split); with a seeded generator the split is PyTorch's (same stream, same permutation).
    Without one the permutation is drawn from a stream seeded by ms.get_seed() (PyTorch's global stream is not
    reproduced)."""
    import math
    import random

    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = [math.floor(len(dataset) * frac) for frac in lengths]
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    if generator is None:
        seed = ms.get_seed()
        generator = SeededGenerator().manual_seed(random.getrandbits(63) if seed is None else seed)
    indices = generator.randperm(sum(lengths))
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, indices[offset:offset + length]))
        offset += length
    return out
'''),
    "TensorDataset": ("torch.utils.data.TensorDataset", '''
class TensorDataset:
    """PyTorch's TensorDataset (written by msmigrate): sample i is the tuple of row i of each tensor."""

    def __init__(self, *tensors):
        if any(len(t) != len(tensors[0]) for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return len(self.tensors[0])
'''),
    "MapDataLoader": ("torch.utils.data.DataLoader", '''
class MapDataLoader:
    """PyTorch's DataLoader over a map-style dataset (written by msmigrate), read in this process: the same batches
    in the same order as PyTorch's (in order; shuffled from a seeded generator exactly like PyTorch's RandomSampler,
    which also draws a 64-bit worker seed from it each epoch; a sampler; a batch sampler), made by collate_fn or
    PyTorch's default collation (Tensors and arrays stacked into Tensors, Python numbers into int64 / float64 /
    bool Tensors, tuples / lists / dicts per field, strings as lists). Worker, pinning, prefetch and timeout options
    only affect speed and are ignored (worker_init_fn is not called: no workers are started). Shuffling without a
    generator draws from a stream seeded by ms.get_seed(), not PyTorch's."""

    SPEED = {"prefetch_factor", "persistent_workers", "pin_memory_device", "in_order"}

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, **options):
        import random

        if set(options) - self.SPEED:
            raise TypeError(f"DataLoader got unexpected keyword arguments {sorted(set(options) - self.SPEED)}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.shuffle = sampler, batch_sampler, bool(shuffle)
        self.collate_fn, self.generator = collate_fn, generator
        seed = ms.get_seed()
        self.own_stream = SeededGenerator().manual_seed(random.getrandbits(63) if seed is None else seed)

    def indices(self):
        if self.sampler is not None:
            return iter(self.sampler)
        if not self.shuffle:
            return iter(range(len(self.dataset)))
        return self.shuffled(self.generator or self.own_stream, len(self.dataset))

    @staticmethod
    def shuffled(stream, n):
        yield from stream.randperm(n)
        stream.draw(n - 1)  # PyTorch's RandomSampler then draws the permutation of its last num_samples % n (none)

    def __iter__(self):
        if self.generator is not None:
            self.generator.draw(2)  # the workers' base seed PyTorch draws at each iteration
        if self.batch_sampler is not None:
            for batch in self.batch_sampler:
                yield (self.collate_fn or self.default_collate)([self.dataset[i] for i in batch])
            return
        if self.batch_size is None:
            for i in self.indices():
                yield self.collate_fn(self.dataset[i]) if self.collate_fn else self.default_convert(self.dataset[i])
            return
        batch = []
        for i in self.indices():
            batch.append(i)
            if len(batch) == self.batch_size:
                yield (self.collate_fn or self.default_collate)([self.dataset[j] for j in batch])
                batch = []
        if batch and not self.drop_last:
            yield (self.collate_fn or self.default_collate)([self.dataset[j] for j in batch])

    def __len__(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    @classmethod
    def default_convert(cls, data):
        import collections.abc

        import numpy as np

        if isinstance(data, np.ndarray) and data.dtype.kind not in "USO":
            return ms.Tensor(data)
        if type(data).__module__ == "torch" and hasattr(data, "numpy"):  # a kept torch pipeline's sample
            return ms.Tensor(data.detach().cpu().numpy())
        if isinstance(data, collections.abc.Mapping):
            return {key: cls.default_convert(data[key]) for key in data}
        if isinstance(data, tuple) and hasattr(data, "_fields"):
            return type(data)(*(cls.default_convert(d) for d in data))
        if isinstance(data, (list, tuple)):
            return type(data)(cls.default_convert(d) for d in data)
        return data

    @classmethod
    def default_collate(cls, batch):
        import collections.abc

        import numpy as np

        elem = batch[0]
        if isinstance(elem, ms.Tensor):
            return ops.stack(batch)
        if type(elem).__module__ == "torch" and hasattr(elem, "numpy"):  # a kept torch pipeline's sample
            return ms.Tensor(np.stack([b.detach().cpu().numpy() for b in batch]))
        if isinstance(elem, (np.ndarray, np.generic)) and elem.dtype.kind not in "USO":
            return ms.Tensor(np.stack([np.asarray(b) for b in batch]))
        if isinstance(elem, float):
            return ms.Tensor(np.array(batch, np.float64))
        if isinstance(elem, int):
            return ms.Tensor(np.array(batch, np.bool_ if all(isinstance(b, bool) for b in batch) else np.int64))
        if isinstance(elem, (str, bytes)):
            return batch
        if isinstance(elem, collections.abc.Mapping):
            return {key: cls.default_collate([d[key] for d in batch]) for key in elem}
        if isinstance(elem, tuple) and hasattr(elem, "_fields"):
            return type(elem)(*(cls.default_collate(list(s)) for s in zip(*batch)))
        if isinstance(elem, collections.abc.Sequence):
            if any(len(b) != len(elem) for b in batch):
                raise RuntimeError("each element in list of batch should be of equal size")
            return [cls.default_collate(list(s)) for s in zip(*batch)]
        raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                        f"found {type(elem)}")
'''),
    "DistributedSampler": (("torch.utils.data.distributed.DistributedSampler", "torch.utils.data.DistributedSampler"), '''
class DistributedSampler:
    """PyTorch's DistributedSampler (written by msmigrate): this process's share of the dataset's
    indices exactly as PyTorch's: shuffled per epoch (set_epoch) from seed + epoch, padded by repetition (or cut when
    drop_last) to a multiple of the number of processes, then every num_replicas-th index from rank. The process
    group is MindSpore's (msrun): get_group_size() processes, this one get_rank()."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        import math

        if num_replicas is None:
            num_replicas = ms.communication.get_group_size()
        if rank is None:
            rank = ms.communication.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank, self.epoch = dataset, num_replicas, rank, 0
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        if drop_last and len(dataset) % num_replicas:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        import math

        n = len(self.dataset)
        indices = SeededGenerator().manual_seed(self.seed + self.epoch).randperm(n) if self.shuffle else list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            indices += indices[:pad] if pad <= len(indices) else (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch
'''),
    # -- torch.distributed under torchrun -> MindSpore data parallel under msrun --------------------------------------
    "init_data_parallel": ("torch.distributed.init_process_group", '''
def init_data_parallel():
    """PyTorch's init_process_group -> MindSpore data parallel under msrun (written by msmigrate): joins the
    processes msrun started (communication.init) and sets DATA_PARALLEL with averaged gradients; in PyNative mode
    the training step averages them itself (all_reduce_gradients)."""
    ms.communication.init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
'''),
    "launcher_env": ("torch.distributed.init_process_group", '''
def launcher_env(name, *default):
    """os.environ[name] for a variable PyTorch's launcher sets, read under msrun (written by msmigrate): LOCAL_RANK ->
    DEVICE_ID, RANK -> RANK_ID, WORLD_SIZE -> MS_WORKER_NUM (msrun sets no LOCAL_RANK / RANK / WORLD_SIZE,
    measured). msrun also runs the script as its scheduler (MS_ROLE=MS_SCHED), which stops inside
    communication.init() and has no rank variables: a rank read before init_data_parallel() is "0" there."""
    import os

    key = {"LOCAL_RANK": "DEVICE_ID", "RANK": "RANK_ID", "WORLD_SIZE": "MS_WORKER_NUM"}[name]
    if os.environ.get("MS_ROLE") == "MS_SCHED" and key not in os.environ:
        return "0"
    return os.environ.get(key, *default) if default else os.environ[key]
'''),
    "data_parallel_barrier": ("torch.distributed.barrier", '''
def data_parallel_barrier():
    """PyTorch's distributed barrier (written by msmigrate): MindSpore has no CPU Barrier kernel (measured); an
    AllReduce returns only once every process has reached it."""
    ops.AllReduce()(ms.Tensor([0.0], ms.float32)).asnumpy()
'''),
    "DistributedDataParallel": (_DDP, '''
class DistributedDataParallel(nn.Cell):
    """PyTorch's DistributedDataParallel (written by msmigrate): the network is ``module`` (its parameters
    keep their names); when built under data parallel (init_data_parallel) rank 0's parameters and buffers are
    broadcast to every process, and with broadcast_buffers rank 0's buffers (BatchNorm statistics) again before each
    forward in training mode (PyTorch: before each forward after one with gradients enabled); the training step
    averages the gradients of its parameters over the processes (all_reduce_gradients), as PyTorch's backward does."""

    parameter_ids = set()

    def __init__(self, module, broadcast_buffers=True, init_buffers=None):
        super().__init__(auto_prefix=False)
        self.module, self.broadcast_buffers = module, broadcast_buffers
        self.distributed = ms.get_auto_parallel_context("parallel_mode") == ms.ParallelMode.DATA_PARALLEL
        if self.distributed:
            sync_buffers = broadcast_buffers if init_buffers is None else init_buffers
            for p in module.get_parameters():
                if p.requires_grad or sync_buffers:
                    self.from_rank0(p)
            DistributedDataParallel.parameter_ids.update(id(p) for p in module.trainable_params())

    @staticmethod
    def from_rank0(p):
        p.set_data(ops.Broadcast(0)((p.value(),))[0])

    def construct(self, *args, **kwargs):
        if self.distributed and self.broadcast_buffers and self.training:
            for p in self.module.get_parameters():
                if not p.requires_grad:
                    self.from_rank0(p)
        return self.module(*args, **kwargs)
'''),
    "all_reduce_gradients": (_DDP, '''
def all_reduce_gradients(parameters, grads):
    """DistributedDataParallel's gradient averaging (written by msmigrate): the gradients of the parameters of
    DistributedDataParallel cells are divided by the number of processes and summed over them (ops.AllReduce), as
    PyTorch's DDP does in backward(); other gradients are left as they are."""
    ids = DistributedDataParallel.parameter_ids
    if not ids:
        return grads
    allreduce, size = ops.AllReduce(), ms.communication.get_group_size()
    return tuple(allreduce(g / size) if id(p) in ids else g for p, g in zip(parameters, grads))
'''),
})

# -- torch's samplers, drawing from a SeededGenerator as torch's do -------------------------------------------------
HELPERS.update({
    "SequentialSampler": (("torch.utils.data.SequentialSampler", "torch.utils.data.sampler.SequentialSampler"), '''
class SequentialSampler:
    """PyTorch's SequentialSampler (written by msmigrate): 0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)
'''),
    "RandomSampler": (("torch.utils.data.RandomSampler", "torch.utils.data.sampler.RandomSampler"), '''
class RandomSampler:
    """PyTorch's RandomSampler (written by msmigrate): with a seeded generator the same indices as PyTorch's
    (permutations of the dataset, or with replacement draws taken 32 at a time); without one they come from a stream
    seeded by ms.get_seed(), not PyTorch's global stream."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        import random

        self.data_source, self.replacement, self._num_samples, self.generator = (data_source, replacement,
                                                                                 num_samples, generator)
        seed = ms.get_seed()
        self.own_stream = SeededGenerator().manual_seed(random.getrandbits(63) if seed is None else seed)

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, stream = len(self.data_source), self.generator or self.own_stream
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from [z % n for z in stream.draw(32)]
            yield from [z % n for z in stream.draw(self.num_samples % 32)]
        else:
            for _ in range(self.num_samples // n):
                yield from stream.randperm(n)
            yield from stream.randperm(n)[:self.num_samples % n]

    def __len__(self):
        return self.num_samples
'''),
    "SubsetRandomSampler": (("torch.utils.data.SubsetRandomSampler", "torch.utils.data.sampler.SubsetRandomSampler"), '''
class SubsetRandomSampler:
    """PyTorch's SubsetRandomSampler (written by msmigrate): ``indices`` in a random order, PyTorch's with a seeded
    generator (a stream seeded by ms.get_seed() without one)."""

    def __init__(self, indices, generator=None):
        import random

        self.indices, self.generator = indices, generator
        seed = ms.get_seed()
        self.own_stream = SeededGenerator().manual_seed(random.getrandbits(63) if seed is None else seed)

    def __iter__(self):
        for i in (self.generator or self.own_stream).randperm(len(self.indices)):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)
'''),
    "BatchSampler": (("torch.utils.data.BatchSampler", "torch.utils.data.sampler.BatchSampler"), '''
class BatchSampler:
    """PyTorch's BatchSampler (written by msmigrate): lists of batch_size indices of ``sampler``, the last one shorter
    unless drop_last."""

    def __init__(self, sampler, batch_size, drop_last):
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        return len(self.sampler) // self.batch_size if self.drop_last else -(-len(self.sampler) // self.batch_size)
'''),
})
