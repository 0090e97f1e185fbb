class _MsmigrateEmbedding(nn.Embedding):
    """torch.nn.Embedding (written by msmigrate): torch's constructor arguments and attribute names over MindSpore's
    cell. ``weight`` is MindSpore's ``embedding_table``, read and set (a language model ties its output layer to it,
    ``lm_head.weight = emb.weight``, through containers no converter can type); ``padding_idx`` rows get no gradient
    from the lookup, as in torch (MindSpore only zeroes them when built)."""

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        if max_norm is not None or scale_grad_by_freq or sparse or _weight is not None or _freeze:
            raise NotImplementedError("Embedding max_norm / scale_grad_by_freq / sparse / _weight / _freeze have no "
                                      "MindSpore equivalent")
        if padding_idx is not None and padding_idx < 0:
            padding_idx += num_embeddings
        super().__init__(num_embeddings, embedding_dim, padding_idx=padding_idx)
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim

    @property
    def weight(self):
        return self.embedding_table

    def __setattr__(self, name, value):
        super().__setattr__("embedding_table" if name == "weight" else name, value)

    def construct(self, ids):
        out = super().construct(ids)
        if self.padding_idx is None:
            return out
        keep = ops.expand_dims((ids != self.padding_idx).astype(out.dtype), -1)
        return out * keep + ops.stop_gradient(out) * (1 - keep)


_MsmigrateEmbedding.__name__ = "Embedding"
