def _msmigrate_value_Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                            bias=True, padding_mode="zeros", device=None, dtype=None):
    """torch.nn.Conv2d used as a value (``conv_layer=nn.Conv2d``): MindSpore pads 'same' and has no bias by
    default; torch's (ph, pw) padding is MindSpore's (top, bottom, left, right)."""
    if padding_mode != "zeros":
        raise NotImplementedError(f"Conv2d padding_mode={padding_mode!r}: only zero padding maps onto MindSpore's")
    if isinstance(padding, str):
        return nn.Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode=padding, dilation=dilation,
                         group=groups, has_bias=bias)
    if isinstance(padding, (tuple, list)):
        padding = (padding[0], padding[0], padding[1], padding[1]) if len(padding) == 2 else tuple(padding)
    return nn.Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode="pad", padding=padding,
                     dilation=dilation, group=groups, has_bias=bias)


def _msmigrate_value_Linear(in_features, out_features, bias=True, device=None, dtype=None):
    """torch.nn.Linear used as a value (MindSpore's Dense)."""
    return nn.Dense(in_features, out_features, has_bias=bias)


def _msmigrate_value_Dropout(p=0.5, inplace=False):
    """torch.nn.Dropout used as a value: MindSpore's first argument is keep_prob, so p goes by keyword; torch
    modules start in training mode."""
    return nn.Dropout(p=p).set_train(True)


def _msmigrate_value_MaxPool2d(kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                               ceil_mode=False):
    """torch.nn.MaxPool2d used as a value: torch's stride defaults to the kernel size, MindSpore's to 1."""
    if dilation != 1 or return_indices:
        raise NotImplementedError("MaxPool2d used as a value: dilation / return_indices are not mapped")
    stride = kernel_size if stride is None else stride
    extra = {"ceil_mode": True} if ceil_mode else {}
    if padding in (0, (0, 0)) and not ceil_mode:  # MindSpore takes ceil_mode with pad_mode='pad' only
        return nn.MaxPool2d(kernel_size, stride, pad_mode="valid", **extra)
    return nn.MaxPool2d(kernel_size, stride, padding=padding, pad_mode="pad", **extra)


def _msmigrate_value_AvgPool2d(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                               divisor_override=None):
    """torch.nn.AvgPool2d used as a value: torch's stride defaults to the kernel size, MindSpore's to 1."""
    if divisor_override is not None:
        raise NotImplementedError("AvgPool2d divisor_override is not mapped")
    stride = kernel_size if stride is None else stride
    extra = {"ceil_mode": True} if ceil_mode else {}
    if padding in (0, (0, 0)) and not ceil_mode:
        return nn.AvgPool2d(kernel_size, stride, pad_mode="valid", **extra)
    return nn.AvgPool2d(kernel_size, stride, padding=padding, pad_mode="pad", count_include_pad=count_include_pad,
                        **extra)
