# requires: torch_names
def _msmigrate_named_buffers(cell, prefix="", recurse=True):
    """Module.named_buffers (written by msmigrate): BatchNorm's running statistics (Parameters in MindSpore) under
    PyTorch's names, and the registered buffers; PyTorch's num_batches_tracked has no MindSpore counterpart."""
    for name, b, buffer in _msmigrate_pt_tensors(cell, recurse):
        if buffer:
            yield (f"{prefix}.{name}" if prefix else name), b


def _msmigrate_buffers(cell, recurse=True):
    """Module.buffers (written by msmigrate)."""
    for _, b in _msmigrate_named_buffers(cell, "", recurse):
        yield b
