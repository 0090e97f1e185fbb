"""The minimal failing example of every mismatch the differential fuzzer found (issue 16), kept as a regular
two-framework case: each ran and gave other numbers (or failed when run) before its fix, fix, injected cast or
refusal. Module-mode cases run through tests.fuzz.engine, which copies the weights but, unlike the harness, does
NOT align the train/eval modes: that is what they check."""
import numpy as np
import pytest

from tests.api.cases import HEADER
from tests.fuzz.engine import converted, run_example
from tests.fuzz.families import copy_weights
from tests.fuzz.strategies import Example
from tests.harness import Case, assert_unsupported, rng_array, run_case, run_case_loud

I32 = {"x": np.array([0, -1, 5, 7], dtype="int32")}
I64 = {"x": np.array([[0, -1], [5, -8]], dtype="int64"), "y": np.array([[1, 2], [0, 3]], dtype="int64")}
B = {"x": np.array([True, False, True])}
# float16 results: torch's CPU kernels compute in float32 and round once, the composed MindSpore forms round per op
F16 = dict(rtol=2e-3, atol=2e-3, why_tolerance="float16: two half-precision ulps (torch rounds once, the composed "
           "form per op)")
MIX = {"x": rng_array(2, 3, dtype="int64", low=-3, high=4), "y": rng_array(2, 3, seed=1)}

