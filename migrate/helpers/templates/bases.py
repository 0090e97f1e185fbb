# torch layers as base classes and as values (``class BatchNormAct2d(nn.BatchNorm2d)``, ``norm_layer=nn.BatchNorm2d``,
# ``partial(nn.LayerNorm, eps=1e-6)``): MindSpore cells built from torch's constructor arguments, with torch's
# attribute names, and named as torch names them (timm picks a norm+act layer by ``norm_layer.__name__``).


def _msmigrate_alias(name):
    """A torch attribute name read and written as MindSpore's (a BatchNorm's ``weight`` is its ``gamma``)."""
    return property(lambda self: getattr(self, name), lambda self, value: setattr(self, name, value))


def _msmigrate_pair(value):
    if isinstance(value, int):
        return (value, value)
    value = tuple(value)  # torch also takes a list, and a 1-element one for both axes (EfficientNet's stride=[1])
    return value * 2 if len(value) == 1 else value


def _msmigrate_bn_base_init(self, cls, num_features, eps, momentum, affine, track_running_stats):
    """torch's BatchNorm arguments onto MindSpore's: momentum m is MindSpore's 1 - m (its kernel takes it when the
    cell is built); ``self.momentum`` then holds torch's value, as a subclass's forward reads it for F.batch_norm."""
    if momentum is None:
        raise NotImplementedError("BatchNorm momentum=None (a cumulative moving average) has no MindSpore equivalent")
    extra = {} if track_running_stats else {"use_batch_statistics": True}
    cls.__init__(self, num_features, eps=eps, momentum=1 - momentum, affine=affine, **extra)
    self.momentum, self.affine, self.track_running_stats = momentum, affine, track_running_stats
    self.num_batches_tracked = None  # MindSpore keeps no count (only momentum=None reads it, refused above)


class _MsmigrateBatchNorm1d(nn.BatchNorm1d):
    """torch.nn.BatchNorm1d as a base class (written by msmigrate): torch's constructor arguments and attribute
    names (weight, bias, running_mean, running_var, momentum) over MindSpore's cell."""
    weight, bias = _msmigrate_alias("gamma"), _msmigrate_alias("beta")
    running_mean, running_var = _msmigrate_alias("moving_mean"), _msmigrate_alias("moving_variance")

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        _msmigrate_bn_base_init(self, nn.BatchNorm1d, num_features, eps, momentum, affine, track_running_stats)


class _MsmigrateBatchNorm2d(nn.BatchNorm2d):
    """torch.nn.BatchNorm2d as a base class (timm's ``class BatchNormAct2d(nn.BatchNorm2d)``, written by
    msmigrate): torch's constructor arguments and attribute names (weight, bias, running_mean, running_var,
    momentum) over MindSpore's cell."""
    weight, bias = _msmigrate_alias("gamma"), _msmigrate_alias("beta")
    running_mean, running_var = _msmigrate_alias("moving_mean"), _msmigrate_alias("moving_variance")

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True, device=None,
                 dtype=None):
        _msmigrate_bn_base_init(self, nn.BatchNorm2d, num_features, eps, momentum, affine, track_running_stats)


class _MsmigrateSyncBatchNorm(nn.SyncBatchNorm):
    """torch.nn.SyncBatchNorm as a base class or a value (HRNet's ``BatchNorm2d = torch.nn.SyncBatchNorm``, written
    by msmigrate): torch's constructor arguments and attribute names (weight, bias, running_mean, running_var,
    momentum) over MindSpore's cell. Outside a distributed job both normalise over the local batch, as BatchNorm."""
    weight, bias = _msmigrate_alias("gamma"), _msmigrate_alias("beta")
    running_mean, running_var = _msmigrate_alias("moving_mean"), _msmigrate_alias("moving_variance")

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True,
                 process_group=None, device=None, dtype=None):
        if process_group is not None:
            raise NotImplementedError("SyncBatchNorm(process_group=...): MindSpore's takes process_groups (rank lists)")
        _msmigrate_bn_base_init(self, nn.SyncBatchNorm, num_features, eps, momentum, affine, track_running_stats)


