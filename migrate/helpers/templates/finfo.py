def _msmigrate_finfo(type=None):
    """torch.finfo (written by msmigrate): the limits of a MindSpore float dtype (default float32) as Python floats,
    from numpy's finfo (ml_dtypes' for bfloat16, which numpy lacks); dtype is the name, as torch gives it."""
    import types

    import numpy as np

    dtype = ms.float32 if type is None else type
    if dtype == ms.bfloat16:
        import ml_dtypes

        info, name = ml_dtypes.finfo(ml_dtypes.bfloat16), "bfloat16"
    else:
        info = np.finfo(ms.dtype_to_nptype(dtype))
        name = np.dtype(info.dtype).name
    return types.SimpleNamespace(bits=int(info.bits), eps=float(info.eps), max=float(info.max), min=float(info.min),
                                 tiny=float(info.tiny), smallest_normal=float(info.tiny),
                                 resolution=float(info.resolution), dtype=name)
