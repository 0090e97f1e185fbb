class _MsmigrateMaxPool2d(nn.Cell):
    """torch.nn.MaxPool2d(return_indices=True): (values, indices), the indices flat over each channel's H*W as
    torch gives them (MaxUnpool2d's input), from ops.max_pool2d (MaxPoolWithArgmaxV2 runs on CPU)."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=True, ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.dilation, self.return_indices, self.ceil_mode = padding, dilation, return_indices, ceil_mode

    def construct(self, input):
        batched = input.ndim == 4
        if not batched:
            input = input.expand_dims(0)
        out, idx = ops.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                  ceil_mode=self.ceil_mode, return_indices=True)
        if not batched:
            out, idx = out.squeeze(0), idx.squeeze(0)
        return (out, idx) if self.return_indices else out


class _MsmigrateMaxUnpool2d(nn.Cell):
    """torch.nn.MaxUnpool2d: scatters each value to its index in a zero map (ops.max_unpool2d); output_size is
    given at call time, as in torch."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, kernel_size if stride is None else stride, padding

    def construct(self, input, indices, output_size=None):
        if output_size is not None:
            output_size = tuple(output_size)[-2:]
        return ops.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size=output_size)
