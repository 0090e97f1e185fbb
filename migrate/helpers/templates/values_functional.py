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
