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
    """(PyTorch name, tensor, PyTorch buffer?) for a Cell's Parameters and registered buffers, module by module in
    PyTorch's order (each module's parameters, then its buffers), each tensor once (written by msmigrate). MindSpore
    holds BatchNorm's running statistics as Parameters and names some parameters otherwise (gamma / beta): PyTorch's
    parameters() / named_parameters() / buffers() see neither."""
    rules = _msmigrate_pt_name_rules()
    cells = list(cell.cells_and_names())
    renamed = {}
    for path, sub in cells:  # outer cells first: BatchNorm3d names its inner bn2d's Parameters
        kind = type(sub).__name__
        kind = kind[len("_Msmigrate"):] if kind.startswith("_Msmigrate") else kind  # the file's own helper cells
        for ms_name, pt_name, buffer in rules.get(kind, ()):
            own = dict(sub.parameters_and_names())
            if ms_name in own:
                renamed.setdefault(id(own[ms_name]), (f"{path}.{pt_name}" if path else pt_name, buffer))
    seen = set()
    for path, sub in (cells if recurse else cells[:1]):
        found = []
        for name, p in sub.parameters_and_names(expand=False):
            if id(p) not in seen:
                seen.add(id(p))
                found.append((*renamed.get(id(p), (f"{path}.{name}" if path else name, False)), p))
        for name, b in sub.named_buffers(recurse=False):
            if id(b) not in seen:
                seen.add(id(b))
                found.append((f"{path}.{name}" if path else name, True, b))
        for name, buffer, t in sorted(found, key=lambda e: e[1]):
            yield name, t, buffer