CASES = [
    # ~x: bitwise not on integer tensors in torch, a logical not in MindSpore
    Case("operator ~", f"{HEADER}# @run\nout = ~x\n", inputs=I32, id="~int32"),
    Case("operator ~", f"{HEADER}# @run\nout = ~x\n", inputs=I64, id="~int64"),
    Case("operator ~", f"{HEADER}# @run\nout = ~(x + 1)\n", inputs=I64, id="~expression"),
    Case("torch.isnan", f"{HEADER}# @run\nout = ~torch.isnan(x)\n",
         inputs={"x": np.array([1.0, np.nan], dtype="float32")}, id="~bool stays"),
    Case("operator ~", f"{HEADER}# @run\nout = ~x\n", inputs=B, id="~bool"),
    # shifts and a number on the left of a bitwise operator raised TypeError
    Case("operator <<", f"{HEADER}# @run\nout = x << 2\n", inputs=I64, id="x << 2"),
    Case("operator >>", f"{HEADER}# @run\nout = x >> y\n", inputs=I64, id="x >> y"),
    Case("operator <<=", f"{HEADER}# @run\nx <<= 1\nout = x\n", inputs=I64, id="x <<= 1"),
    Case("operator ^", f"{HEADER}# @run\nout = 2 ^ x\n", inputs=I64, id="2 ^ x"),
    Case("operator &", f"{HEADER}# @run\nout = 6 & x\n", inputs=I64, id="6 & x"),
    # a broadcast weight: MindSpore's kernel read past it (-1.3e23 where torch gave 0.51)
    Case("torch.nn.functional.binary_cross_entropy",
         f"{HEADER}# @run\nout = F.binary_cross_entropy(x, t, weight=w)\n",
         inputs={"x": np.array([[0.2, 0.7, 0.9], [0.4, 0.5, 0.1]], dtype="float32"),
                 "t": np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], dtype="float32"),
                 "w": np.array([1.0, 2.0, 0.5], dtype="float32")}, id="bce broadcast weight"),
    # round(decimals): MindSpore's CPU kernel only supports decimals=0
    Case("Tensor.round", f"{HEADER}# @run\nout = x.round(decimals=1)\n",
         inputs={"x": np.array([1.26, -2.35, 0.04, 7.0], dtype="float32")}, id="round decimals=1"),
    Case("Tensor.round", f"{HEADER}# @run\nout = x.round(decimals=-1)\n",
         inputs={"x": np.array([126.0, -35.0, 4.0], dtype="float32")}, id="round decimals=-1"),
    Case("torch.round", f"{HEADER}# @run\nout = torch.round(x, decimals=2)\n",
         inputs={"x": np.array([1.256, -2.351], dtype="float32")}, id="torch.round decimals=2"),
    Case("Tensor.round", f"{HEADER}# @run\nd = 1\nout = x.round(decimals=d)\n",
         inputs={"x": np.array([1.26, -2.35], dtype="float32")}, id="round decimals variable"),
    # index_put_(accumulate=True): the method did not exist on MindSpore tensors after conversion
    Case("Tensor.index_put_", f"{HEADER}# @run\nx.index_put_((i, j), v, accumulate=True)\nout = x\n",
         inputs={"x": np.zeros((3, 4), dtype="float32"), "i": np.array([0, 0, 2]), "j": np.array([1, 1, 3]),
                 "v": np.array([1.0, 2.0, 3.0], dtype="float32")}, id="index_put_ accumulate"),
    Case("Tensor.index_put", f"{HEADER}# @run\nout = x.index_put((i, j), v)\n",
         inputs={"x": np.zeros((3, 4), dtype="float32"), "i": np.array([0, 0, 2]), "j": np.array([1, 1, 3]),
                 "v": np.array([1.0, 2.0, 3.0], dtype="float32")}, id="index_put"),
    # integer sums are int64 in torch; MindSpore's nansum kept int32, its Tensor.nansum took no keepdim
    Case("Tensor.nansum", f"{HEADER}# @run\nout = x.nansum()\n", inputs={"x": np.array([[1, 2], [3, 4]], dtype="int32")},
         id="nansum int32"),
    Case("Tensor.nansum", f"{HEADER}# @run\nout = x.nansum(0, keepdim=True)\n",
         inputs={"x": np.array([[1.0, np.nan], [3.0, 4.0]], dtype="float32")}, id="nansum keepdim"),
    Case("torch.nansum", f"{HEADER}# @run\nout = torch.nansum(x)\n", inputs={"x": np.array([True, True, False])},
         id="torch.nansum bool"),
    # argmax/argmin(keepdim=True) without dim: torch keeps every axis as size 1
    Case("Tensor.argmax", f"{HEADER}# @run\nout = x.argmax(keepdim=True)\n", inputs={"x": rng_array(2, 5)},
         id="argmax keepdim no dim"),
    Case("Tensor.argmin", f"{HEADER}# @run\nout = x.argmin(keepdim=True)\n", inputs={"x": rng_array(2, 5)},
         id="argmin keepdim no dim"),
    Case("torch.argmin", f"{HEADER}# @run\nout = torch.argmin(x, keepdim=True)\n", inputs={"x": rng_array(3, 2)},
         id="torch.argmin keepdim no dim"),
    Case("Tensor.argmax", f"{HEADER}# @run\nout = x.argmax(1)\n", inputs={"x": rng_array(2, 5)}, id="argmax dim"),
    # float methods of bool tensors: torch computes in float32, MindSpore's sinc gave nan (silent: guarded)
    Case("Tensor.sinc", f"{HEADER}# @run\nout = x.sinc()\n", inputs=B, id="sinc bool (was nan)"),
    Case("torch.sinc", f"{HEADER}# @run\nout = torch.sinc(x)\n", inputs=B, id="torch.sinc bool (was nan)"),
    # xlogy(0, y) is 0 in torch for y = 0 or y < 0; MindSpore gave nan (entropy terms 0 * log 0)
    Case("torch.xlogy", f"{HEADER}# @run\nout = torch.xlogy(x, y)\n",
         inputs={"x": np.array([0.0, 0.0, 0.0, 1.0, 2.0], dtype="float32"),
                 "y": np.array([0.0, -1.0, np.nan, 2.0, 0.5], dtype="float32")}, id="xlogy zeros"),
    Case("Tensor.xlogy", f"{HEADER}# @run\nout = p.xlogy(p)\n", inputs={"p": np.array([0.0, 0.25, 0.75], dtype="float32")},
         id="p.xlogy(p) entropy"),
    # integer 0 ** negative: 0 in torch, the dtype's minimum (-9223372036854775808) in MindSpore's Pow kernel
    Case("Tensor.pow", f"{HEADER}# @run\nout = x.pow(y)\n",
         inputs={"x": np.array([0, 2, -1, 0, 1], dtype="int64"), "y": np.array([-1, -1, -3, 2, -2], dtype="int64")},
         id="pow int64 0**-1"),
    Case("Tensor.pow_", f"{HEADER}# @run\nx.pow_(y)\nout = x\n",
         inputs={"x": np.array([0, 3], dtype="int32"), "y": np.array([-2, 2], dtype="int32")}, id="pow_ int32 0**-2"),
    Case("torch.pow", f"{HEADER}# @run\nout = torch.pow(x, y)\n",
         inputs={"x": np.array([[0], [2]], dtype="int64"), "y": np.array([-1, 3], dtype="int64")},
         id="torch.pow broadcast 0**-1"),
    Case("torch.pow", f"{HEADER}# @run\nout = torch.pow(2, y)\n", inputs={"y": np.array([-1, 0, 3], dtype="int64")},
         id="torch.pow 2**y"),
    Case("torch.pow", f"{HEADER}# @run\nout = torch.pow(x, 0.5)\n", inputs={"x": np.array([0.0, 4.0], dtype="float32")},
         id="torch.pow float"),
    # cosine_similarity: torch clamps each norm at eps, MindSpore the product of the norms (-0.5 vs -0.15 here)
    Case("torch.nn.functional.cosine_similarity", f"{HEADER}# @run\nout = F.cosine_similarity(x, y, dim=0, eps=0.1)\n",
         inputs={"x": np.array(0.05, dtype="float32"), "y": np.array(-0.3, dtype="float32")}, id="cosine 0-d eps"),
    Case("torch.nn.functional.cosine_similarity", f"{HEADER}# @run\nout = F.cosine_similarity(x, y, eps=0.1)\n",
         inputs={"x": np.array([[0.05, 0.02], [1.0, 2.0]], dtype="float32"),
                 "y": np.array([[-0.3, 0.01], [3.0, -1.0]], dtype="float32")}, id="cosine small norm"),
    Case("torch.cosine_similarity", f"{HEADER}# @run\nout = torch.cosine_similarity(x, y, dim=1)\n",
         inputs={"x": rng_array(3, 1, 4), "y": rng_array(3, 5, 4, seed=1)}, id="cosine broadcast along dim"),
    Case("torch.nn.functional.cosine_similarity", f"{HEADER}# @run\nout = F.cosine_similarity(x, y)\n",
         inputs={"x": np.array(3, dtype="int32"), "y": np.array([[0.5], [-2.0]], dtype="float16")},
         id="cosine int32 with float16 is float16"),
    # ihfft: MindSpore's kernel returned the conjugate for some inputs
    Case("torch.fft.ihfft", f"{HEADER}# @run\nout = torch.fft.ihfft(x, dim=-1)\n",
         inputs={"x": np.array([9.0, 1.0, -7.0], dtype="float64")}, id="ihfft conjugate"),
    Case("torch.fft.ihfft", f"{HEADER}# @run\nout = torch.fft.ihfft(x, 4, norm='ortho')\n",
         inputs={"x": rng_array(2, 5)}, id="ihfft n norm"),
    Case("torch.fft.ihfft", f"{HEADER}# @run\nout = torch.fft.ihfft(x, norm='forward')\n",
         inputs={"x": rng_array(3)}, id="ihfft forward"),
    # corrcoef of a constant row: nan in torch (0 / 0); MindSpore's clip turned the nan into -1
    Case("Tensor.corrcoef", f"{HEADER}# @run\nout = x.corrcoef()\n",
         inputs={"x": np.array([[1.0, 1.0], [2.0, 3.0], [0.0, 5.0]], dtype="float32")}, id="corrcoef constant row"),
    Case("Tensor.corrcoef", f"{HEADER}# @run\nout = x.corrcoef()\n", inputs={"x": rng_array(3, 5)}, id="corrcoef"),
    # vdot of int32: int32 in torch, int64 in MindSpore's sum
    Case("Tensor.vdot", f"{HEADER}# @run\nout = x.vdot(y)\n",
         inputs={"x": np.array([1, -2, 3, 4], dtype="int32"), "y": np.array([5, 6, -7, 8], dtype="int32")}, id="vdot int32"),
    Case("Tensor.vdot", f"{HEADER}# @run\nout = x.vdot(y)\n", inputs={"x": rng_array(4), "y": rng_array(4, seed=1)},
         id="vdot float32"),
    # l1_loss(reduction='sum') of int32: int64 in torch, int32 in MindSpore
    Case("torch.nn.functional.l1_loss", f"{HEADER}# @run\nout = F.l1_loss(x, y, reduction='sum')\n",
         inputs={"x": np.array([1, -2, 3], dtype="int32"), "y": np.array([0, 5, 3], dtype="int32")}, id="l1 int32 sum"),
    Case("torch.nn.functional.l1_loss", f"{HEADER}# @run\nout = F.l1_loss(x, y, reduction='sum')\n",
         inputs={"x": np.array(4, dtype="int32"), "y": np.array(-0.264, dtype="float16")}, id="l1 int32-float16 sum"),
    Case("torch.nn.Module.__init__", f"{HEADER}class Twice(nn.Module):\n    def __init__(self):\n"
         f"        nn.Module.__init__(self)\n        self.k = 2\n\n    def forward(self, x):\n"
         f"        return x * self.k * (3 if self.training else 1)\n\n# @run\nout = Twice()(x)\n",
         inputs={"x": rng_array(2, 3)}, id="nn.Module.__init__(self), training at construction"),
    Case("torch.nn.functional.l1_loss", f"{HEADER}# @run\nout = F.l1_loss(x, y)\n",
         inputs={"x": rng_array(2, 3), "y": rng_array(2, 3, seed=1)}, id="l1 float mean"),
    # x ** y and x **= y on integer tensors: the operator form of the same 0 ** negative
    Case("operator **", f"{HEADER}# @run\nout = x ** y\n",
         inputs={"x": np.array([0, 2, 0], dtype="int64"), "y": np.array([-1, 2, 3], dtype="int64")}, id="x ** y int"),
    Case("operator **", f"{HEADER}# @run\nn = 3\nout = (x ** 2, 2 ** n, x ** n)\n",
         inputs={"x": np.array([1.5, -2.0], dtype="float32")}, id="** literals and numbers"),
    # x += v with an alias: torch changes the alias too, MindSpore's += bound a new tensor (alias kept old values)
    Case("operator += on a shared tensor", f"{HEADER}# @run\nalias = x\nx += y\nout = (x, alias)\n",
         inputs={"x": rng_array(2, 3), "y": rng_array(3, seed=1)}, id="alias += tensor"),
    Case("operator *= on a shared tensor", f"{HEADER}# @run\ndef scale(t, s):\n    t *= s\n    return t\nout = (scale(x, 2.0), x)\n",
         inputs={"x": rng_array(2, 3)}, id="parameter *= (the caller's tensor)"),
    Case("operator **= on a shared tensor", f"{HEADER}# @run\nalias = x\nx **= y\nout = alias\n",
         inputs={"x": np.array([0, 2], dtype="int64"), "y": np.array([-1, 3], dtype="int64")}, id="alias **= int"),
    Case("operator += on a shared tensor", f"{HEADER}# @run\nalias = x\nx += y\nout = alias\n",
         inputs={"x": np.array([1.0, 2.0], dtype="float32"), "y": np.array([0.5, 0.25], dtype="float64")},
         id="alias += keeps the dtype"),
    Case("operator += on a shared tensor", f"{HEADER}# @run\nn = 0\nm = n\nm += 1\nl = [1]\nk = l\nk += [2]\nout = (n, m, l)\n",
         inputs={}, id="+= on numbers and lists stays Python's"),
    # addcdiv/addcmul compute in the dtype torch promotes the three tensors to: float16 with an int64 tensor1 gave
    # float32 (value * int64 is float32 in MindSpore), Addcmul refused mixed dtypes, int tensors truncate value
    Case("torch.addcdiv", f"{HEADER}# @run\nout = torch.addcdiv(x, y, value=-1.5, tensor2=z)\n",
         inputs={"x": np.array([0.25, -1.0, 3.0], dtype="float16"), "y": np.array([2, -3, 0], dtype="int64"),
                 "z": np.array([1.28125, 0.5, -2.0], dtype="float16")}, id="addcdiv float16 with int64 tensor1", **F16),
    Case("Tensor.addcdiv", f"{HEADER}# @run\nout = x.addcdiv(y, z, value=0.5)\n",
         inputs={"x": np.array([1, 2], dtype="int64"), "y": np.array([3, -4], dtype="int64"),
                 "z": np.array(1.5, dtype="float16")}, id="addcdiv int64 with 0-d float16", **F16),
    Case("Tensor.addcdiv_", f"{HEADER}# @run\nx.addcdiv_(y, z, value=-1.5)\nout = x\n",
         inputs={"x": np.array([0.5, 1.0], dtype="float16"), "y": np.array([1, 2], dtype="int32"),
                 "z": np.array([2.0, 4.0], dtype="float16")}, id="addcdiv_ float16 with int32 tensor1", **F16),
    Case("Tensor.addcmul", f"{HEADER}# @run\nout = x.addcmul(y, z, value=-1.5)\n",
         inputs={"x": np.array([4, 1], dtype="int32"), "y": np.array([-3, 2], dtype="int32"),
                 "z": np.array([-4, 5], dtype="int32")}, id="addcmul int32 truncates value"),
    Case("Tensor.addcmul", f"{HEADER}# @run\nout = x.addcmul(y, z)\n",
         inputs={"x": np.array([1, 2], dtype="int64"), "y": np.array([3, 4], dtype="int64"),
                 "z": np.array([0.5, -1.5], dtype="float32")}, id="addcmul int64 with float32"),
    Case("torch.addcmul", f"{HEADER}# @run\nout = torch.addcmul(x, y, z, value=0.1)\n",
         inputs={"x": rng_array(2, 3), "y": rng_array(3, seed=1), "z": rng_array(2, 3, seed=2)}, id="addcmul float32"),
    Case("Tensor.addcmul_", f"{HEADER}# @run\nx.addcmul_(value=True, tensor2=z, tensor1=y)\nout = x\n",
         inputs={"x": np.array([1], dtype="int32"), "y": np.array([2], dtype="int32"), "z": np.array([3], dtype="int32")},
         id="addcmul_ int32 value=True"),
    # corrcoef: float16 stays float16 (MindSpore's cov gave float32), a 1-D input is one variable (0-d result;
    # MindSpore's diagonal of the 0-d cov raised), a constant row is nan (MindSpore's nan / 0 is -inf)
    Case("torch.corrcoef", f"{HEADER}# @run\nout = torch.corrcoef(x)\n",
         inputs={"x": np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], dtype="float16")}, id="corrcoef float16",
         **F16),
    Case("torch.corrcoef", f"{HEADER}# @run\nout = torch.corrcoef(x)\n",
         inputs={"x": np.array([1, 5, 2], dtype="int32")}, id="corrcoef 1-D"),
    Case("Tensor.corrcoef", f"{HEADER}# @run\nout = x.corrcoef()\n",
         inputs={"x": np.array([[0, 0], [3, 5], [-5, -4]], dtype="int32")}, id="corrcoef int32 constant row"),
    # x += y where no alias exists: torch's in-place operator keeps x's dtype, MindSpore's += promoted it
    Case("operator += keeps the dtype", f"{HEADER}# @run\ndef f(a, b):\n    t = a.clone()\n    t += b\n    return t\n"
         f"out = f(x, y)\n", inputs={"x": np.array([1.0, 2.0], dtype="float16"), "y": np.array([0.5, 1e-3], dtype="float32")},
         id="local float16 += float32"),
    Case("operator *= keeps the dtype", f"{HEADER}# @run\ndef f(a, b):\n    t = a.clone()\n    t *= b\n    return t\n"
         f"out = f(x, y)\n", inputs={"x": np.array([1, 2], dtype="int32"), "y": np.array([3, 2**33], dtype="int64")},
         id="local int32 *= int64"),
    Case("operator += keeps the dtype", f"{HEADER}# @run\nx.data += y\nout = x\n",
         inputs={"x": np.array([1.0, 2.0], dtype="float16"), "y": np.array([0.5, 0.25], dtype="float32")},
         id="x.data += float32 on float16"),
    Case("operator -= keeps the dtype", f"{HEADER}w = nn.Parameter(torch.ones(3, dtype=torch.float16))\n# @run\n"
         f"w.data -= 0.1 * y\nout = w.detach()\n", inputs={"y": np.array([1.0, 2.0, 3.0], dtype="float32")},
         id="param.data -= float32 on float16", **F16),
    # any/all of a non-bool tensor: MindSpore's kernels gave wrong values ([[0, 1], [0, 0]].any(0) -> [False, False])
    Case("Tensor.any", f"{HEADER}# @run\nout = x.any(0, keepdim=True)\n",
         inputs={"x": np.array([[[0, 1], [0, 0], [2, 0]], [[0, 0], [0, 3], [0, 0]]], dtype="int64")}, id="any int64 dim"),
    Case("Tensor.any", f"{HEADER}# @run\nout = x.any(1)\n", inputs={"x": np.array([[0.0, 1.5], [0.0, 0.0]], dtype="float32")},
         id="any float32 dim"),
    Case("torch.any", f"{HEADER}# @run\nout = torch.any(x, dim=0)\n", inputs={"x": np.array([[0, 0], [0, 2]], dtype="int64")},
         id="torch.any int64"),
    Case("Tensor.all", f"{HEADER}# @run\nout = (x.all(0), x.all())\n", inputs={"x": np.array([[1, 1], [0, 2]], dtype="int64")},
         id="all int64"),
    Case("torch.all", f"{HEADER}# @run\nout = torch.all(x, 1, keepdim=True)\n",
         inputs={"x": np.array([[1, 1], [0, 2]], dtype="int64")}, id="torch.all int64"),
    # diag of a matrix extracts the diagonal in torch; MindSpore's Tensor.diag built a (3, 3, 3, 3) tensor
    Case("Tensor.diag", f"{HEADER}# @run\nout = x.diag()\n", inputs={"x": rng_array(3, 3)}, id="diag of a matrix"),
    Case("Tensor.diag", f"{HEADER}# @run\nout = (x.diag(1), v.diag(-1))\n", inputs={"x": rng_array(3, 4), "v": rng_array(3)},
         id="diag offsets"),
    Case("torch.diag", f"{HEADER}# @run\nout = torch.diag(v, 1)\n", inputs={"v": rng_array(3)}, id="torch.diag vector offset"),
    # keyword names MindSpore spells otherwise, kernels it lacks on CPU, integer inputs of float functions
    Case("Tensor.diagonal", f"{HEADER}# @run\nout = x.diagonal(dim1=-2, dim2=-1)\n", inputs={"x": rng_array(2, 3, 3)},
         id="diagonal dim1 dim2"),
    Case("Tensor.tensor_split", f"{HEADER}# @run\nout = x.tensor_split(2, dim=1)\n", inputs={"x": rng_array(4, 3)},
         id="tensor_split dim="),
    Case("Tensor.float_power", f"{HEADER}# @run\nout = x.float_power(exponent=2)\n", inputs={"x": rng_array(3)},
         id="float_power exponent="),
    Case("Tensor.floor_divide", f"{HEADER}# @run\nout = x.floor_divide(2)\n",
         inputs={"x": np.array([3.5, -3.5, 4.0], dtype="float32")}, id="floor_divide float scalar"),
    # torch.special twins of entries fixed before: bool sinc was nan, xlogy(0, y <= 0) nan, vdot int32 summed to int64
    Case("torch.special.sinc", f"{HEADER}# @run\nout = torch.special.sinc(x)\n", inputs=B, id="special.sinc bool"),
    Case("torch.special.xlogy", f"{HEADER}# @run\nout = torch.special.xlogy(x, y)\n",
         inputs={"x": np.array([0.0, 0.0, 1.0, 2.0], dtype="float32"), "y": np.array([0.0, -1.0, 2.0, 0.5], dtype="float32")},
         id="special.xlogy zeros"),
    Case("torch.vdot", f"{HEADER}# @run\nout = torch.vdot(x, y)\n",
         inputs={"x": np.array([1, -2, 3], dtype="int32"), "y": np.array([5, 6, -7], dtype="int32")}, id="torch.vdot int32"),
    # dist(p=0) counts non-zero differences in torch (MindSpore gave the norm); histc of float16 stays float16
    Case("torch.dist", f"{HEADER}# @run\nout = (torch.dist(x, y, 0.0), torch.dist(x, y))\n",
         inputs={"x": np.array([0.25, 1.0, 2.0], dtype="float32"), "y": np.array([-0.26, 1.0, 3.0], dtype="float32")},
         id="dist p=0"),
    Case("torch.histc", f"{HEADER}# @run\nout = torch.histc(x, bins=4, min=0, max=2)\n",
         inputs={"x": np.array([0.25, 1.0, 1.5, 0.0, 2.0], dtype="float16")}, id="histc float16"),
    # logspace with an integer dtype: torch casts start/end to it first (1 where MindSpore gave 3 for start=0.5)
    Case("torch.logspace", f"{HEADER}# @run\nout = torch.logspace(dtype=torch.int32, steps=5, end=-1, start=0.5)\n",
         id="logspace int32 start=0.5"),
    Case("torch.logspace", f"{HEADER}# @run\nout = (torch.logspace(0.5, 3.5, 1, dtype=torch.int32), "
         "torch.logspace(0.7, 2.2, 1, dtype=torch.int64), torch.logspace(0.5, 3.5, 3, dtype=torch.int64))\n",
         id="logspace int steps=1"),
    Case("torch.logspace", f"{HEADER}# @run\nout = torch.logspace(0.5, 2.7, 5, dtype=torch.int64)\n", id="logspace int64"),
    Case("torch.logspace", f"{HEADER}# @run\nout = torch.logspace(-1.5, 3.5, 6, base=3, dtype=torch.int64)\n",
         id="logspace int64 base 3"),
    Case("torch.logspace", f"{HEADER}# @run\nout = torch.logspace(0, 10, 11, base=2, dtype=torch.int32)\n",
         id="logspace int32 base 2"),
    Case("torch.logspace", f"{HEADER}# @run\nout = torch.logspace(0.5, 2.5, 5, dtype=torch.float32)\n",
         id="logspace float32 dtype"),
    # torch.pinverse cuts at rcond=1e-15 (rcond= was not converted); a full-rank batch keeps its numbers
    Case("torch.pinverse", f"{HEADER}# @run\nout = (torch.pinverse(x, rcond=1e-2), torch.pinverse(x, 1e-4))\n",
         inputs={"x": np.diag([2.0, 1e-3, 1.0]).astype("float32")}, id="pinverse rcond"),
    Case("Tensor.pinverse", f"{HEADER}# @run\nout = (x.pinverse(rcond=1e-2), x.pinverse())\n",
         inputs={"x": np.diag([2.0, 1e-3, 1.0]).astype("float32")}, id="Tensor.pinverse rcond"),
    Case("torch.pinverse", f"{HEADER}# @run\nout = torch.pinverse(x)\n", inputs={"x": rng_array(5, 2, 3)},
         id="pinverse batch", rtol=1e-4, atol=1e-5,
         why_tolerance="two SVD kernels: a few float32 ulps of the singular values, amplified by their inverse"),
    # loud findings on ordinary inputs: each raised in MindSpore where torch computed
    Case("torch.sqrt", f"{HEADER}# @run\nout = torch.sqrt(input=x)\n",
         inputs={"x": np.array([1.0, 4.0, 9.0], dtype="float32")}, id="sqrt input keyword"),
    Case("Tensor.divide_", f"{HEADER}# @run\nx.divide_(2, rounding_mode='trunc')\nout = x\n",
         inputs={"x": np.array([[3.0, -3.0], [5.5, 1.0]], dtype="float32")}, id="divide_ rounding_mode"),
    Case("Tensor.slice_scatter", f"{HEADER}# @run\nout = x.slice_scatter(src=y, dim=0, end=1)\n",
         inputs={"x": np.zeros((2, 3), dtype="float32"), "y": np.ones((1, 3), dtype="float32")}, id="slice_scatter dim="),
    # MindSpore's ops.cov returns float32 for float16
    Case("torch.cov", f"{HEADER}# @run\nout = torch.cov(x, correction=0)\n", inputs={"x": rng_array(2, 5, dtype="float16")},
         id="cov float16", **F16),
    Case("Tensor.cov", f"{HEADER}# @run\nout = x.cov()\n", inputs={"x": rng_array(3, 4, dtype="float16")},
         id="Tensor.cov float16", **F16),
    Case("Tensor.cov", f"{HEADER}# @run\nout = x.cov(correction=0)\n", inputs={"x": rng_array(3, 4)},
         id="Tensor.cov float32"),
    # MindSpore's is_signed() is False for float16
    Case("Tensor.is_signed", f"{HEADER}# @run\nout = x.is_signed()\n", inputs={"x": np.zeros(3, dtype="float16")},
         id="is_signed float16"),
    Case("Tensor.is_signed", f"{HEADER}# @run\nout = x.is_signed()\n", inputs={"x": np.zeros(3, dtype="uint8")},
         id="is_signed uint8"),
    # cumsum: torch casts to dtype first and sums bool/integer inputs in int64; MindSpore cast after, kept int32
    Case("Tensor.cumsum", f"{HEADER}# @run\nout = x.cumsum(-1, dtype=torch.int64)\n",
         inputs={"x": np.array([[0.6, 0.7, -1.5, 2.2]], dtype="float32")}, id="cumsum dtype casts first"),
    Case("torch.cumsum", f"{HEADER}# @run\nout = torch.cumsum(x, 1, dtype=torch.int32)\n",
         inputs={"x": np.array([[0.6, 0.7, -1.5, 2.2]], dtype="float32")}, id="torch.cumsum dtype casts first"),
    Case("Tensor.cumsum", f"{HEADER}# @run\nout = x.cumsum(dim=-1)\n", inputs={"x": np.array([True, True, False])},
         id="cumsum bool is int64"),
    Case("torch.cumsum", f"{HEADER}# @run\nout = torch.cumsum(x, 0)\n", inputs={"x": np.array([3, -1, 2], dtype="int32")},
         id="cumsum int32 is int64"),
    Case("Tensor.cumsum", f"{HEADER}# @run\nout = x.cumsum(0)\n", inputs={"x": rng_array(3, 2, dtype="float16")},
         id="cumsum float16 stays", **F16),
    # MindSpore's kernels killed the process: TopK on a 0-d input, CumSum on an empty one (valid torch calls)
    Case("Tensor.topk", f"{HEADER}# @run\nout = x.topk(k=1)\n", inputs={"x": np.array(3, dtype="int64")},
         id="topk 0-d"),
    Case("torch.topk", f"{HEADER}# @run\nout = torch.topk(x, 1, largest=False)\n",
         inputs={"x": np.array(-2.5, dtype="float32")}, id="torch.topk 0-d"),
    Case("torch.topk", f"{HEADER}# @run\nout = torch.topk(x, 2, 0)\n", inputs={"x": rng_array(5, 3)}, id="topk control"),
    Case("Tensor.cumsum", f"{HEADER}# @run\nout = x.cumsum(1, dtype=torch.float16)\n",
         inputs={"x": np.zeros((0, 1), dtype="float16")}, id="cumsum empty"),
    Case("torch.cumsum", f"{HEADER}# @run\nout = torch.cumsum(x, dim=0)\n",
         inputs={"x": np.zeros((1, 0, 1), dtype="int64")}, id="torch.cumsum empty"),
    # stride() is a list in MindSpore, a tuple in torch: a comparison with a tuple was False
    Case("Tensor.stride", f"{HEADER}# @run\nout = (x.stride() == (4, 1), x.stride(0), x.stride(dim=-1))\n",
         inputs={"x": rng_array(3, 4)}, id="stride is a tuple"),
    # ldexp of float16 by an integer exponent: MindSpore returned float32
    Case("torch.ldexp", f"{HEADER}# @run\nout = torch.ldexp(x, y)\n",
         inputs={"x": rng_array(4, 1, 1, dtype="float16"), "y": np.array([[[1]], [[0]], [[-2]], [[3]]])},
         id="ldexp float16 by int64", **F16),
    Case("Tensor.ldexp", f"{HEADER}# @run\nout = x.ldexp(y)\n",
         inputs={"x": rng_array(3, dtype="float16"), "y": np.array([1, 2, 0], dtype="int32")}, id="Tensor.ldexp float16"),
    Case("torch.ldexp", f"{HEADER}# @run\nout = torch.ldexp(x, y)\n",
         inputs={"x": rng_array(3, dtype="float16"), "y": rng_array(3, seed=1)}, id="ldexp float16 by float32"),
    # combinations with no combination: MindSpore returned float32 of shape (0,) (or raised for an empty input)
    Case("torch.combinations", f"{HEADER}# @run\nout = torch.combinations(x)\n", inputs={"x": np.array([True])},
         id="combinations bool[1]"),
    Case("torch.combinations", f"{HEADER}# @run\nout = torch.combinations(x, r=3)\n",
         inputs={"x": np.array([1, 2], dtype="int64")}, id="combinations r > n"),
    Case("torch.combinations", f"{HEADER}# @run\nout = torch.combinations(x, 2, with_replacement=True)\n",
         inputs={"x": np.zeros(0, dtype="float32")}, id="combinations empty with replacement"),
    Case("torch.combinations", f"{HEADER}# @run\nout = torch.combinations(x, 2, True)\n",
         inputs={"x": np.array([1, 2, 3], dtype="int32")}, id="combinations control"),
    # fill_diagonal_ on 3-D: a 2-D eye mask broadcast filled x[k, i, i] for every k, torch only x[i, i, i]
    Case("Tensor.fill_diagonal_", f"{HEADER}# @run\nx.fill_diagonal_(True)\nout = x\n",
         inputs={"x": np.zeros((4, 4, 4), dtype=bool)}, id="fill_diagonal_ bool 3-D"),
    Case("Tensor.fill_diagonal_", f"{HEADER}# @run\nx.fill_diagonal_(2.5)\nout = x\n",
         inputs={"x": rng_array(3, 3, 3, 3)}, id="fill_diagonal_ 4-D"),
    Case("Tensor.fill_diagonal_", f"{HEADER}# @run\nx.fill_diagonal_(-1)\nout = x\n",
         inputs={"x": np.zeros((2, 5), dtype="int64")}, id="fill_diagonal_ wide"),
    # a start below -size: torch clamps it to the axis, MindSpore asked for a larger src (raised)
    Case("torch.slice_scatter", f"{HEADER}# @run\nout = torch.slice_scatter(x, y, 1, -2)\n",
         inputs={"x": np.zeros((2, 1, 5), dtype="int64"), "y": np.ones((2, 1, 5), dtype="int64")},
         id="slice_scatter start below -size"),
    Case("Tensor.slice_scatter", f"{HEADER}# @run\nout = x.slice_scatter(y, 1, -7, 3)\n",
         inputs={"x": np.zeros((2, 3, 5), dtype="float32"), "y": rng_array(2, 3, 5)}, id="slice_scatter -7:3"),
    Case("torch.slice_scatter", f"{HEADER}# @run\nout = torch.slice_scatter(x, y, 1, 1, 99, 2)\n",
         inputs={"x": np.zeros((2, 4, 5), dtype="float32"), "y": rng_array(2, 2, 5)}, id="slice_scatter end past size"),
    Case("Tensor.select", f"{HEADER}# @run\nout = x.select(index=i, dim=-2)\n",
         inputs={"x": rng_array(3, 2), "i": np.array([1])}, id="select tensor index"),
    Case("torch.select", f"{HEADER}# @run\nout = torch.select(x, 0, i)\n",
         inputs={"x": rng_array(3, 2), "i": np.array([2])}, id="torch.select tensor index"),
    Case("torch.nn.functional.celu", f"{HEADER}# @run\nout = F.celu(x, alpha=2)\n",
         inputs={"x": np.array([-1.0, 0.5], dtype="float32")}, id="celu int alpha"),
    Case("torch.celu", f"{HEADER}# @run\nout = torch.celu(x, 2)\n",
         inputs={"x": np.array([-1.0, 0.5], dtype="float32")}, id="torch.celu int alpha"),
    Case("torch.dist", f"{HEADER}# @run\nout = (torch.dist(x, y, 2.0), torch.dist(x, y, float('inf')), torch.dist(x, y, 1.5))\n",
         inputs={"x": rng_array(3, 4), "y": rng_array(3, 4, seed=1)}, id="dist float p"),
    Case("Tensor.dist", f"{HEADER}# @run\nout = (x.dist(y, 0.0), x.dist(y, 3))\n",
         inputs={"x": np.array([0.25, 1.0, 2.0], dtype="float32"), "y": np.array([-0.26, 1.0, 3.0], dtype="float32")},
         id="Tensor.dist p"),
    Case("torch.take_along_dim", f"{HEADER}# @run\nout = torch.take_along_dim(input=x, indices=i)\n",
         inputs={"x": rng_array(2, 3), "i": np.array([[0, 5], [2, 1]])}, id="take_along_dim no dim"),
    Case("Tensor.take_along_dim", f"{HEADER}# @run\nout = x.take_along_dim(i)\n",
         inputs={"x": rng_array(2, 3), "i": np.array([4, 0])}, id="Tensor.take_along_dim no dim"),
    Case("torch.fft.fft2", f"{HEADER}# @run\nout = torch.fft.fft2(x, dim=0)\n", inputs={"x": rng_array(2, 5)},
         id="fft2 dim int"),
    Case("torch.fft.rfftn", f"{HEADER}# @run\nout = torch.fft.rfftn(x, dim=1)\n", inputs={"x": rng_array(2, 5)},
         id="rfftn dim int"),
    Case("torch.meshgrid", f"{HEADER}# @run\nout = torch.meshgrid([x, y], indexing='xy')\n",
         inputs={"x": np.array([1, 2]), "y": np.array([3, 4, 5])}, id="meshgrid list"),
    Case("torch.hsplit", f"{HEADER}# @run\nout = torch.hsplit(x, 2)\n", inputs={"x": np.arange(4, dtype="int64")},
         id="hsplit 1-D"),
    Case("Tensor.hsplit", f"{HEADER}# @run\nout = (x.hsplit([1, 2]), y.hsplit(2))\n",
         inputs={"x": np.arange(4, dtype="float32"), "y": rng_array(2, 4)}, id="Tensor.hsplit 1-D"),
    Case("torch.special.xlog1py", f"{HEADER}# @run\nout = torch.special.xlog1py(x, 2)\n",
         inputs={"x": np.array([0.0, 1.5, -2.0], dtype="float32")}, id="xlog1py number"),
    Case("torch.nn.init.zeros_", f"{HEADER}# @run\nw = torch.empty(3, 4)\nnn.init.zeros_(w)\nout = w\n",
         id="init zeros_ plain tensor"),
    Case("torch.nn.init.constant_", f"{HEADER}# @run\nout = nn.init.constant_(x, 0.5)\n", inputs={"x": rng_array(2, 2)},
         id="init constant_ plain tensor"),
    Case("torch.nn.init.xavier_uniform_", f"{HEADER}# @run\nw = torch.empty(3, 4)\nout = nn.init.xavier_uniform_(w)\n",
         compare="shape", id="init xavier_uniform_ plain tensor"),
    Case("torch.nn.functional.linear", f"{HEADER}# @run\nout = (F.linear(x, w, bias=b), F.linear(x, w, b[0]), F.linear(x, w))\n",
         inputs={"x": rng_array(4, 2), "w": rng_array(3, 2, seed=1), "b": rng_array(4, 3, seed=2)}, id="linear 2-D bias"),
    Case("torch.nn.functional.dropout", f"{HEADER}# @run\nout = (F.dropout(x, p=1, training=False), F.dropout(x, 0))\n",
         inputs={"x": rng_array(2, 4)}, id="dropout int p"),
    Case("torch.nn.functional.dropout1d", f"{HEADER}# @run\nout = F.dropout1d(x, p=0, training=True)\n",
         inputs={"x": rng_array(2, 4, 3)}, id="dropout1d int p"),
    Case("torch.randint", f"{HEADER}# @run\nout = torch.randint(-3, 10, size=(2, 3), dtype=torch.float64)\n",
         compare="shape", id="randint float dtype"),
    Case("torch.searchsorted", f"{HEADER}# @run\nout = (torch.searchsorted(x, y), torch.searchsorted(x, y, right=True))\n",
         inputs={"x": np.array([0.5, 1.0, 2.5], dtype="float16"), "y": np.array([1, 2, 0, 3])}, id="searchsorted mixed"),
    Case("torch.searchsorted", f"{HEADER}# @run\nout = torch.searchsorted(x, y)\n",
         inputs={"x": np.array([0, 2, 4]), "y": np.array([1.5, 2.0, -1.0], dtype="float32")},
         id="searchsorted int boundaries float values"),
    Case("torch.searchsorted", f"{HEADER}# @run\nout = torch.searchsorted(x, y, right=False, out_int32=True)\n",
         inputs={"x": np.array([[1, 2, 3, 4, 5]], dtype="int32"), "y": np.array([[0, 2, 3, 9, 1]], dtype="int32")},
         id="searchsorted out_int32 2-D"),
    Case("torch.nn.functional.avg_pool1d", f"{HEADER}# @run\nout = F.avg_pool1d(x, 2, None)\n", inputs={"x": rng_array(2, 3, 6)},
         id="avg_pool1d stride=None"),
    Case("torch.nn.functional.soft_margin_loss", f"{HEADER}# @run\nout = F.soft_margin_loss(x, y, reduction='none')\n",
         inputs={"x": np.array([0.5, 1.0, 2.0, -3.0], dtype="float16"), "y": np.array([1.0, -1.0, 1.0, 1.0])},
         rtol=2e-3, atol=2e-3, why_tolerance="float16 result: two half-precision ulps", id="soft_margin_loss f16 input f64 target"),
    Case("Tensor.scatter", f"{HEADER}# @run\nout = (x.scatter(0, i, s), x.scatter(0, i, 2.5))\n",
         inputs={"x": np.zeros(3, dtype="float32"), "i": np.array([2, 0]), "s": np.array([1.0, 2.0, 3.0], dtype="float32")},
         id="scatter src larger than index"),
    Case("torch.scatter", f"{HEADER}# @run\nout = torch.scatter(x, src=s, index=i, dim=-1)\n",
         inputs={"x": np.zeros(5, dtype="float32"), "i": np.array([3]), "s": rng_array(5)},
         id="torch.scatter src larger than index"),
    Case("Tensor.scatter_add", f"{HEADER}# @run\nout = x.scatter_add(1, i, s)\n",
         inputs={"x": np.zeros((2, 3), dtype="float32"), "i": np.array([[2], [0]]), "s": rng_array(2, 3)},
         id="scatter_add src larger than index"),
    # MindSpore's Tensor.scatter / ops.scatter drop updates once the process ran a scatter of another shape
    Case("Tensor.scatter", f"{HEADER}# @run\nfirst = y.scatter(1, j, y + 1)\nout = (first, x.scatter(0, i, s), "
         "torch.scatter(x, -1, i, s), x.scatter(0, i, value=1.5))\n",
         inputs={"x": np.zeros(3, dtype="float32"), "i": np.array([2, 0]), "s": np.array([1.0, 2.0], dtype="float32"),
                 "y": np.zeros((2, 3), dtype="float32"), "j": np.array([[0, 1, 2], [1, 0, 1]])},
         id="scatter after a scatter of another shape"),
    Case("torch.scatter_add", f"{HEADER}# @run\nout = torch.scatter_add(x, 0, i, s)\n",
         inputs={"x": np.zeros(3, dtype="int64"), "i": np.array([1, 1]), "s": np.array([4, 5, 6])},
         id="torch.scatter_add src larger than index"),
    # silent findings the per-example count showed (hidden before behind an explained first example)
    Case("Tensor.nextafter", f"{HEADER}# @run\nout = x.nextafter(other=y)\n",
         inputs={"x": rng_array(5, 5), "y": rng_array(1, 1, seed=3)}, id="nextafter broadcast"),
    Case("torch.nextafter", f"{HEADER}# @run\nout = torch.nextafter(x, y)\n",
         inputs={"x": rng_array(5, 5), "y": rng_array(1, 5, seed=3)}, id="torch.nextafter broadcast"),
    Case("Tensor.histc", f"{HEADER}# @run\nout = x.histc(min=0, max=2)\n",
         inputs={"x": np.array([[0.25, 1.0], [1.5, 2.0]], dtype="float16")}, id="Tensor.histc float16"),
    Case("torch.copysign", f"{HEADER}# @run\nout = (torch.copysign(x, y), torch.copysign(x, -1.0))\n",
         inputs={"x": np.array([1.5, -2.0, 3.0], dtype="float16"), "y": np.array([-1.0, 1.0, -0.5])},
         id="copysign f16 with f64"),
    Case("torch.randn_like", f"{HEADER}# @run\nout = torch.randn_like(x)\n", inputs={"x": np.zeros(4)}, compare="shape",
         id="randn_like float64"),
    Case("torch.unique", f"{HEADER}# @run\nout = torch.unique(x, False, True)\n",
         inputs={"x": np.array([[0.2514604421867866, -0.2642097265826038, 1.2808453008865641],
                                [0.20980023430607941, -1.071338746322222, 0.7231901098189695],
                                [2.6080000902602745, 1.8941619262584843, -1.4074704716139852]])},
         id="unique float64 inverse"),
    Case("torch.trapz", f"{HEADER}# @run\nout = (torch.trapz(x, dim=-1, x=y), torch.trapz(z), torch.trapz(z, dx=0.5))\n",
         inputs={"x": np.array([2], dtype="int32"), "y": np.array([1], dtype="int32"),
                 "z": np.array([[1.0, 2.5, 3.0]], dtype="float16")}, rtol=2e-3, atol=2e-3,
         why_tolerance="float16 results: two half-precision ulps", id="trapz one sample, float16"),
    Case("torch.trapz", f"{HEADER}# @run\nout = torch.trapz(x, y, dim=0)\n",
         inputs={"x": rng_array(5, 5, dtype="int32"), "y": rng_array(5, 5, dtype="float64")}, id="trapz int y, float64 x"),
    # weight edits: p.data[...] = v left the Parameter unchanged in MindSpore
    Case("torch.nn.Linear", f"{HEADER}m = nn.Linear(4, 3)\n# @run\nm.weight.data[...] = w\nout = m(x)\n",
         inputs={"x": rng_array(2, 4), "w": rng_array(3, 4, seed=2)}, id="p.data[...] ="),
]



