"""torch state_dict <-> MindSpore checkpoint.

The per-layer rename rules live in ``mappings/weights.toml`` (keyed by MindSpore cell class, each
naming the torch classes it replaces); this module only applies them:

* with a network (a MindSpore cell, or a torch module) the mapping is exact: the module tree is
  walked and each layer's class picks its rule;
* without one, ``[[infer]]`` rules recognise layers from sibling tensor names (``running_mean``
  next to ``weight`` => BatchNorm, ...) and every inferred rule is reported.

Public API::

    mapping = torch_to_mindspore(torch_model.state_dict(), ms_net)   # loads into ms_net
    state_dict = mindspore_to_torch(ms_net, torch_model=None)

Every problem is raised as :class:`WeightsError` whose message is one line naming the file or the
tensor and both shapes. Nothing is loaded into a network before every tensor has been checked, and
files are written to a temporary name, then renamed.
"""
from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np

from .mapping.table import builtin_mappings_dir

RULES_FILE = builtin_mappings_dir() / "weights.toml"
_WRAPPER_KEYS = ("state_dict", "model_state_dict", "model", "net", "module")


class WeightsError(ValueError):
    """A weight file or tensor that cannot be converted; the message is one line for the user."""


# --------------------------------------------------------------------------------------- rules
@dataclass(frozen=True)
class LayerRule:
    """How one MindSpore cell class names the tensors of the torch layer(s) it replaces."""

    cell: str
    torch: tuple[str, ...] = ()
    params: dict = field(default_factory=dict)  # torch name -> MindSpore name (layer-relative)
    torch_only: tuple[str, ...] = ()
    expand_dims: dict = field(default_factory=dict)  # torch name -> axis inserted for MindSpore

    def __hash__(self):
        return hash(self.cell)

    @property
    def ms_to_torch(self) -> dict:
        return {v: k for k, v in self.params.items()}


@dataclass(frozen=True)
class InferRule:
    """Recognise a layer from the names (and ranks) of its tensors when no network is given."""

    cell: str
    when_torch: tuple[str, ...] = ()
    when_ms: tuple[str, ...] = ()
    ndim: tuple = ()  # ((name, rank), ...) on the torch side
    only: bool = False
    note: str = ""

    def matches(self, names: dict, side: str) -> bool:
        """``names``: layer-relative tensor name -> shape, on ``side`` ('torch' or 'ms')."""
        want = self.when_torch if side == "torch" else self.when_ms
        if not want or not set(want) <= set(names):
            return False
        if self.only and set(names) != set(want):
            return False
        if side == "torch":
            return all(len(names[n]) == r for n, r in self.ndim if n in names)
        return True


@dataclass(frozen=True)
class Rules:
    by_cell: dict
    by_torch: dict
    infer: tuple


@lru_cache(maxsize=None)
def load_rules(path: str | None = None) -> Rules:
    """Parse and validate mappings/weights.toml."""
    path = Path(path) if path else RULES_FILE
    with open(path, "rb") as fh:
        data = tomllib.load(fh)
    by_cell, by_torch = {}, {}
    for cell, spec in data.items():
        if cell == "infer":
            continue
        unknown = set(spec) - {"torch", "params", "torch_only", "expand_dims"}
        if unknown:
            raise WeightsError(f"{path}: [{cell}] has unknown keys {sorted(unknown)}")
        rule = LayerRule(
            cell=cell,
            torch=tuple(spec.get("torch", ())),
            params=dict(spec.get("params", {})),
            torch_only=tuple(spec.get("torch_only", ())),
            expand_dims={k: int(v) for k, v in spec.get("expand_dims", {}).items()},
        )
        by_cell[cell] = rule
        for t in rule.torch:
            by_torch[t] = rule
    infer = []
    for spec in data.get("infer", []):
        if spec["cell"] not in by_cell:
            raise WeightsError(f"{path}: [[infer]] names unknown cell {spec['cell']!r}")
        infer.append(
            InferRule(
                cell=spec["cell"],
                when_torch=tuple(spec.get("when_torch", ())),
                when_ms=tuple(spec.get("when_ms", ())),
                ndim=tuple(spec.get("ndim", {}).items()),
                only=bool(spec.get("only", False)),
                note=spec.get("note", ""),
            )
        )
    return Rules(by_cell, by_torch, tuple(infer))


