class _MsmigrateMultiheadAttention(nn.MultiheadAttention):
    """torch.nn.MultiheadAttention (written by msmigrate): the same cell and parameter names; torch returns
    ``(output, None)`` when ``need_weights=False``, MindSpore ``(output,)``, so ``x, _ = attn(q, k, v,
    need_weights=False)`` unpacks as in torch. ``is_causal`` is torch's hint that ``attn_mask`` is causal."""

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                  average_attn_weights=True, is_causal=False):
        out = super().construct(query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights)
        return out if need_weights else (out[0], None)
