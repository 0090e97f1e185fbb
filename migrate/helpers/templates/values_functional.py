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