def _rule_for_class(cls, table: dict, framework: str):
    """The rule for a class or its nearest framework base class (user subclasses of nn.BatchNorm2d)."""
    for base in cls.__mro__:
        # generated helper Cells (migrate/helpers: _MsmigrateInstanceNorm...) live in the converted module itself
        generated = framework == "mindspore" and base.__name__.startswith("_Msmigrate")
        if base.__name__ in table and (generated or base.__module__.split(".")[0] == framework):
            return table[base.__name__]
    return None


# ----------------------------------------------------------------------------------- name map
@dataclass
class Entry:
    torch_name: str
    ms_name: str
    expand_axis: int | None = None


@dataclass
class NameMap:
    """The correspondence used for one conversion."""

    entries: list = field(default_factory=list)
    dropped: list = field(default_factory=list)  # torch-only names (num_batches_tracked)
    inferred: list = field(default_factory=list)  # (layer, cell, note) when no network was given

    def torch_to_ms(self) -> dict:
        return {e.torch_name: e.ms_name for e in self.entries}

    def ms_to_torch(self) -> dict:
        return {e.ms_name: e.torch_name for e in self.entries}

    def inferred_summary(self) -> list[str]:
        """One line per inferred rule: which layers it was applied to, and why."""
        groups: dict = {}
        for layer, cell, note in self.inferred:
            groups.setdefault((cell, note), []).append(layer or "(root)")
        lines = []
        for (cell, note), layers in groups.items():
            shown = ", ".join(layers[:6]) + (f", ... ({len(layers)} layers)" if len(layers) > 6 else "")
            lines.append(f"inferred {cell} for {shown}: {note}")
        return lines


def _join(prefix: str, name: str) -> str:
    return f"{prefix}.{name}" if prefix else name


def _split(name: str) -> tuple[str, str]:
    return tuple(name.rsplit(".", 1)) if "." in name else ("", name)


def _apply_rule(nm: NameMap, prefix: str, rule: LayerRule, torch_names, claimed: set, ms_exists=None):
    """Add entries for one layer. ``torch_names``: its layer-relative torch tensor names."""
    for t in torch_names:
        full_t = _join(prefix, t)
        if t in rule.torch_only:
            nm.dropped.append(full_t)
            continue
        full_m = _join(prefix, rule.params.get(t, t))
        if ms_exists is not None and full_m not in ms_exists:
            continue
        if full_m in claimed:
            continue
        claimed.add(full_m)
        nm.entries.append(Entry(full_t, full_m, rule.expand_dims.get(t)))


def map_from_ms_net(ms_net, rules: Rules | None = None) -> NameMap:
    """Exact map from a MindSpore cell tree (paths as in ``parameters_and_names``)."""
    rules = rules or load_rules()
    ms_names = [n for n, _ in ms_net.parameters_and_names()]
    exists = set(ms_names)
    nm, claimed = NameMap(), set()
    for prefix, cell in ms_net.cells_and_names():
        rule = _rule_for_class(type(cell), rules.by_cell, "mindspore")
        if rule is None:
            continue
        torch_rel = list(rule.params) + [t for t in rule.expand_dims if t not in rule.params]
        _apply_rule(nm, prefix, rule, torch_rel, claimed, ms_exists=exists)
        nm.dropped.extend(_join(prefix, t) for t in rule.torch_only)
    for n in ms_names:
        if n not in claimed:
            claimed.add(n)
            nm.entries.append(Entry(n, n))
    order = {n: i for i, n in enumerate(ms_names)}
    nm.entries.sort(key=lambda e: order[e.ms_name])
    return nm


