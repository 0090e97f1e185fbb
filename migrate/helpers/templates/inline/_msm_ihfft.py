def _msm_ihfft(input, n=None, dim=-1, norm=None):
    """ihfft as in PyTorch: conj(rfft) with the scaling swapped (MindSpore's ihfft returns the conjugate for some
    inputs, measured)."""
    swap = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}[norm]
    return ops.conj(ops.rfft(input, n, dim, swap))
