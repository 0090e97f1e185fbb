# requires: torch_parameters
def _msmigrate_requires_grad_(obj, requires_grad=True):
    """Module.requires_grad_ / Parameter.requires_grad_ (written by msmigrate): on a Cell, PyTorch's parameters only
    (BatchNorm's running statistics stay frozen Parameters); on a Parameter, its requires_grad."""
    if isinstance(obj, nn.Cell):
        for p in _msmigrate_parameters(obj):
            p.requires_grad = requires_grad
    else:
        obj.requires_grad = requires_grad
    return obj