def map_from_torch_model(torch_model, rules: Rules | None = None) -> NameMap:
    """Exact map from a torch module tree (names as in its ``state_dict``)."""
    rules = rules or load_rules()
    sd_names = list(torch_model.state_dict().keys())
    nm, claimed, done = NameMap(), set(), set()
    for prefix, module in torch_model.named_modules():
        rule = _rule_for_class(type(module), rules.by_torch, "torch")
        if rule is None:
            continue
        own = [n for n in sd_names if _split(n)[0] == prefix]
        _apply_rule(nm, prefix, rule, [_split(n)[1] for n in own], claimed)
        done.update(own)
    for n in sd_names:
        if n not in done and n not in claimed:
            claimed.add(n)
            nm.entries.append(Entry(n, n))
    return nm


def _group(shapes: dict) -> dict:
    groups: dict = {}
    for name, shape in shapes.items():
        prefix, rel = _split(name)
        groups.setdefault(prefix, {})[rel] = tuple(shape)
    return groups


def infer_from_torch(shapes: dict, rules: Rules | None = None) -> NameMap:
    """Map a bare state_dict (name -> shape) by recognising layers from sibling names."""
    rules = rules or load_rules()
    nm, claimed = NameMap(), set()
    for prefix, names in _group(shapes).items():
        rule = next((r for r in rules.infer if r.matches(names, "torch")), None)
        if rule is not None:
            nm.inferred.append((prefix, rule.cell, rule.note))
            _apply_rule(nm, prefix, rules.by_cell[rule.cell], list(names), claimed)
        else:
            for rel in names:
                nm.entries.append(Entry(_join(prefix, rel), _join(prefix, rel)))
    return nm


def infer_from_ms(shapes: dict, rules: Rules | None = None) -> NameMap:
    """Map a bare MindSpore checkpoint (name -> shape) back to torch names."""
    rules = rules or load_rules()
    nm = NameMap()
    for prefix, names in _group(shapes).items():
        rule = next((r for r in rules.infer if r.matches(names, "ms")), None)
        layer = rules.by_cell[rule.cell] if rule else None
        if rule is not None:
            nm.inferred.append((prefix, rule.cell, rule.note))
            nm.dropped.extend(_join(prefix, t) for t in layer.torch_only)
        back = layer.ms_to_torch if layer else {}
        for rel in names:
            t = back.get(rel, rel)
            axis = layer.expand_dims.get(t) if layer else None
            nm.entries.append(Entry(_join(prefix, t), _join(prefix, rel), axis))
    return nm


# ------------------------------------------------------------------------------ array helpers
def _to_numpy(value) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    if hasattr(value, "detach"):  # torch.Tensor
        t = value.detach().cpu()
        if str(t.dtype) == "torch.bfloat16":
            t = t.float()
        return t.numpy()
    if hasattr(value, "asnumpy"):  # mindspore Tensor / Parameter
        return value.asnumpy()
    return np.asarray(value)


def _to_ms_layout(arr: np.ndarray, entry: Entry) -> np.ndarray:
    return np.expand_dims(arr, entry.expand_axis) if entry.expand_axis is not None else arr


def _to_torch_layout(arr: np.ndarray, entry: Entry) -> np.ndarray:
    if entry.expand_axis is None:
        return arr
    if arr.ndim <= entry.expand_axis or arr.shape[entry.expand_axis] != 1:
        raise WeightsError(
            f"{entry.ms_name}: MindSpore shape {tuple(arr.shape)} has no size-1 axis {entry.expand_axis} "
            f"to drop for torch {entry.torch_name}"
        )
    return np.squeeze(arr, entry.expand_axis)


_NP_DTYPES = {"float16": np.float16, "float32": np.float32, "float64": np.float64, "bfloat16": np.float32,
              "int8": np.int8, "int16": np.int16, "int32": np.int32, "int64": np.int64, "uint8": np.uint8,
              "bool": np.bool_}


def _np_dtype(ms_dtype):
    """numpy dtype for a MindSpore dtype (mindspore.dtype_to_nptype is deprecated in 2.10)."""
    return _NP_DTYPES.get(str(ms_dtype).lower(), np.float32)


def _shape(x) -> tuple:
    return tuple(int(d) for d in x.shape)