# Found by the fuzzer, and LOUD in MindSpore 2.10 (issue 24): torch promotes mixed dtypes in cat/stack and computes
# integer inputs of float functions in float32; MindSpore raises TypeError / a kernel error on them. A loud error on an
# input the code never sees is acceptable, so the conversion writes the plain call; these cases prove it stays loud.
LOUD = [
    Case("torch.row_stack", f"{HEADER}# @run\nout = torch.row_stack((x, y))\n", inputs=MIX, id="row_stack mixed"),
    Case("torch.cat", f"{HEADER}# @run\nout = torch.cat([x, y])\n", inputs=MIX, id="cat int64+float32"),
    Case("torch.cat", f"{HEADER}# @run\nout = torch.cat((x, y), dim=1)\n", inputs=MIX, id="cat dim=1"),
    Case("torch.stack", f"{HEADER}# @run\nout = torch.stack([x, y])\n", inputs=MIX, id="stack int64+float32"),
    Case("torch.cat", f"{HEADER}# @run\nout = torch.cat([x, y])\n",
         inputs={"x": np.array([True, False]), "y": np.array([3, 4], dtype="int32")}, id="cat bool+int32"),
    Case("torch.cat", f"{HEADER}# @run\nout = torch.cat([x, y])\n",
         inputs={"x": np.array([1.5], dtype="float16"), "y": np.array([2.25], dtype="float64")}, id="cat f16+f64"),
    Case("torch.hstack", f"{HEADER}# @run\nout = torch.hstack([x, y])\n", inputs=MIX, id="hstack mixed"),
    Case("torch.vstack", f"{HEADER}# @run\nout = torch.vstack([x, y])\n", inputs=MIX, id="vstack mixed"),
    Case("Tensor.sin", f"{HEADER}# @run\nout = x.sin()\n", inputs=I32, id="sin int32"),
    Case("Tensor.exp", f"{HEADER}# @run\nout = x.exp()\n", inputs=B, id="exp bool"),
    Case("Tensor.logit", f"{HEADER}# @run\nout = x.logit(0.25)\n", inputs={"x": np.array([0, 1], dtype="int64")},
         id="logit int64 eps"),
    Case("torch.exp", f"{HEADER}# @run\nout = (torch.exp(n), torch.log(n), torch.sigmoid(n), torch.tanh(n))\n",
         inputs={"n": np.array([1, 2, 3], dtype="int64")}, id="exp/log/sigmoid/tanh int64"),
    Case("torch.logsumexp", f"{HEADER}# @run\nout = torch.logsumexp(n, 1)\n",
         inputs={"n": np.array([[1, 2], [3, 4]], dtype="int64")}, id="logsumexp int64"),
]


