def _msmigrate_pt_name_rules():
    """PyTorch's names for the Parameters of the MindSpore cells that name them otherwise (written by msmigrate; the
    map msmigrate weights uses): cell class -> ((MindSpore name, PyTorch name, PyTorch buffer?), ...)."""
    bn = (("gamma", "weight", False), ("beta", "bias", False),
          ("moving_mean", "running_mean", True), ("moving_variance", "running_var", True))
    norm = (("gamma", "weight", False), ("beta", "bias", False))
    linears = tuple((f"dense{i}.{n}", f"linear{i}.{n}", False) for i in (1, 2) for n in ("weight", "bias"))
    rules = {name: bn for name in ("BatchNorm1d", "BatchNorm2d", "SyncBatchNorm", "InstanceNorm1d", "InstanceNorm2d",
                                   "InstanceNorm3d", "InstanceNorm")}  # InstanceNorm: msmigrate's own cell
    rules.update(BatchNorm3d=tuple((f"bn2d.{m}", t, b) for m, t, b in bn), LayerNorm=norm, GroupNorm=norm,
                 Embedding=(("embedding_table", "weight", False),), PReLU=(("w", "weight", False),),
                 TransformerEncoderLayer=linears, TransformerDecoderLayer=linears)
    return rules


def _msmigrate_pt_tensors(cell, recurse=True):
    """(PyTorch name, tensor, PyTorch buffer?) of a Cell's Parameters and buffers in PyTorch's order, each once
    (msmigrate): MindSpore holds BatchNorm's running statistics as Parameters and names some otherwise (gamma)."""
    rules, cells, renamed, seen = _msmigrate_pt_name_rules(), list(cell.cells_and_names()), {}, set()
    for path, sub in cells:  # outer cells first: BatchNorm3d names its inner bn2d's Parameters
        for ms_name, pt_name, buffer in rules.get(type(sub).__name__.removeprefix("_Msmigrate"), ()):
            p = dict(sub.parameters_and_names()).get(ms_name)
            if p is not None:
                renamed.setdefault(id(p), (f"{path}.{pt_name}".lstrip("."), buffer))
    for path, sub in cells if recurse else cells[:1]:  # each module's parameters, then its buffers
        found = [(*renamed.get(id(p), (f"{path}.{name}".lstrip("."), False)), p)
                 for name, p in sub.parameters_and_names(expand=False)]
        found += [(f"{path}.{name}".lstrip("."), True, b) for name, b in sub.named_buffers(recurse=False)]
        for name, buffer, t in sorted(found, key=lambda e: e[1]):
            if id(t) not in seen:
                seen.add(id(t))
                yield name, t, buffer
