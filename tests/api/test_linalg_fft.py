"""torch.fft and torch.linalg (mappings/fft.toml, mappings/linalg.toml): converted code computes what torch computed."""
import numpy as np
import pytest

from tests.api.cases import HEADER, SQ, call_cases
from tests.harness import assert_unsupported, rng_array, run_case

R = rng_array
FFT_TOL = dict(rtol=1e-4, atol=1e-4, why_tolerance="FFT kernels (pocketfft vs MindSpore's) round float32 differently")
LIN = dict(rtol=1e-4, atol=1e-5, why_tolerance="factorisations accumulate float32 rounding differently")
S = {"x": R(4, 6)}
S3 = {"x": R(2, 4, 6)}
CX = {"x": (R(4, 6) + 1j * R(4, 6, seed=1)).astype("complex64")}
SPD = {"x": (lambda a: a @ a.T + 4 * np.eye(4, dtype="float32"))(R(4, 4))}
MAT = {"x": R(4, 3)}

CASES = [
    *[c for n in ("fft", "ifft", "rfft", "hfft")
      for c in call_cases(f"torch.fft.{n}", [f"torch.fft.{n}(x)", f"torch.fft.{n}(x, 8)", f"torch.fft.{n}(x, dim=0)",
                                             f"torch.fft.{n}(x, n=4, dim=-1, norm='ortho')", f"torch.fft.{n}(x, norm='forward')"],
                          S, **FFT_TOL)],
    *call_cases("torch.fft.fft", ["torch.fft.fft(x)"], CX, **FFT_TOL),
    *call_cases("torch.fft.ifft", ["torch.fft.ifft(x, norm='backward')"], CX, **FFT_TOL),
    *call_cases("torch.fft.irfft", ["torch.fft.irfft(x)", "torch.fft.irfft(x, 10)", "torch.fft.irfft(x, n=6, dim=0, norm='ortho')"],
                CX, **FFT_TOL),
    *call_cases("torch.fft.ihfft", ["torch.fft.ihfft(x)", "torch.fft.ihfft(x, norm='ortho')"], S, **FFT_TOL),
    *[c for n in ("fft2", "ifft2", "rfft2", "fftn", "ifftn", "rfftn")
      for c in call_cases(f"torch.fft.{n}", [f"torch.fft.{n}(x)", f"torch.fft.{n}(x, dim=(0, 2))" if "n" == n[-1] else f"torch.fft.{n}(x, dim=(0, 2))",
                                             f"torch.fft.{n}(x, s=(4, 4), dim=(-2, -1), norm='ortho')"], S3, **FFT_TOL)],
    *[c for n in ("irfft2", "irfftn") for c in call_cases(f"torch.fft.{n}", [f"torch.fft.{n}(x)", f"torch.fft.{n}(x, s=(4, 10))",
                                                                           f"torch.fft.{n}(x, norm='forward')"], CX, **FFT_TOL)],
    *[c for n in ("fftshift", "ifftshift") for c in call_cases(f"torch.fft.{n}", [f"torch.fft.{n}(x)", f"torch.fft.{n}(x, 1)",
                                                                                f"torch.fft.{n}(x, dim=(0, 1))"], S)],
    *[c for n in ("fftfreq", "rfftfreq") for c in call_cases(f"torch.fft.{n}", [f"torch.fft.{n}(8)", f"torch.fft.{n}(7, 0.5)",
                                                                              f"torch.fft.{n}(n=6, d=2.0)",
                                                                              f"torch.fft.{n}(5, dtype=torch.float64)"], {})],
    *call_cases("torch.linalg.vector_norm", ["torch.linalg.vector_norm(x)", "torch.linalg.vector_norm(x, 1)",
                                             "torch.linalg.vector_norm(x, ord=3, dim=1)", "torch.linalg.vector_norm(x, dim=(0, 1), keepdim=True)",
                                             "torch.linalg.vector_norm(x, float('inf'), -1)"], S, **LIN),
    *call_cases("torch.linalg.matrix_norm", ["torch.linalg.matrix_norm(x)", "torch.linalg.matrix_norm(x, 'nuc')",
                                             "torch.linalg.matrix_norm(x, ord=1)", "torch.linalg.matrix_norm(x, keepdim=True)"], S3, **LIN),
    *call_cases("torch.linalg.norm", ["torch.linalg.norm(x)", "torch.linalg.norm(x, 2)", "torch.linalg.norm(x, dim=1)",
                                      "torch.linalg.norm(x, ord='fro')", "torch.linalg.norm(x, 1, dim=0, keepdim=True)"], S, **LIN),
    *call_cases("torch.linalg.det", ["torch.linalg.det(x)", "torch.linalg.det(A=x)"], SQ, **LIN),
    *call_cases("torch.linalg.slogdet", ["torch.linalg.slogdet(x)", "tuple(torch.linalg.slogdet(x))"], SQ, **LIN),
    *call_cases("torch.linalg.inv", ["torch.linalg.inv(x)"], SQ, **LIN),
    *call_cases("torch.linalg.pinv", ["torch.linalg.pinv(x)", "torch.linalg.pinv(x, hermitian=False)"], MAT, **LIN),
    *call_cases("torch.linalg.pinv", ["torch.linalg.pinv(x, hermitian=True)"], SPD, **LIN),
    *call_cases("torch.linalg.cholesky", ["torch.linalg.cholesky(x)", "torch.linalg.cholesky(x, upper=True)"], SPD, **LIN),
    *call_cases("torch.linalg.qr", ["torch.linalg.qr(x)", "tuple(torch.linalg.qr(x, 'complete'))", "torch.linalg.qr(x, mode='reduced')"],
                MAT, **LIN),
    *call_cases("torch.linalg.svdvals", ["torch.linalg.svdvals(x)"], MAT, **LIN),
    *call_cases("torch.linalg.cross", ["torch.linalg.cross(x, y)", "torch.linalg.cross(x, y, dim=0)"],
                {"x": R(3, 3), "y": R(3, 3, seed=1)}, **LIN),
    *call_cases("torch.linalg.matrix_power", ["torch.linalg.matrix_power(x, 3)", "torch.linalg.matrix_power(x, n=0)"],
                {"x": SQ["x"] / 4}, **LIN),
    *call_cases("torch.linalg.vecdot", ["torch.linalg.vecdot(x, y)", "torch.linalg.vecdot(x, y, dim=0)"],
                {"x": R(3, 4), "y": R(3, 4, seed=1)}, **LIN),
    *call_cases("torch.linalg.diagonal", ["torch.linalg.diagonal(x)", "torch.linalg.diagonal(x, offset=1)"], S3),
    *call_cases("torch.linalg.solve", ["torch.linalg.solve(x, b)", "torch.linalg.solve(A=x, B=b)"],
                {**SQ, "b": R(4, 2, seed=1)}, **LIN),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_linalg_fft(case):
    run_case(case)


@pytest.mark.parametrize("code,api,reason", [
    ("out = torch.fft.fft(x, out=y)", "torch.fft.fft", "out="),
    ("out = torch.linalg.solve(x, b, left=False)", "torch.linalg.solve", "no form"),
    ("out = torch.linalg.pinv(x, rtol=1e-3)", "torch.linalg.pinv", "no form"),
])
def test_refused(code, api, reason):
    assert_unsupported(HEADER + code + "\n", api, reason)