@pytest.mark.parametrize("case", LOUD, ids=str)
def test_found_loud(case):
    code = run_case_loud(case)
    assert "_msm_promote" not in code and "is_floating_point" not in code


@pytest.mark.parametrize("case", CASES, ids=str)
def test_found(case):
    run_case(case)


def test_scatter_multiply_refused():
    """MindSpore 2.10's Tensor.scatter(..., reduce='multiply') adds (measured): refused, never converted."""
    assert_unsupported("import torch\nout = x.scatter(0, i, s, reduce='multiply')\n", "Tensor.scatter", "adds")
    # reduce='add' computes right once, but every later plain scatter of the process then adds too (measured:
    # the make-test order ran torch.scatter(x, 1, idx, s) after it and got x + s): refused as well
    assert_unsupported("import torch\nout = x.scatter(0, i, s, reduce='add')\n", "Tensor.scatter", "later")
    assert_unsupported("import torch\nout = torch.scatter(x, 0, i, s, reduce='multiply')\n", "torch.scatter",
                       "multiply")



def test_fill_diagonal_unequal_dims_raise_in_both():
    """torch refuses fill_diagonal_ on a 3-D tensor whose dimensions differ; the converted helper refuses too (the
    earlier eye mask filled x[k, i, i])."""
    ex = Example("x", f"{HEADER}# @run\nx.fill_diagonal_(1.0)\nout = x\n", {"x": rng_array(2, 3, 3)})
    assert "_msmigrate_fill_diagonal(" in converted(ex)
    assert run_example(ex).kind == "both_raise", converted(ex)

