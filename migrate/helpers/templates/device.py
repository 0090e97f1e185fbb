class _MsmigrateDevice(str):
    """torch.device (written by msmigrate): the device's name ("cuda", "cuda:1", "cpu") with torch's ``.type`` and
    ``.index``; equal, like torch's, only to a device of the same name. MindSpore places tensors itself: moves to a
    device are dropped."""

    def __new__(cls, type, index=None):
        name = str(type) if index is None else f"{type}:{index}"
        self = super().__new__(cls, name)
        kind, _, number = name.partition(":")
        self.type, self.index = kind, (int(number) if number else None)
        return self

    def __eq__(self, other):
        return isinstance(other, _MsmigrateDevice) and str.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    __hash__ = str.__hash__
