def _msmigrate_combinations(input, r=2, with_replacement=False):
    """torch.combinations (written by msmigrate): where no combination exists (r larger than the input without
    replacement, an empty input, r = 0) torch returns an empty tensor of the input's dtype, shape (0, r) (or (0,)
    for r = 0); MindSpore 2.10's ops.combinations returns a float32 tensor of shape (0,) or raises (measured)."""
    n = input.shape[0]
    if r == 0 or n == 0 or (r > n and not with_replacement):
        return ops.zeros((0, r) if r else (0,), input.dtype)
    return ops.combinations(input, r, with_replacement)
