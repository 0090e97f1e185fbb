def _msmigrate_cumsum(input, dim, dtype=None):
    """torch.cumsum / Tensor.cumsum (written by msmigrate), as torch: with a dtype the input is cast first and summed
    in it (MindSpore 2.10's Tensor.cumsum sums, then casts: [0.6, 0.7] to int64 gave [0, 1], torch [0, 0]); without
    one a bool or integer input sums in int64 (MindSpore keeps int32 / int16 / uint8, and refuses bool; measured).
    An empty input is returned as it is (cast), as torch returns it."""
    if dtype is None and input.dtype in (ms.bool_, ms.int8, ms.int16, ms.int32, ms.uint8):
        dtype = ms.int64
    if dtype is not None:
        input = input.astype(dtype)
    if input.size == 0:
        return input  # MindSpore 2.10's CumSum kernel kills the process on an empty input (SIGFPE, measured)
    return ops.cumsum(input, dim)
