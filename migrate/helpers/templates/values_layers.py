def _msmigrate_value_Dropout(p=0.5, inplace=False):
    """torch.nn.Dropout used as a value: MindSpore's first argument is keep_prob, so p goes by keyword."""
    return nn.Dropout(p=p)


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


def _msmigrate_value_BatchNorm3d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                                 device=None, dtype=None):
    """torch.nn.BatchNorm3d used as a value (torchvision's ``norm_layer=torch.nn.BatchNorm3d``, ``partial(nn.BatchNorm3d,
    eps=0.001, momentum=0.001)``): MindSpore's momentum is 1 - torch's."""
    if momentum is None:
        raise NotImplementedError("BatchNorm momentum=None (a cumulative moving average) has no MindSpore equivalent")
    extra = {} if track_running_stats else {"use_batch_statistics": True}
    return nn.BatchNorm3d(num_features, eps=eps, momentum=1 - momentum, affine=affine, **extra)
