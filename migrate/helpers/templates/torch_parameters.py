# requires: torch_names
def _msmigrate_named_parameters(cell, prefix="", recurse=True):
    """Module.named_parameters (written by msmigrate): PyTorch's names, set and order (no running statistics)."""
    for name, p, buffer in _msmigrate_pt_tensors(cell, recurse):
        if not buffer:
            yield (f"{prefix}.{name}" if prefix else name), p


def _msmigrate_parameters(cell, recurse=True):
    """Module.parameters (written by msmigrate): PyTorch's set and order (no running statistics)."""
    for _, p in _msmigrate_named_parameters(cell, "", recurse):
        yield p
