def _msmigrate_conv_set(conv, name, value):
    """``conv.stride = ...`` / ``padding`` / ``dilation`` on a built Conv2d (written by msmigrate; smp's
    make_dilated turns a ResNet's strides into dilations): torch reads them at every call, MindSpore's kernel takes
    them when the cell is built, so the attribute is set in MindSpore's terms and the kernel built again."""
    if not isinstance(conv, nn.Conv2d):  # a layer picked by its class name ('Conv' in it) that is no Conv2d
        if isinstance(conv, ms.nn.layer.conv._Conv):
            raise NotImplementedError(f"{type(conv).__name__}.{name} set after it was built: MindSpore's kernel "
                                      "took it then (only Conv2d is rebuilt)")
        setattr(conv, name, value)  # any other object: the attribute, as torch sets it
        return
    pair = (value, value) if isinstance(value, int) else tuple(value) if not isinstance(value, str) else value
    if name == "padding":
        conv.pad_mode, conv.padding = (value, 0) if isinstance(value, str) else ("pad", (pair[0], pair[0], pair[1],
                                                                                          pair[1]))
    else:
        setattr(conv, name, pair)
    conv.conv2d = ops.Conv2D(out_channel=conv.out_channels, kernel_size=conv.kernel_size, mode=1,
                             pad_mode=conv.pad_mode, pad=conv.padding, stride=conv.stride, dilation=conv.dilation,
                             group=conv.group, data_format=conv.data_format)
