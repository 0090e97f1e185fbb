def _msmigrate_topk(input, k, dim=-1, largest=True, sorted=True):
    """torch.topk / Tensor.topk (written by msmigrate): (values, int64 indices) as torch (ops.topk gives int32
    indices). A 0-d input is its own top element, index 0, as in torch (k 0 or 1): MindSpore 2.10's TopK kernel
    kills the process on a 0-d input (segfault, measured by the fuzzer)."""
    if input.ndim == 0 and k in (0, 1):
        return input, ops.zeros((), ms.int64)
    values, indices = ops.topk(input, k, dim, largest, sorted)
    return values, indices.astype(ms.int64)
