def _msmigrate_value_bn(cls, num_features, eps, momentum, affine, track_running_stats):
    """A torch BatchNorm built through a value (``norm_layer(c)``): torch momentum m is MindSpore's 1 - m; torch
    modules start in training mode."""
    if momentum is None:
        raise NotImplementedError("BatchNorm momentum=None (a cumulative moving average) has no MindSpore equivalent")
    extra = {} if track_running_stats else {"use_batch_statistics": True}
    return cls(num_features, eps=eps, momentum=1 - momentum, affine=affine, **extra).set_train(True)


def _msmigrate_value_BatchNorm1d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                                 device=None, dtype=None):
    """torch.nn.BatchNorm1d used as a value (``norm_layer=nn.BatchNorm1d``): torch's arguments, MindSpore's cell."""
    return _msmigrate_value_bn(nn.BatchNorm1d, num_features, eps, momentum, affine, track_running_stats)


def _msmigrate_value_BatchNorm2d(num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                                 device=None, dtype=None):
    """torch.nn.BatchNorm2d used as a value (``norm_layer=nn.BatchNorm2d``): torch's arguments, MindSpore's cell."""
    return _msmigrate_value_bn(nn.BatchNorm2d, num_features, eps, momentum, affine, track_running_stats)


def _msmigrate_value_LayerNorm(normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None,
                               dtype=None):
    """torch.nn.LayerNorm used as a value (``partial(nn.LayerNorm, eps=1e-6)``): MindSpore's epsilon defaults to
    1e-7 and its shape is a tuple; only the last axis is normalised, with gamma and beta."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if len(shape) != 1:
        raise NotImplementedError(f"LayerNorm over {shape}: MindSpore's begin_norm_axis depends on the input rank")
    if not (elementwise_affine and bias):
        raise NotImplementedError("LayerNorm without affine parameters: MindSpore's always has gamma and beta")
    return nn.LayerNorm(shape, epsilon=eps)


def _msmigrate_value_GroupNorm(num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None):
    """torch.nn.GroupNorm used as a value: the same arguments."""
    return nn.GroupNorm(num_groups, num_channels, eps=eps, affine=affine)