INPLACE_REFUSED = [
    ("x: int64, y: float32", "x += y\n", {"x": np.array([1, 2]), "y": np.array([0.5, 1.5], dtype="float32")}),
    ("alias, x: int32 /= int32", "alias = x\nx /= y\n", {"x": np.array([4, 2], dtype="int32"),
                                                          "y": np.array([2, 2], dtype="int32")}),
    ("x: bool *= float", "x *= y\n", {"x": np.array([True, False]), "y": np.array([0.5, 1.5], dtype="float32")}),
]


@pytest.mark.parametrize("what,stmt,inputs", INPLACE_REFUSED, ids=[w for w, _, _ in INPLACE_REFUSED])
def test_inplace_wider_result_raises(what, stmt, inputs):
    """int_tensor += float_tensor: torch raises ("result type Float can't be cast to the desired output type Long");
    the converted code truncated it into an integer. Both must raise now (before: torch_raises)."""
    ex = Example("x", f"{HEADER}def f(x, y):\n    {stmt.replace(chr(10), chr(10) + '    ').rstrip()}\n    return x\n"
                 "# @run\nout = f(x, y)\n", inputs)
    assert "_msm_inplace(" in converted(ex)
    assert run_example(ex).kind == "both_raise", converted(ex)
    ex = Example("x", f"{HEADER}# @run\n{stmt}out = x\n", inputs)
    assert run_example(ex).kind == "both_raise", converted(ex)


