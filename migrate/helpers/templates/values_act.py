def _msmigrate_value_GELU(approximate="none"):
    """torch.nn.GELU used as a value (``act_layer=nn.GELU``): MindSpore's GELU defaults to the tanh approximation,
    torch's is exact; approximate='tanh' is MindSpore's approximate=True (the same formula)."""
    if approximate not in ("none", "tanh"):
        raise ValueError(f"approximate argument must be either none or tanh, not {approximate!r}")
    return nn.GELU(approximate=approximate == "tanh")


def _msmigrate_value_ReLU(inplace=False):
    """torch.nn.ReLU used as a value (``act_layer(inplace=True)``): MindSpore has no in-place flag."""
    return nn.ReLU()


def _msmigrate_value_ReLU6(inplace=False):
    """torch.nn.ReLU6 used as a value."""
    return nn.ReLU6()


def _msmigrate_value_SiLU(inplace=False):
    """torch.nn.SiLU used as a value."""
    return nn.SiLU()


def _msmigrate_value_Hardswish(inplace=False):
    """torch.nn.Hardswish used as a value (MindSpore's HSwish)."""
    return nn.HSwish()


def _msmigrate_value_Hardsigmoid(inplace=False):
    """torch.nn.Hardsigmoid used as a value (MindSpore's HSigmoid)."""
    return nn.HSigmoid()


def _msmigrate_value_LeakyReLU(negative_slope=0.01, inplace=False):
    """torch.nn.LeakyReLU used as a value: MindSpore's slope defaults to 0.2, torch's to 0.01."""
    return nn.LeakyReLU(negative_slope)


def _msmigrate_value_Identity(*args, **kwargs):
    """torch.nn.Identity used as a value: torch's takes (and ignores) any arguments."""
    return nn.Identity()