# ---------------------------------------------------------------------------------- in memory
def _aliases(sd: dict, used: set) -> set:
    """Names of ``sd`` whose tensor is another, loaded name's own tensor (same storage, shape and strides: CoaT's
    shared positional encoder ``serial_blocks1.0.cpe`` is ``cpe1``); torch's state_dict lists each path."""
    def key(v):
        if not hasattr(v, "data_ptr"):
            return None
        return (v.data_ptr(), tuple(v.shape), tuple(v.stride()), str(v.dtype))

    loaded = {key(sd[k]) for k in used} - {None}
    return {k for k, v in sd.items() if k not in used and key(v) in loaded}


def torch_to_mindspore(state_dict, ms_net, strict: bool = True) -> dict:
    """Load a torch ``state_dict`` into ``ms_net``; return the name map used {torch name: ms name}.

    ``ms_net`` may be a whole network, a single layer (parameter names without prefix) or a cell
    with no parameters at all. Every tensor is checked before anything is loaded. With
    ``strict`` (default) a torch tensor with no MindSpore home, or a trainable MindSpore parameter
    with no torch tensor, is an error; ``num_batches_tracked`` is always dropped, and so is a second path to a
    loaded tensor (a module registered twice).
    """
    import mindspore as ms

    nm = map_from_ms_net(ms_net)
    params = dict(ms_net.parameters_and_names())
    sd = dict(state_dict)
    plan, missing, used = [], [], set()
    for e in nm.entries:
        p = params[e.ms_name]
        if e.torch_name not in sd:
            if p.requires_grad:
                missing.append(f"{e.torch_name} (for {e.ms_name} {_shape(p)})")
            continue
        used.add(e.torch_name)
        arr = _to_ms_layout(_to_numpy(sd[e.torch_name]), e)
        if tuple(arr.shape) != _shape(p):
            raise WeightsError(
                f"{e.torch_name}: torch shape {tuple(_to_numpy(sd[e.torch_name]).shape)} does not fit "
                f"MindSpore {e.ms_name} shape {_shape(p)}"
            )
        plan.append((p, arr, e))
    dropped = set(nm.dropped)
    extra = [k for k in sd if k not in used and k not in dropped and not k.endswith("num_batches_tracked")]
    shared = _aliases(sd, used)  # one module registered under two paths: MindSpore lists its parameters once
    extra = [k for k in extra if k not in shared]
    if strict and missing:
        raise WeightsError(f"state_dict lacks {len(missing)} tensor(s) the MindSpore network needs: "
                           + ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else ""))
    if strict and extra:
        raise WeightsError(f"{len(extra)} torch tensor(s) have no MindSpore parameter: "
                           + ", ".join(f"{k} {_shape(sd[k])}" for k in extra[:5])
                           + (" ..." if len(extra) > 5 else ""))
    for p, arr, _ in plan:
        p.set_data(ms.Tensor(np.ascontiguousarray(arr).astype(_np_dtype(p.dtype), copy=False)))
    return {e.torch_name: e.ms_name for _, _, e in plan}


def mindspore_to_torch(ms_net, torch_model=None) -> dict:
    """Return a torch ``state_dict`` holding ``ms_net``'s parameters.

    With ``torch_model`` the names, order and shapes are checked against its own state_dict and
    ``num_batches_tracked`` is taken from it; without, it is set to 0 for every BatchNorm.
    """
    import torch

    nm = map_from_ms_net(ms_net)
    params = dict(ms_net.parameters_and_names())
    out = {e.torch_name: _to_torch_layout(params[e.ms_name].asnumpy(), e) for e in nm.entries}
    out = {k: torch.from_numpy(np.array(v)) for k, v in out.items()}
    filler = {n: torch.tensor(0, dtype=torch.long) for n in nm.dropped}
    if torch_model is None:
        out.update(filler)
        return out
    ref = torch_model.state_dict()
    for k in ref:
        if k not in out and k in filler:
            out[k] = ref[k].detach().clone()
    return _check_against(out, ref, "MindSpore network")


