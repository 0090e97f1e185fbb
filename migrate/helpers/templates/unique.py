def _msmigrate_unique(input, return_inverse=False, return_counts=False):
    """torch.unique over all elements with its inverse indices and / or counts (written by msmigrate): sorted, as
    torch gives them; MindSpore's unique does not sort. The sorted values are gathered from the input by the sort's
    indices: MindSpore's Sort returns float64 values rounded to float32 (measured), which searchsorted would not find."""
    flat = input.flatten()
    values, counts = ops.unique_consecutive(flat[ops.sort(flat)[1]], return_counts=True)
    out = (values,)
    if return_inverse:
        out += (ops.searchsorted(values, flat).reshape(input.shape),)
    if return_counts:
        out += (counts,)
    return out if len(out) > 1 else values