def test_inplace_same_kind_keeps_dtype():
    """The check raises only for a wider kind: float16 += float32 stays float16, int32 += int64 int32 (as torch)."""
    for x, y in ((np.array([1.5], dtype="float16"), np.array([2.25], dtype="float32")),
                 (np.array([3], dtype="int32"), np.array([4], dtype="int64")),
                 (np.array([1.0], dtype="float32"), np.array([2], dtype="int64"))):
        ex = Example("x", f"{HEADER}# @run\nx += y\nout = x\n", {"x": x, "y": y})
        assert run_example(ex).kind == "match", converted(ex)


def test_plain_python_operators_untouched():
    """Literal-only expressions are Python numbers: no run-time test is written for them."""
    code = converted(Example("x", f"{HEADER}# @run\nout = (~0, 1 << 4, 2 ^ 3)\n"))
    assert "out = (~0, 1 << 4, 2 ^ 3)" in code and "ops." not in code


def test_shift_and_invert_keep_python_ints():
    """A name that holds a Python int at run time still gets Python's operator."""
    ex = Example("x", f"{HEADER}# @run\nn = 5\nout = (~n, n << 2, n >> 1)\n")
    assert run_example(ex).kind == "match"


# -- module modes: torch modules start in training mode, Cells in inference mode ---------------------------------
MODE_CASES = [
    ("nn.BatchNorm1d(5)", "out = m(x)\n", {"x": rng_array(4, 5)}),
    ("nn.BatchNorm1d(3)", "out = m(x)\nout2 = m(x * 2 + 1)\n", {"x": rng_array(4, 3, 6)}),
    ("nn.BatchNorm2d(3)", "out = m(x)\n", {"x": rng_array(2, 3, 4, 4)}),
    ("nn.BatchNorm3d(2)", "out = m(x)\n", {"x": rng_array(2, 2, 3, 3, 3)}),
    ("nn.BatchNorm1d(5)", "m.eval()\nout = m(x)\n", {"x": rng_array(4, 5)}),
    ("nn.BatchNorm1d(5, affine=False)", "out = m(x)\n", {"x": rng_array(4, 5)}),
    ("nn.Dropout(1.0 - 1.0)", "out = m(x)\n", {"x": rng_array(4, 5)}),
    ("nn.Dropout2d(0.5)", "m.eval()\nout = m(x)\n", {"x": rng_array(2, 3, 4, 4)}),
]