def _check_against(out: dict, ref: dict, what: str) -> dict:
    missing = [k for k in ref if k not in out]
    extra = [k for k in out if k not in ref]
    if missing:
        raise WeightsError(f"{what} gives no value for torch tensor(s): " + ", ".join(missing[:5]))
    if extra:
        raise WeightsError(f"{what} has tensor(s) the torch model lacks: " + ", ".join(extra[:5]))
    for k, v in ref.items():
        if tuple(out[k].shape) != tuple(v.shape):
            raise WeightsError(f"{k}: MindSpore value of shape {tuple(out[k].shape)} does not fit torch shape "
                               f"{tuple(v.shape)}")
        out[k] = out[k].to(v.dtype)
    return {k: out[k] for k in ref}


def state_dict_to_ms_arrays(state_dict, torch_model=None) -> tuple[dict, NameMap]:
    """Rename a state_dict for MindSpore without a MindSpore network: {ms name: array}, map used.

    With ``torch_model`` the layers are read from its module tree; else they are inferred.
    """
    shapes = {k: _shape(v) for k, v in state_dict.items()}
    if torch_model is not None:
        nm = map_from_torch_model(torch_model)
        ref = torch_model.state_dict()
        for k, v in state_dict.items():
            if k in ref and tuple(ref[k].shape) != shapes[k]:
                raise WeightsError(f"{k}: checkpoint shape {shapes[k]} does not fit the torch model's "
                                   f"{tuple(ref[k].shape)}")
        missing = [k for k in ref if k not in state_dict and k not in nm.dropped]
        extra = [k for k in state_dict if k not in ref]
        if missing or extra:
            raise WeightsError("checkpoint does not match the torch model: "
                               + (f"missing {', '.join(missing[:5])} " if missing else "")
                               + (f"unexpected {', '.join(extra[:5])}" if extra else ""))
    else:
        nm = infer_from_torch(shapes)
    dropped = set(nm.dropped)
    out = {}
    for e in nm.entries:
        if e.torch_name in state_dict and e.torch_name not in dropped:
            out[e.ms_name] = _to_ms_layout(_to_numpy(state_dict[e.torch_name]), e)
    return out, nm


def ms_arrays_to_state_dict(arrays: dict, torch_model=None) -> tuple[dict, NameMap]:
    """Rename MindSpore arrays {ms name: array} to a torch state_dict without a MindSpore network."""
    import torch

    if torch_model is not None:
        nm = map_from_torch_model(torch_model)
        by_ms = {e.ms_name: e for e in nm.entries}
        unknown = [k for k in arrays if k not in by_ms]
        if unknown:
            raise WeightsError("checkpoint tensor(s) the torch model has no place for: " + ", ".join(unknown[:5]))
        out = {by_ms[k].torch_name: torch.from_numpy(np.array(_to_torch_layout(v, by_ms[k])))
               for k, v in arrays.items()}
        ref = torch_model.state_dict()
        for k in nm.dropped:
            if k in ref:
                out[k] = ref[k].detach().clone()
        return _check_against(out, ref, "checkpoint"), nm
    nm = infer_from_ms({k: _shape(v) for k, v in arrays.items()})
    out = {e.torch_name: torch.from_numpy(np.array(arrays[e.ms_name])) for e in nm.entries}
    out.update({n: torch.tensor(0, dtype=torch.long) for n in nm.dropped})
    return out, nm


# --------------------------------------------------------------------------------------- files
def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__


