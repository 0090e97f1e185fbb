def _msmigrate_device_type(device):
    """``tensor.device.type`` / ``torch.device(...).type`` (written by msmigrate): MindSpore names a device by a
    string ("CPU", "GPU:0", "Ascend"), torch's ``type`` is "cpu", "cuda" or "npu" (code compares it with those)."""
    name = str(device).split(":")[0].lower()
    return {"gpu": "cuda", "ascend": "npu"}.get(name, name)


class _MsmigrateNoAutocast:
    """``torch.autocast(..., enabled=False)`` (written by msmigrate): the block runs in its inputs' dtypes. MindSpore
    has no autocast region to leave: it casts whole networks (amp.auto_mixed_precision), so inside a network cast
    that way the block is cast with it (the training pass converts autocast only around a training step's loss)."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
