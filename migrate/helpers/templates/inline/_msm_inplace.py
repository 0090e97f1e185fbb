def _msm_inplace(x, value):
    """x op= v as in PyTorch: the result keeps x's dtype; a result of a wider kind (bool < integer < floating <
    complex) raises as PyTorch does."""
    kinds = [3 if ops.is_complex(t) else 2 if ops.is_floating_point(t) else int(t.dtype != ms.bool_)
             for t in (x, value)]
    if kinds[1] > kinds[0]:
        raise RuntimeError("result type can't be cast to the desired output type of the in-place operator (PyTorch)")
    return value.astype(x.dtype)
