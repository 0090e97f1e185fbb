def _msmigrate_calculate_fan_in_and_fan_out(tensor):
    """torch.nn.init._calculate_fan_in_and_fan_out (written by msmigrate): (fan_in, fan_out) of a weight of at least
    two dimensions, the receptive field being the product of the dimensions after the first two, as torch's."""
    shape = tuple(tensor.shape)
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive
