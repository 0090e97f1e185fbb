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