class _MsmigrateLayerNorm(nn.LayerNorm):
    """torch.nn.LayerNorm as a base class (torchvision's ``class LayerNorm2d(nn.LayerNorm)``, written by msmigrate):
    torch's constructor arguments and attribute names (weight, bias, normalized_shape, eps). MindSpore's epsilon
    defaults to 1e-7; it normalises the last axes from a non-negative begin axis, so only a one-axis shape is
    built here, and its gamma and beta always exist."""
    weight, bias = _msmigrate_alias("gamma"), _msmigrate_alias("beta")

    def __init__(self, normalized_shape, eps=1e-05, elementwise_affine=True, bias=True, device=None, dtype=None):
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        if len(shape) != 1:
            raise NotImplementedError(f"LayerNorm over {shape}: MindSpore's begin_norm_axis depends on the input rank")
        if not (elementwise_affine and bias):
            raise NotImplementedError("LayerNorm without affine parameters: MindSpore's always has gamma and beta")
        super().__init__(shape, epsilon=eps)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine


class _MsmigrateGroupNorm(nn.GroupNorm):
    """torch.nn.GroupNorm as a base class (written by msmigrate): torch's attribute names weight and bias."""
    weight, bias = _msmigrate_alias("gamma"), _msmigrate_alias("beta")

    def __init__(self, num_groups, num_channels, eps=1e-05, affine=True, device=None, dtype=None):
        super().__init__(num_groups, num_channels, eps=eps, affine=affine)


class _MsmigrateConv2d(nn.Conv2d):
    """torch.nn.Conv2d as a base class (timm's ``Conv2dSame``, ``StdConv2d``, written by msmigrate): torch's
    constructor arguments (padding int, pair, 'same' or 'valid'; MindSpore's default is no padding mode and no bias)
    and attribute names (groups, padding as torch holds them) over MindSpore's cell, whose kernel takes them when
    it is built."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode={padding_mode!r}: only zero padding maps onto MindSpore's Conv2d")
        if isinstance(padding, str):
            pad_mode, pad = padding, 0
        else:
            ph, pw = _msmigrate_pair(padding)
            pad_mode, pad = "pad", (ph, ph, pw, pw)
        # sizes as tuples: torch also takes lists (EfficientNet's [k, k]), MindSpore's kernel refuses them
        super().__init__(in_channels, out_channels, _msmigrate_pair(kernel_size), stride=_msmigrate_pair(stride),
                         pad_mode=pad_mode, padding=pad, dilation=_msmigrate_pair(dilation), group=groups,
                         has_bias=bool(bias))
        self.kernel_size, self.stride = _msmigrate_pair(kernel_size), _msmigrate_pair(stride)
        self.dilation = _msmigrate_pair(dilation)
        self.padding = padding if isinstance(padding, str) else _msmigrate_pair(padding)
        self.groups, self.padding_mode = groups, padding_mode


class _MsmigrateConv1d(nn.Conv1d):
    """torch.nn.Conv1d as a base class or a value (timm's hiera ``[nn.Identity, nn.Conv1d, nn.Conv2d, nn.Conv3d][n]``,
    written by msmigrate): torch's constructor arguments (padding int, 1-tuple, 'same' or 'valid'; MindSpore's
    default is pad_mode 'same' and no bias) and attribute names (groups; kernel_size, stride, padding, dilation as
    torch's 1-tuples) over MindSpore's cell."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode={padding_mode!r}: only zero padding maps onto MindSpore's Conv1d")
        if dtype is not None and dtype != ms.float32:
            raise NotImplementedError(f"Conv1d(dtype={dtype}): only float32 parameters are converted")
        one = lambda v: v if isinstance(v, int) else v[0]  # noqa: E731 - torch takes an int or a 1-tuple
        pad_mode, pad = (padding, 0) if isinstance(padding, str) else ("pad", one(padding))
        super().__init__(in_channels, out_channels, one(kernel_size), stride=one(stride), pad_mode=pad_mode,
                         padding=pad, dilation=one(dilation), group=groups, has_bias=bool(bias))
        self.kernel_size, self.stride, self.dilation = (one(kernel_size),), (one(stride),), (one(dilation),)
        self.padding = padding if isinstance(padding, str) else (one(padding),)
        self.groups, self.padding_mode = groups, padding_mode


