# torch.distributed collectives over the default (whole) group under msrun, on MindSpore's AllGather. MindSpore
# 2.10's CPU AllGather takes float32, float16 and int32 only (measured under msrun: uint8 'Unsupported data type'),
# so the bytes of any tensor or pickled object travel as int32 words and are read back bit for bit.


def _msmigrate_gather_words(data):
    """Every rank's bytes (a numpy uint8 array; written by msmigrate): the lengths gathered first, the bytes padded
    to the longest (a multiple of 4), gathered as int32 words, each rank's cut back to its length."""
    import numpy as np

    sizes = ops.AllGather()(ms.Tensor(np.array([data.size], dtype=np.int32))).asnumpy()
    padded = np.zeros(-(-int(sizes.max()) // 4) * 4, dtype=np.uint8)
    padded[:data.size] = data
    rows = ops.AllGather()(ms.Tensor(padded.view(np.int32).reshape(1, -1))).asnumpy()
    return [rows[i].view(np.uint8)[:int(n)] for i, n in enumerate(sizes)]


def _msmigrate_tensor_rows(tensor):
    """Every rank's copy of `tensor` (written by msmigrate), as numpy arrays of its dtype and shape."""
    import numpy as np

    arr = np.ascontiguousarray(tensor.asnumpy())
    shape = tuple(tensor.shape)  # a 0-d tensor too (its asnumpy() may not be 0-d)
    return [np.frombuffer(row.tobytes(), dtype=arr.dtype).reshape(shape)
            for row in _msmigrate_gather_words(arr.reshape(-1).view(np.uint8))]


def _msmigrate_broadcast(tensor, src):
    """dist.broadcast(tensor, src) (written by msmigrate): rank src's values written into `tensor` on every
    process, in place, as torch's; returns None like torch's synchronous call."""
    tensor.copy_(ms.Tensor(_msmigrate_tensor_rows(tensor)[src]).reshape(tuple(tensor.shape)))


def _msmigrate_all_gather(tensor_list, tensor):
    """dist.all_gather(tensor_list, tensor) (written by msmigrate): tensor_list[i] receives rank i's `tensor`, in
    place, as torch's (every rank gives the same shape and dtype, as torch requires)."""
    rows = _msmigrate_tensor_rows(tensor)
    if len(tensor_list) != len(rows):
        raise ValueError(f"all_gather: {len(tensor_list)} output tensors for {len(rows)} processes")
    for out, row in zip(tensor_list, rows):
        out.copy_(ms.Tensor(row).reshape(tuple(out.shape)))


def _msmigrate_gather_objects(obj):
    """Every rank's `obj` (written by msmigrate), pickled, gathered and unpickled."""
    import pickle

    import numpy as np

    return [pickle.loads(b.tobytes()) for b in _msmigrate_gather_words(np.frombuffer(pickle.dumps(obj), np.uint8))]


def _msmigrate_all_gather_object(object_list, obj):
    """dist.all_gather_object(object_list, obj) (written by msmigrate): object_list[i] becomes rank i's object (any
    picklable object), as torch's."""
    gathered = _msmigrate_gather_objects(obj)
    if len(object_list) != len(gathered):
        raise ValueError(f"all_gather_object: a list of {len(object_list)} for {len(gathered)} processes")
    object_list[:] = gathered


def _msmigrate_broadcast_object_list(object_list, src=0):
    """dist.broadcast_object_list(object_list, src) (written by msmigrate): rank src's objects written into
    object_list on every process, in place, as torch's."""
    object_list[:] = _msmigrate_gather_objects(list(object_list))[src]
