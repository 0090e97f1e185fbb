def _msmigrate_roll(input, shifts, dims=None):
    """torch.roll: ops.roll has no CPU kernel in MindSpore 2.10; two slices and a concatenation per axis."""
    if dims is None:  # torch rolls the flattened tensor, then restores the shape
        return _msmigrate_roll(input.reshape(-1), shifts, 0).reshape(input.shape)
    if isinstance(shifts, int):
        shifts = (shifts,)
    if isinstance(dims, int):
        dims = (dims,)
    if len(shifts) != len(dims):
        raise ValueError(f"roll: shifts and dims must have the same length, got {len(shifts)} and {len(dims)}")
    out = input
    for shift, dim in zip(shifts, dims):
        size = out.shape[dim]
        if size == 0:
            continue
        shift = int(shift) % size
        if shift:
            dim = dim % out.ndim
            head = [slice(None)] * dim
            out = ops.cat((out[tuple(head + [slice(size - shift, None)])],
                           out[tuple(head + [slice(0, size - shift)])]), axis=dim)
    return out
