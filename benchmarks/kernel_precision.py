"""Float32 kernel precision of MindSpore's CPU kernels against torch and a float64 reference (issue 30).

Both frameworks compute the same float32 inputs; the float64 result (numpy) rounded to float32 is the reference.
Prints, per op and input range, the largest absolute and relative error of each framework against the reference,
and the largest torch-MindSpore difference: the noise floor a comparison of the two must allow.

    PYTHONPATH=$PWD python benchmarks/kernel_precision.py
"""
from __future__ import annotations

import os

os.environ.setdefault("GLOG_v", "3")
os.environ.setdefault("ONEDNN_MAX_CPU_ISA", "AVX2")

import numpy as np  # noqa: E402


def _log_softmax64(x, axis=-1):
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def cases():
    rng = np.random.default_rng(0)
    yield "tanh", "N(0, 1)", rng.standard_normal(100_000).astype("float32"), np.tanh
    yield "tanh", "[-10, 10]", rng.uniform(-10, 10, 100_000).astype("float32"), np.tanh
    yield "tanh", "[-1e-3, 1e-3]", rng.uniform(-1e-3, 1e-3, 100_000).astype("float32"), np.tanh
    yield "log_softmax", "(1000, 10) N(0, 1)", rng.standard_normal((1000, 10)).astype("float32"), _log_softmax64
    yield "log_softmax", "(100, 1000) N(0, 3)", (3 * rng.standard_normal((100, 1000))).astype("float32"), _log_softmax64
    yield "sigmoid", "[-10, 10]", rng.uniform(-10, 10, 100_000).astype("float32"), lambda x: 1 / (1 + np.exp(-x.astype(np.float64)))
    yield "exp", "[-10, 10]", rng.uniform(-10, 10, 100_000).astype("float32"), lambda x: np.exp(x.astype(np.float64))
    yield "softmax", "(100, 1000) N(0, 3)", (3 * rng.standard_normal((100, 1000))).astype("float32"), \
        lambda x: np.exp(_log_softmax64(x))


def main() -> None:
    import mindspore as ms
    import torch
    from mindspore import ops

    t_ops = {"tanh": torch.tanh, "log_softmax": lambda x: torch.log_softmax(x, -1), "sigmoid": torch.sigmoid,
             "exp": torch.exp, "softmax": lambda x: torch.softmax(x, -1)}
    m_ops = {"tanh": ops.tanh, "log_softmax": lambda x: ops.log_softmax(x, -1), "sigmoid": ops.sigmoid,
             "exp": ops.exp, "softmax": lambda x: ops.softmax(x, -1)}
    print(f"{'op':12} {'input':22} {'torch abs':>10} {'torch rel':>10} {'ms abs':>10} {'ms rel':>10} "
          f"{'t-ms abs':>10} {'t-ms rel':>10}")
    for name, label, x, ref64 in cases():
        ref = ref64(x).astype(np.float64)
        t = t_ops[name](torch.from_numpy(x)).numpy().astype(np.float64)
        m = m_ops[name](ms.Tensor(x)).asnumpy().astype(np.float64)
        scale = np.maximum(np.abs(ref), np.finfo(np.float32).tiny)

        def err(a, b, s):
            return np.abs(a - b).max(), (np.abs(a - b) / s).max()

        ta, tr = err(t, ref, scale)
        ma, mr = err(m, ref, scale)
        da, dr = err(t, m, np.maximum(np.abs(t), np.finfo(np.float32).tiny))
        print(f"{name:12} {label:22} {ta:10.2e} {tr:10.2e} {ma:10.2e} {mr:10.2e} {da:10.2e} {dr:10.2e}")


if __name__ == "__main__":
    main()