def load_torch_state_dict(path) -> dict:
    """``torch.load(path, weights_only=True)`` -> flat {name: tensor}; refuses code-running pickles."""
    import pickle

    import torch

    path = str(path)
    if not os.path.isfile(path):
        raise WeightsError(f"{path}: no such file")
    corrupt = _not_a_checkpoint(path)
    if corrupt:
        raise WeightsError(f"{path}: not a torch checkpoint: {corrupt}")
    try:
        obj = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        if "GLOBAL" not in str(exc) and "Unsupported" not in str(exc):  # not a refusal: a damaged pickle
            raise WeightsError(f"{path}: not a torch checkpoint: a damaged pickle "
                               f"({_first_line(exc.__cause__ or exc)})") from None
        m = re.search(r"GLOBAL ([\w.]+)", str(exc))
        what = f" (it references {m.group(1)})" if m else ""
        raise WeightsError(
            f"{path}: refused: the pickle holds objects other than tensors{what}; msmigrate loads "
            "torch checkpoints with weights_only=True and never runs code from them "
            "(save model.state_dict(), not the model)"
        ) from None
    except Exception as exc:  # noqa: BLE001 - any unreadable file is one input error
        if "zip archive" in str(exc):
            raise WeightsError(f"{path}: not a torch checkpoint: a damaged zip archive (truncated or corrupt)") from None
        raise WeightsError(f"{path}: not a torch checkpoint ({type(exc).__name__}: {_first_line(exc)})") from None
    if isinstance(obj, dict) and not all(torch.is_tensor(v) for v in obj.values()):
        for key in _WRAPPER_KEYS:
            inner = obj.get(key)
            if isinstance(inner, dict) and inner and all(torch.is_tensor(v) for v in inner.values()):
                return dict(inner)
    if not isinstance(obj, dict) or not all(torch.is_tensor(v) for v in obj.values()):
        kind = type(obj).__name__
        bad = [k for k, v in obj.items() if not torch.is_tensor(v)][:3] if isinstance(obj, dict) else []
        raise WeightsError(f"{path}: holds a {kind}, not a state_dict of tensors"
                           + (f" (non-tensor entries: {', '.join(map(str, bad))})" if bad else ""))
    return dict(obj)


def _not_a_checkpoint(path: str) -> str | None:
    """Why the file cannot be a ``torch.save`` file, from its first bytes (None when it may be one): torch writes a
    zip archive (since 1.6) or, in the legacy format, a pickle (protocol 2+, first byte 0x80)."""
    with open(path, "rb") as fh:
        head = fh.read(4)
    if not head:
        return "the file is empty"
    if head.startswith(b"PK\x03\x04") or head[:1] == b"\x80":
        return None
    return (f"it starts with {head!r}, neither a zip archive (torch.save) nor a pickle (the legacy format): "
            "the file is corrupt or of another kind")


def load_ms_checkpoint(path) -> dict:
    """A MindSpore .ckpt -> {name: numpy array}."""
    import mindspore as ms

    path = str(path)
    if not os.path.isfile(path):
        raise WeightsError(f"{path}: no such file")
    try:
        params = ms.load_checkpoint(path)
    except Exception as exc:  # noqa: BLE001
        raise WeightsError(f"{path}: not a MindSpore checkpoint ({type(exc).__name__}: {_first_line(exc)})") from None
    return {k: v.asnumpy() for k, v in params.items()}


def save_ms_checkpoint(arrays: dict, path) -> None:
    """Write {name: array} as a MindSpore checkpoint, atomically (temp file + os.replace)."""
    import mindspore as ms

    from .io import atomic_path

    # the temp name ends in .ckpt (save_checkpoint appends it to names without it); atomic_path gives the file
    # the user's mode (MindSpore writes checkpoints read-only for their owner)
    with atomic_path(path, suffix=".ckpt") as tmp:
        ms.save_checkpoint([{"name": k, "data": ms.Tensor(np.ascontiguousarray(v))} for k, v in arrays.items()], tmp)


def save_torch_state_dict(state_dict: dict, path) -> None:
    """``torch.save`` a state_dict atomically (temp file + os.replace)."""
    import torch

    from .io import atomic_path

    with atomic_path(path, suffix=".pt") as tmp:
        torch.save(state_dict, tmp)


def load_checkpoint_into(ms_net, arrays: dict) -> None:
    """Load {name: array} (names as in ``Parameter.name`` or the cell path) into ``ms_net``, checked first."""
    import mindspore as ms

    plan = []
    for path, p in ms_net.parameters_and_names():
        key = p.name if p.name in arrays else path
        if key not in arrays:
            raise WeightsError(f"checkpoint lacks {path} {_shape(p)}")
        if tuple(arrays[key].shape) != _shape(p):
            raise WeightsError(f"{key}: checkpoint shape {tuple(arrays[key].shape)} does not fit MindSpore "
                               f"shape {_shape(p)}")
        plan.append((p, arrays[key]))
    for p, arr in plan:
        p.set_data(ms.Tensor(np.ascontiguousarray(arr).astype(_np_dtype(p.dtype), copy=False)))
