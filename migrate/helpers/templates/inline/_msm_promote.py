def _msm_promote(tensors):
    """cat/stack of mixed dtypes promote as in PyTorch (bool < integers < floats, the wider wins); MindSpore needs one."""
    order = (ms.bool_, ms.uint8, ms.int8, ms.int16, ms.int32, ms.int64, ms.float16, ms.bfloat16, ms.float32, ms.float64)
    ranks = []
    for t in tensors:
        rank = 0
        for i in range(len(order)):
            if t.dtype == order[i]:
                rank = i
        ranks.append(rank)
    top = max(ranks)
    if top == min(ranks):
        return list(tensors)
    to = order[top]
    if top == 7 and 6 in ranks:  # float16 with bfloat16
        to = ms.float32
    if top == 2 and 1 in ranks:  # int8 with uint8
        to = ms.int16
    return [t.astype(to) for t in tensors]
