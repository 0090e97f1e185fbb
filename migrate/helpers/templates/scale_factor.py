def _msmigrate_scale_factor(factor):
    """torch's ``scale_factor`` known only when the code runs (written by msmigrate): MindSpore resamples with a
    recomputed scale (``recompute_scale_factor=True``), which gives torch's output only for integral factors, so
    others raise rather than compute something else. MindSpore insists on floats."""
    factors = tuple(factor) if isinstance(factor, (tuple, list)) else (factor,)
    if not all(float(f).is_integer() for f in factors):
        raise ValueError(f"scale_factor={factor!r} is not integral: MindSpore's recomputed scale differs from "
                         "torch's (msmigrate converted this resize for integral factors only)")
    return tuple(float(f) for f in factors) if isinstance(factor, (tuple, list)) else float(factor)