@pytest.mark.parametrize("ctor,run,inputs", MODE_CASES, ids=[f"{c}:{r.splitlines()[0]}" for c, r, _ in MODE_CASES])
def test_module_mode_at_construction(ctor, run, inputs):
    names = ("out", "out2") if "out2" in run else ("out",)
    ex = Example(ctor, f"{HEADER}m = {ctor}\n# @run\n{run}", inputs, names=names)
    outcome = run_example(ex, copy_weights(ex))
    assert outcome.kind == "match", (outcome, converted(ex))


def test_module_mode_check_can_fail():
    """Without the set_train(True) line the script adds after the construction, the same case is a value mismatch:
    the check above can fail."""
    ex = Example("bn", f"{HEADER}m = nn.BatchNorm1d(5)\n# @run\nout = m(x)\n", {"x": rng_array(4, 5)})
    code = converted(ex)
    assert "m = nn.BatchNorm1d(5)\nm.set_train(True)  # torch modules start in training mode\n" in code
    from tests.fuzz import engine

    key = ex.code
    real = engine._convert(key)
    ms_code = real[0].replace("m.set_train(True)  # torch modules start in training mode", "")
    setup, run = ms_code.split(engine.RUN_MARK, 1)
    engine._convert.cache_clear()
    try:
        fake = (ms_code, "", "", (compile(setup, "<s>", "exec"), compile(run, "<r>", "exec")))
        original = engine._convert
        engine._convert = lambda code: fake if code == key else original(code)
        assert run_example(ex, copy_weights(ex)).kind == "value"
    finally:
        engine._convert = original


