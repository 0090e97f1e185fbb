class _MsmigrateTensorType(type):
    """torch's legacy tensor types (torch.LongTensor...) as annotations or isinstance targets (written by msmigrate):
    isinstance holds for a MindSpore tensor of that dtype, as torch's holds for a CPU tensor of it."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, ms.Tensor) and obj.dtype == cls.dtype


class _MsmigrateFloatTensor(metaclass=_MsmigrateTensorType):
    dtype = ms.float32


class _MsmigrateDoubleTensor(metaclass=_MsmigrateTensorType):
    dtype = ms.float64


class _MsmigrateHalfTensor(metaclass=_MsmigrateTensorType):
    dtype = ms.float16


class _MsmigrateLongTensor(metaclass=_MsmigrateTensorType):
    dtype = ms.int64


class _MsmigrateIntTensor(metaclass=_MsmigrateTensorType):
    dtype = ms.int32


class _MsmigrateShortTensor(metaclass=_MsmigrateTensorType):
    dtype = ms.int16


class _MsmigrateCharTensor(metaclass=_MsmigrateTensorType):
    dtype = ms.int8


class _MsmigrateByteTensor(metaclass=_MsmigrateTensorType):
    dtype = ms.uint8


class _MsmigrateBoolTensor(metaclass=_MsmigrateTensorType):
    dtype = ms.bool_


def _msmigrate_legacy_tensor(value, dtype):
    """torch.Tensor(v) / torch.FloatTensor(v) with one argument known only when the code runs (written by msmigrate):
    an int is a size (torch leaves the values uninitialised; zeros are one such content), a list or an array is
    data; a tuple may be torch.Size (a size) or data, which MindSpore's plain tuples do not tell apart, so it
    raises, as does anything else torch's legacy constructor would not take the same way."""
    if isinstance(value, bool) or isinstance(value, float):
        raise TypeError(f"legacy tensor constructor: a {type(value).__name__} is neither data nor a size")
    if isinstance(value, int):
        return ops.zeros((value,), dtype)
    if isinstance(value, ms.Tensor):
        if value.dtype != dtype:
            raise TypeError(f"legacy tensor constructor: expected {dtype}, got {value.dtype}")
        return value
    if isinstance(value, tuple):
        raise NotImplementedError("legacy tensor constructor with a tuple: torch reads a torch.Size as a size and "
                                  "other tuples as data, which MindSpore's tuples do not tell apart")
    return ms.Tensor(np.asarray(value), dtype=dtype)
