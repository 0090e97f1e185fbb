class _MsmigrateUnfold(nn.Cell):
    """torch.nn.Unfold (sliding blocks -> columns, (N, C*kH*kW, L)), through ops.unfold, which takes torch's
    arguments and layout (MindSpore's nn.Unfold is a different, TF-style operator)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def construct(self, input):
        return ops.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


class _MsmigrateFold(nn.Cell):
    """torch.nn.Fold (columns -> summed sliding blocks), through ops.fold."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        size = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size, output_size)
        self.output_size = ms.Tensor(size, ms.int32)
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def construct(self, input):
        return ops.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)