WEIGHT_EDITS = [
    "m.weight.data = w\n",
    "m.weight.data.copy_(w)\n",
    "m.weight.data[...] = w\n",
    "with torch.no_grad():\n    m.weight.copy_(w)\n",
    "with torch.no_grad():\n    m.weight.mul_(0.5)\n",
    "with torch.no_grad():\n    for p in m.parameters():\n        p.mul_(2.0)\n",
    "for p in m.parameters():\n    p.data.mul_(0.5)\n",
    "with torch.no_grad():\n    m.weight[0, 0] = 3.0\n",
]


@pytest.mark.parametrize("edit", WEIGHT_EDITS, ids=lambda e: e.strip().replace("\n", "; "))
def test_weight_edit_updates_parameter(edit):
    """Issue 16 item 4: each form of weight edit changes the Parameter the Cell computes with (the output after the
    edit matches torch's, and differs from the output before it)."""
    inputs = {"x": rng_array(2, 4), "w": rng_array(3, 4, seed=3)}
    ex = Example("edit", f"{HEADER}m = nn.Linear(4, 3)\n# @run\nbefore = m(x)\n{edit}out = m(x)\n", inputs,
                 names=("before", "out"))
    outcome = run_example(ex, copy_weights(ex))
    assert outcome.kind == "match", (outcome, converted(ex))


# -- user Cells: a converted `class Net(nn.Module)` built with no .train() starts in training mode too -------------
USER_CELLS = '''
class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.bn = nn.BatchNorm1d(c)
        self.drop = nn.Dropout(0.0)

    def forward(self, x):
        y = self.drop(self.bn(x))
        return y * 2 if self.training else y


class Net(nn.Module):
    def __init__(self, freeze=False):
        super(Net, self).__init__()
        self.block = Block(3)
        self.head = nn.Linear(3, 2)
        if freeze:
            self.block.eval()

    def forward(self, x):
        return self.head(self.block(x)) + (1.0 if self.training else 0.0)


class Wider(Net):
    def __init__(self):
        nn.Module.__init__(self)
        self.block = Block(3)
        self.head = nn.Linear(3, 4)
'''
USER_MODE_CASES = [
    ("Block(3)", "out = m(x)\nout2 = m(x * 2 + 1)\n"),  # own flag (self.training) and the BatchNorm inside
    ("Net()", "out = m(x)\n"),  # nested user Cells
    ("Net()", "out = m.block(x)\n"),
    ("Net()", "m.eval()\nout = m(x)\n"),  # .eval() later switches the whole tree
    ("Net()", "m.eval()\nm.train()\nout = m(x)\n"),
    ("Net(freeze=True)", "out = m(x)\n"),  # a child set to eval in __init__ stays eval (the class sets its mode)
    ("Net(freeze=True)", "m.train()\nout = m(x)\n"),
    ("Wider()", "out = m(x)\n"),  # nn.Module.__init__(self) form, a user base
]


def _user_example(ctor, run):
    names = ("out", "out2") if "out2" in run else ("out",)
    return Example(ctor, f"{HEADER}{USER_CELLS}\nm = {ctor}\n# @run\n{run}", {"x": rng_array(4, 3)}, names=names)


@pytest.mark.parametrize("ctor,run", USER_MODE_CASES, ids=[f"{c}:{r.strip()}" for c, r in USER_MODE_CASES])
def test_user_cell_mode_at_construction(ctor, run):
    """Issue 16 item 3, issue 24: the script that builds the model sets its mode (`m.set_train(True)` after the
    construction, which reaches every sub-cell), unless it sets the mode itself first; a Cell that switches a child
    in its __init__ (Net(freeze=True)) sets its own mode right before that, and the script adds nothing."""
    ex = _user_example(ctor, run)
    code = converted(ex)
    line = "m.set_train(True)  # torch modules start in training mode"
    sets_itself = run.startswith(("m.eval", "m.train")) or ctor.startswith("Net")
    assert (line in code) == (not sets_itself), code
    assert code.count("self.set_train(True)") == 1, code  # only Net, which switches a child in __init__
    outcome = run_example(ex, copy_weights(ex))
    assert outcome.kind == "match", (outcome, converted(ex))


def test_user_cell_mode_check_can_fail():
    """Without the script's line a user Cell runs its inference branch: the check above can fail."""
    from tests.fuzz import engine

    ex = _user_example("Block(3)", "out = m(x)\n")
    real = engine._convert(ex.code)
    ms_code = real[0].replace("m.set_train(True)  # torch modules start in training mode", "pass")
    assert ms_code != real[0]
    setup, run = ms_code.split(engine.RUN_MARK, 1)
    original = engine._convert
    fake = (ms_code, "", "", (compile(setup, "<s>", "exec"), compile(run, "<r>", "exec")))
    engine._convert = lambda code: fake if code == ex.code else original(code)
    try:
        assert run_example(ex, copy_weights(ex)).kind == "value"
    finally:
        engine._convert = original


@pytest.mark.parametrize("expr", ["x.t()", "x.permute(1, 0)", "x.transpose(0, 1)", "x[:, ::2]", "x", "x.t().contiguous()"])
def test_is_contiguous_of_views(expr):
    """The fuzzer's Tensor.is_contiguous finding is its own harness (torch got a view, MindSpore a contiguous copy):
    on MindSpore's own views the converted call answers as torch does."""
    run_case(Case("Tensor.is_contiguous", f"{HEADER}# @run\nout = {expr}.is_contiguous()\n",
                  inputs={"x": rng_array(3, 4)}, id=expr))
