class _MsmigrateSoftmax(nn.Cell):
    """torch.nn.Softmax / LogSoftmax / Softmin built without dim (written by msmigrate): torch's legacy implicit
    dim, chosen from the input's rank when it is called (0 for a 0-, 1- or 3-D input, else 1), as torch's
    _get_softmax_dim; an explicit dim is used as given. Softmin is the softmax of -input."""

    def __init__(self, dim=None, log=False, negate=False):
        super().__init__()
        self.dim, self.log, self.negate = dim, log, negate

    def construct(self, input):
        dim = self.dim
        if dim is None:
            dim = 0 if input.ndim in (0, 1, 3) else 1
        if self.negate:
            input = -input
        return ops.log_softmax(input, dim) if self.log else ops.softmax(input, dim)