class _MsmigrateConv3d(nn.Conv3d):
    """torch.nn.Conv3d as a base class or a value (torchvision's ``Conv3DSimple(nn.Conv3d)``, its
    ``conv_layer=torch.nn.Conv3d``, written by msmigrate): torch's constructor arguments (padding int, triple, 'same'
    or 'valid'; MindSpore's default is pad_mode 'same' and no bias) and attribute names (groups; kernel_size,
    stride, padding, dilation as torch's triples) over MindSpore's cell."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode={padding_mode!r}: only zero padding maps onto MindSpore's Conv3d")
        if dtype is not None and dtype != ms.float32:
            raise NotImplementedError(f"Conv3d(dtype={dtype}): only float32 parameters are converted")
        triple = lambda v: (v, v, v) if isinstance(v, int) else tuple(v)  # noqa: E731
        if isinstance(padding, str):
            pad_mode, pad = padding, 0
        else:
            pd, ph, pw = triple(padding)
            pad_mode, pad = "pad", (pd, pd, ph, ph, pw, pw)
        super().__init__(in_channels, out_channels, triple(kernel_size), stride=triple(stride), pad_mode=pad_mode,
                         padding=pad, dilation=triple(dilation), group=groups, has_bias=bool(bias))
        self.kernel_size, self.stride, self.dilation = triple(kernel_size), triple(stride), triple(dilation)
        self.padding = padding if isinstance(padding, str) else triple(padding)
        self.groups, self.padding_mode = groups, padding_mode


def _msmigrate_pool_args(kernel_size, stride, padding, ceil_mode):
    """torch's pooling arguments as MindSpore's (stride defaults to the kernel size; ceil_mode only with 'pad')."""
    stride = kernel_size if stride is None else stride
    if padding in (0, (0, 0)) and not ceil_mode:
        return dict(kernel_size=kernel_size, stride=stride, pad_mode="valid")
    return dict(kernel_size=kernel_size, stride=stride, padding=padding, pad_mode="pad",
                **({"ceil_mode": True} if ceil_mode else {}))


class _MsmigrateMaxPool2dBase(nn.MaxPool2d):
    """torch.nn.MaxPool2d as a base class (timm's ``MaxPool2dSame``, smp's ``MaxPool2dDynamicSamePadding``, written
    by msmigrate): torch's constructor arguments and attribute names (kernel_size, stride, padding, dilation,
    ceil_mode, return_indices as torch holds them) over MindSpore's cell."""

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        if dilation not in (1, (1, 1)) or return_indices:
            raise NotImplementedError("MaxPool2d as a base: dilation / return_indices are not mapped")
        super().__init__(**_msmigrate_pool_args(kernel_size, stride, padding, ceil_mode))
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.dilation, self.ceil_mode = padding, dilation, ceil_mode


class _MsmigrateAvgPool2dBase(nn.AvgPool2d):
    """torch.nn.AvgPool2d as a base class (timm's ``AvgPool2dSame``, written by msmigrate): torch's constructor
    arguments and attribute names (kernel_size, stride, padding, ceil_mode, count_include_pad) over MindSpore's cell."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        if divisor_override is not None:
            raise NotImplementedError("AvgPool2d divisor_override is not mapped")
        args = _msmigrate_pool_args(kernel_size, stride, padding, ceil_mode)
        if args["pad_mode"] == "pad":
            args["count_include_pad"] = count_include_pad
        super().__init__(**args)
        self.kernel_size, self.stride = kernel_size, kernel_size if stride is None else stride
        self.padding, self.ceil_mode, self.count_include_pad = padding, ceil_mode, count_include_pad
        self.divisor_override = divisor_override


class _MsmigrateLinear(nn.Dense):
    """torch.nn.Linear as a base class (written by msmigrate): torch's constructor arguments (bias by default) and
    attribute names (in_features, out_features) over MindSpore's Dense."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__(in_features, out_features, has_bias=bool(bias))
        self.in_features, self.out_features = in_features, out_features


class _MsmigrateSequential(nn.SequentialCell):
    """torch.nn.Sequential as a base class (torchvision's DenseNet ``class _Transition(nn.Sequential)`` sets its
    layers as attributes, ``self.norm = nn.BatchNorm2d(...)``, written by msmigrate): torch's Sequential runs every
    child it holds, in the order they were set, while MindSpore's construct reads ``cell_list``, which setting an
    attribute does not update; here setting a cell attribute updates it."""

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, nn.Cell) and "cell_list" in self.__dict__:
            self.cell_list = list(self._cells.values())


_MsmigrateBatchNorm1d.__name__ = "BatchNorm1d"
_MsmigrateBatchNorm2d.__name__ = "BatchNorm2d"
_MsmigrateSyncBatchNorm.__name__ = "SyncBatchNorm"
_MsmigrateLayerNorm.__name__ = "LayerNorm"
_MsmigrateGroupNorm.__name__ = "GroupNorm"
_MsmigrateConv2d.__name__ = "Conv2d"
_MsmigrateConv1d.__name__ = "Conv1d"
_MsmigrateMaxPool2dBase.__name__ = "MaxPool2d"
_MsmigrateAvgPool2dBase.__name__ = "AvgPool2d"
_MsmigrateConv3d.__name__ = "Conv3d"
_MsmigrateLinear.__name__ = "Linear"
_MsmigrateSequential.__name__ = "Sequential"
