def _msmigrate_scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
                                            scale=None, enable_gqa=False):
    """F.scaled_dot_product_attention written out: softmax(q k^T * scale + mask) v (MindSpore 2.10 has none)."""
    L, S = query.shape[-2], key.shape[-2]
    scale = 1.0 / (query.shape[-1] ** 0.5) if scale is None else scale
    if enable_gqa and query.ndim > 2 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = ops.repeat_interleave(key, rep, axis=key.ndim - 3)
        value = ops.repeat_interleave(value, rep, axis=value.ndim - 3)
    scores = ops.matmul(query, key.swapaxes(-2, -1)) * scale
    if is_causal:
        keep = ops.tril(ops.ones((L, S), ms.bool_))
        scores = ops.masked_fill(scores, ops.logical_not(keep), float("-inf"))
    if attn_mask is not None:
        if attn_mask.dtype == ms.bool_:
            scores = ops.masked_fill(scores, ops.logical_not(attn_mask), float("-inf"))
        else:
            scores = scores + attn_mask.astype(scores.dtype)
    weights = ops.softmax(scores, axis=-1)
    if dropout_p > 0.0:
        weights = ops.dropout(weights, p=dropout_p)
    return ops.matmul(weights, value)
