def _msmigrate_assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                            check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None):
    """torch.testing.assert_close for tensors, numbers and sequences of them (written by msmigrate): torch's default
    tolerances for the dtype (float16 1e-3/1e-5, bfloat16 1.6e-2/1e-5, float32 1.3e-6/1e-5, float64 1e-7/1e-7,
    exact otherwise), the same dtype and shape unless check_dtype=False; an AssertionError when they differ."""
    import numpy as np

    if isinstance(actual, (list, tuple)) and isinstance(expected, (list, tuple)):
        if len(actual) != len(expected):
            raise AssertionError(msg or f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for a, e in zip(actual, expected):
            _msmigrate_assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype, msg=msg)
        return
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted")
    defaults = {ms.float16: (1e-3, 1e-5), ms.bfloat16: (1.6e-2, 1e-5), ms.float32: (1.3e-6, 1e-5),
                ms.float64: (1e-7, 1e-7)}
    if isinstance(actual, ms.Tensor) and isinstance(expected, ms.Tensor):
        if check_dtype and actual.dtype != expected.dtype:
            raise AssertionError(msg or f"The values for attribute 'dtype' do not match: {actual.dtype} != "
                                        f"{expected.dtype}.")
        tolerance = defaults.get(actual.dtype, (0.0, 0.0))
        a = actual.astype(ms.float32).asnumpy() if actual.dtype == ms.bfloat16 else actual.asnumpy()
        e = expected.astype(ms.float32).asnumpy() if expected.dtype == ms.bfloat16 else expected.asnumpy()
    else:
        a, e = (np.asarray(v.asnumpy() if isinstance(v, ms.Tensor) else v) for v in (actual, expected))
        tolerance = (1.3e-6, 1e-5) if a.dtype.kind == "f" or e.dtype.kind == "f" else (0.0, 0.0)
    if a.shape != e.shape:
        raise AssertionError(msg or f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}.")
    rtol, atol = (rtol, atol) if rtol is not None else tolerance
    if not np.allclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan):
        raise AssertionError(msg or f"Tensor-likes are not close! (rtol={rtol}, atol={atol})")
