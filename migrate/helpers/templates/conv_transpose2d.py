def _msmigrate_conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                                dilation=1):
    """F.conv_transpose2d (ops.conv_transpose2d has no CPU kernel in MindSpore 2.10): the gradient of a
    convolution with respect to its input (the Conv2DBackpropInput primitive), which also gives output_padding
    its computed rows and columns, as torch does. weight: (in_channels, out_channels / groups, kH, kW)."""
    def pair(v):
        return tuple(v) if isinstance(v, (tuple, list)) else (v, v)

    (sh, sw), (ph, pw), (oh, ow), (dh, dw) = pair(stride), pair(padding), pair(output_padding), pair(dilation)
    batched = input.ndim == 4
    if not batched:
        input = input.expand_dims(0)
    n, _, h, w = input.shape
    cin, cout_g, kh, kw = weight.shape
    out_h = (h - 1) * sh - 2 * ph + dh * (kh - 1) + oh + 1
    out_w = (w - 1) * sw - 2 * pw + dw * (kw - 1) + ow + 1
    deconv = ops.Conv2DBackpropInput(cin, (kh, kw), pad_mode="pad", pad=(ph, ph, pw, pw),
                                     stride=(sh, sw), dilation=(dh, dw), group=groups)
    out = deconv(input, weight, (n, cout_g * groups, out_h, out_w))
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return out if batched else out.squeeze(0)


class _MsmigrateConvTranspose2d(nn.Cell):
    """torch.nn.ConvTranspose2d with what MindSpore's Conv2dTranspose cannot express (output_padding computed,
    not zero-filled): parameters named as torch names them (weight (in, out / groups, kH, kW), bias), initialised
    from torch's distributions (kaiming-uniform with a=sqrt(5), bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)))."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros"):
        super().__init__()
        if padding_mode != "zeros":
            raise ValueError("ConvTranspose2d supports only padding_mode='zeros' (as in torch)")
        import math

        from mindspore.common.initializer import HeUniform, Uniform, initializer

        k = tuple(kernel_size) if isinstance(kernel_size, (tuple, list)) else (kernel_size, kernel_size)
        self.stride, self.padding, self.output_padding = stride, padding, output_padding
        self.groups, self.dilation = groups, dilation
        shape = (in_channels, out_channels // groups) + k
        self.weight = ms.Parameter(initializer(HeUniform(math.sqrt(5)), shape, ms.float32), name="weight")
        if bias:
            fan_in = (out_channels // groups) * k[0] * k[1]
            self.bias = ms.Parameter(initializer(Uniform(1 / math.sqrt(fan_in)), (out_channels,), ms.float32),
                                     name="bias")
        else:
            self.bias = None

    def construct(self, input, output_size=None):
        out_pad = self.output_padding
        if output_size is not None:  # torch: the output_padding that reaches output_size
            def pair(v):
                return tuple(v) if isinstance(v, (tuple, list)) else (v, v)

            (sh, sw), (ph, pw), (dh, dw) = pair(self.stride), pair(self.padding), pair(self.dilation)
            kh, kw = self.weight.shape[2], self.weight.shape[3]
            size = tuple(output_size)[-2:]
            h, w = input.shape[-2], input.shape[-1]
            out_pad = (size[0] - ((h - 1) * sh - 2 * ph + dh * (kh - 1) + 1),
                       size[1] - ((w - 1) * sw - 2 * pw + dw * (kw - 1) + 1))
        return _msmigrate_conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding, out_pad,
                                           self.groups, self.dilation)
