# requires: scale_factor
def _msmigrate_value_interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                                 recompute_scale_factor=None, antialias=False):
    """torch.nn.functional.interpolate used as a value (``interpolate = F.interpolate``, written by msmigrate): each
    call converted when it runs, as msmigrate converts a written one. MindSpore takes a scale factor only with
    ``recompute_scale_factor=True``, which gives torch's output for integral factors (others raise); torch's
    bicubic is not MindSpore's (TF-style) bicubic."""
    if antialias:
        raise NotImplementedError("interpolate(antialias=True): antialiased resizing is not mapped")
    if mode == "bicubic":
        raise NotImplementedError("interpolate(mode='bicubic'): MindSpore's bicubic resize follows TF and differs")
    if scale_factor is not None and size is None:
        return ops.interpolate(input, scale_factor=_msmigrate_scale_factor(scale_factor), mode=mode,
                               align_corners=align_corners, recompute_scale_factor=True)
    return ops.interpolate(input, size=size, mode=mode, align_corners=align_corners)


def _msmigrate_value_F_relu(input, inplace=False):
    """torch.nn.functional.relu used as a value (``act=F.relu``, called later with torch's arguments)."""
    out = ops.relu(input)
    return input.copy_(out) if inplace else out


def _msmigrate_value_F_relu6(input, inplace=False):
    """torch.nn.functional.relu6 used as a value (``act=F.relu6``, called later with torch's arguments)."""
    out = ops.relu6(input)
    return input.copy_(out) if inplace else out


def _msmigrate_value_F_silu(input, inplace=False):
    """torch.nn.functional.silu used as a value (``act=F.silu``, called later with torch's arguments)."""
    out = ops.silu(input)
    return input.copy_(out) if inplace else out


def _msmigrate_value_F_mish(input, inplace=False):
    """torch.nn.functional.mish used as a value (``act=F.mish``, called later with torch's arguments)."""
    out = ops.mish(input)
    return input.copy_(out) if inplace else out


def _msmigrate_value_F_selu(input, inplace=False):
    """torch.nn.functional.selu used as a value (``act=F.selu``, called later with torch's arguments)."""
    out = ops.selu(input)
    return input.copy_(out) if inplace else out


def _msmigrate_value_F_hardswish(input, inplace=False):
    """torch.nn.functional.hardswish used as a value (``act=F.hardswish``, called later with torch's arguments)."""
    out = ops.hardswish(input)
    return input.copy_(out) if inplace else out


def _msmigrate_value_F_hardsigmoid(input, inplace=False):
    """torch.nn.functional.hardsigmoid used as a value (``act=F.hardsigmoid``, called later with torch's arguments)."""
    out = ops.hardsigmoid(input)
    return input.copy_(out) if inplace else out


def _msmigrate_value_F_leaky_relu(input, negative_slope=0.01, inplace=False):
    """torch.nn.functional.leaky_relu used as a value (``act=F.leaky_relu``, called later with torch's arguments)."""
    out = ops.leaky_relu(input, negative_slope)
    return input.copy_(out) if inplace else out


def _msmigrate_value_F_celu(input, alpha=1.0, inplace=False):
    """torch.nn.functional.celu used as a value (``act=F.celu``, called later with torch's arguments)."""
    out = ops.celu(input, alpha)
    return input.copy_(out) if inplace else out


def _msmigrate_value_F_elu(input, alpha=1.0, inplace=False):
    """torch.nn.functional.elu used as a value: MindSpore 2.10's Elu kernel accepts only alpha=1.0 (measured)."""
    if alpha != 1.0:
        raise NotImplementedError(f"F.elu(alpha={alpha!r}): MindSpore's Elu kernel accepts only alpha=1.0")
    out = ops.elu(input)
    return input.copy_(out) if inplace else out
