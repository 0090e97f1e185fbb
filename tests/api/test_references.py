"""torch names used without being called, and small torch internals that real packages call: annotations and
isinstance targets (Optimizer, DataLoader), TorchScript's Final, dataset bases, torch._assert / torch._check.
Each case runs in both frameworks and compares the results."""
import textwrap

import pytest

from migrate import convert_source
from tests.api.cases import HEADER
from tests.harness import Case, assert_unsupported, rng_array, run_case

X = {"x": rng_array(3, 4)}
NET = "net = nn.Linear(4, 2)\n"
DS = ("class Pairs(torch.utils.data.Dataset):\n    def __len__(self):\n        return 4\n\n"
      "    def __getitem__(self, i):\n        return (torch.ones(2) * i,)\n\n")
CASES = [
    Case("torch.optim.Optimizer", HEADER + NET + "opt = torch.optim.SGD(net.parameters(), lr=0.1)\n# @run\n"
         "out = isinstance(opt, torch.optim.Optimizer)\n"),
    Case("torch.optim.Optimizer", HEADER + "from torch.optim import Optimizer\n" + NET +
         "def is_opt(o: Optimizer) -> bool:\n    return isinstance(o, Optimizer)\n"
         "opt = torch.optim.Adam(net.parameters(), lr=0.1)\n# @run\nout = (is_opt(opt), is_opt(net))\n"),
    Case("torch.optim.optimizer.Optimizer", HEADER + "from torch.optim.optimizer import Optimizer\n" + NET +
         "opt = torch.optim.AdamW(net.parameters(), lr=0.1)\n# @run\nout = isinstance(opt, Optimizer)\n"),
    Case("torch.utils.data.DataLoader", HEADER + "from torch.utils.data import DataLoader\n" + DS +
         "def batches(loader: DataLoader) -> int:\n    return isinstance(loader, DataLoader)\n"
         "# @run\nout = (batches(DataLoader(Pairs(), batch_size=2)), isinstance([1], DataLoader))\n"),
    Case("torch.utils.data.IterableDataset", HEADER + "class Stream(torch.utils.data.IterableDataset):\n"
         "    def __iter__(self):\n        return iter([torch.ones(2), torch.zeros(2)])\n# @run\n"
         "out = list(Stream())\n"),
    Case("torch.jit.Final", HEADER + "from torch.jit import Final\nclass Attn(nn.Module):\n"
         "    fused: Final[bool] = True\n    heads: torch.jit.Final[int]\n\n    def __init__(self):\n"
         "        super().__init__()\n        self.heads = 3\n# @run\nout = (Attn.fused, Attn().heads)\n"),
    Case(("torch.jit.annotations.List", "torch.jit.annotations.Tuple", "torch.jit.annotations.Dict"), HEADER +
         "from typing import Union\nfrom torch.jit.annotations import List, Tuple, Dict\n"
         "def f(a: Union[int, List[int]], b: Tuple[int, int], c: Dict[str, int]) -> List[torch.Tensor]:\n"
         "    return [x * v for v in a] + [x + sum(b) + c['k']]\n# @run\nout = f([1, 2], (3, 4), {'k': 5})\n",
         inputs=X),
    Case("torch.optim.optimizer.ParamsT", HEADER + "from torch.optim.optimizer import ParamsT\n"
         "def n_params(params: ParamsT) -> int:\n    return sum(p.numel() for p in params)\n"
         "net = nn.Linear(4, 3)\n# @run\nout = n_params(net.parameters())\n"),
    # feature probes on torch modules (timm, accelerate): hasattr is True where the table converts the name, so the
    # branch taken converts; getattr with a literal is the converted name
    Case("torch", HEADER + "# @run\nout = (hasattr(torch, 'float32'), hasattr(torch, 'not_an_api'), hasattr(torch, 'cuda'))\n"),
    Case("torch", HEADER + "# @run\nif hasattr(torch, '_foreach_mul'):\n    out = torch._foreach_mul([x], 2.0)[0]\n"
         "else:\n    out = x * 2\n", inputs=X),
    Case("torch", HEADER + "# @run\nf = torch.roll if hasattr(torch, 'roll') else None\nout = f(x, 1, 0)\n", inputs=X),
    Case("torch.nn.functional", HEADER + "# @run\nfused = hasattr(torch.nn.functional, 'scaled_dot_product_attention')\n"
         "out = (fused, hasattr(F, 'silu'), hasattr(F, 'no_such_function'))\n"),
    Case("torch.float16", HEADER + "# @run\nout = x.to(getattr(torch, 'float16')).float()\n", inputs=X),
    Case("torch", HEADER + "# @run\nout = x * (getattr(torch, 'not_an_api', None) is None)\n", inputs=X),
    Case("torch._assert", HEADER + "# @run\ntorch._assert(x.shape[1] == 4, 'four columns')\n"
         "torch._assert(condition=(x.abs() >= 0).all(), message='non-negative')\nout = x + 1\n", inputs=X),
    Case("torch._check", HEADER + "# @run\ntorch._check(x.shape[0] == 3, lambda: 'three rows')\n"
         "torch._check(x.ndim == 2)\nout = x * 2\n", inputs=X),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id or c.code.split("# @run\n")[-1][:60])
def test_reference(case):
    run_case(case)


def test_a_custom_optimizer_is_refused_with_the_reason():
    for base in ("torch.optim.Optimizer", "torch.optim.optimizer.Optimizer"):
        assert_unsupported(HEADER + f"import torch.optim.optimizer\nclass Lamb({base}):\n"
                           "    def step(self, closure=None):\n        pass\n", base, "parameters carry no .grad")


@pytest.mark.parametrize("call, error", [
    ("torch._assert(x.shape[1] == 5, 'five columns')", AssertionError),
    ("torch._check(x.shape[0] == 2, lambda: 'two rows')", RuntimeError),
    ("torch._check(False)", RuntimeError),
])
def test_a_failed_check_raises_what_torch_raises(call, error):
    import mindspore as ms
    import numpy as np
    import torch

    src = HEADER + call + "\n"
    with pytest.raises(error) as t_err:
        exec(src, {"x": torch.zeros(3, 4)})
    result = convert_source(textwrap.dedent(src))
    assert not result.unsupported
    with pytest.raises(error) as m_err:
        exec(result.code, {"x": ms.Tensor(np.zeros((3, 4), "float32"))})
    assert str(t_err.value).startswith(str(m_err.value))  # torch appends a plea for better messages


WARMUP = ("class Warmup({base}):\n    def __init__(self, optimizer, warmup=3, last_epoch=-1):\n"
          "        self.warmup = warmup\n        super().__init__(optimizer, last_epoch)\n\n    def get_lr(self):\n"
          "        return [b * min(1.0, (self.last_epoch + 1) / self.warmup) for b in self.base_lrs]\n")
SCHED = [
    Case("torch.optim.lr_scheduler.LRScheduler", HEADER + "from torch.optim.lr_scheduler import LRScheduler\n"
         + WARMUP.format(base="LRScheduler") + NET + "opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
         "sched = Warmup(opt)\n# @run\nout = []\nfor _ in range(5):\n    sched.step()\n"
         "    out.append(float(sched.get_last_lr()[0]))\n",
         rtol=1e-6, why_tolerance="MindSpore keeps learning rates as float32 Parameters"),
    Case("torch.optim.lr_scheduler._LRScheduler", HEADER + WARMUP.format(base="torch.optim.lr_scheduler._LRScheduler")
         + NET + "opt = torch.optim.SGD(net.parameters(), lr=0.2)\nsched = Warmup(opt, warmup=4)\n# @run\n"
         "out = []\nfor _ in range(5):\n    sched.step()\n    out.append(float(sched.get_last_lr()[0]))\n",
         rtol=1e-6, why_tolerance="MindSpore keeps learning rates as float32 Parameters"),
    Case("torch.optim.lr_scheduler.LRScheduler", HEADER + NET + "opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
         "s = torch.optim.lr_scheduler.StepLR(opt, 2)\n# @run\n"
         "out = isinstance(s, torch.optim.lr_scheduler.LRScheduler)\n"),
]


@pytest.mark.parametrize("case", SCHED, ids=lambda c: c.apis[0] + ":" + c.code.split("# @run\n")[-1][:30])
def test_scheduler_base(case):
    run_case(case)


MORE = [
    # Tensor.to(v) with v a variable: device or dtype is told apart when the code runs (helper tensor_to)
    *[Case("Tensor.to", HEADER + f"v = {v}\n# @run\nout = x.to(v)\n", inputs={"x": rng_array(3, 4), "y": rng_array(2, dtype="int64")},
           id=f"Tensor.to(v={v})") for v in ("torch.float64", "'cpu'", "torch.device('cpu')", "torch.int32")],
    Case("Tensor.to", HEADER + "# @run\nout = (x.to(y), y.to(x), x.to(dev, dtype=torch.float16))\n".replace(
        "# @run", "dev = 'cpu'\n# @run"), inputs={"x": rng_array(3, 4), "y": rng_array(2, dtype="int64")}, id="Tensor.to(tensor)"),
    Case("torch.nn.modules.batchnorm._BatchNorm", HEADER + "from torch.nn.modules.batchnorm import _BatchNorm\n"
         "layers = [nn.BatchNorm1d(3), nn.BatchNorm2d(3), nn.BatchNorm3d(3), nn.GroupNorm(1, 3), nn.LayerNorm(3),"
         " nn.Linear(2, 2)]\n# @run\nout = [isinstance(m, _BatchNorm) for m in layers]\n"
         "out2 = [isinstance(m, (nn.modules.batchnorm._BatchNorm, nn.Linear)) for m in layers]\n",
         names=("out", "out2")),
    Case("torch.nn.modules.utils._pair", HEADER + "from torch.nn.modules.utils import _pair\n# @run\n"
         "out = (_pair(3), _pair((1, 2)), _pair([4, 5]), _pair(x=2.5))\n"),
    Case(("torch.nn.modules.utils._single", "torch.nn.modules.utils._triple", "torch.nn.modules.utils._quadruple"),
         HEADER + "from torch.nn.modules.utils import _single, _triple, _quadruple\n# @run\n"
         "out = (_single(3), _triple(k), _quadruple(0), _triple((1, 2, 3)))\n".replace("# @run", "k = 7\n# @run"),
         inputs={}, id="ntuple"),
    Case("torch.finfo", HEADER + "# @run\nf = torch.finfo(torch.float32)\n"
         "out = (f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution, f.bits, f.dtype)\n"
         "h = torch.finfo(torch.float16)\nd = torch.finfo()\nb = torch.finfo(torch.bfloat16)\n"
         "out2 = (h.eps, h.max, h.tiny, d.eps, torch.finfo(x.dtype).min, torch.finfo(type=torch.float64).eps, b.eps,"
         " b.tiny, b.dtype)\n", names=("out", "out2"), inputs=X),
]


@pytest.mark.parametrize("case", MORE, ids=lambda c: c.id or c.apis[0])
def test_more_references(case):
    run_case(case)


LEGACY = ("Float", "Double", "Half", "Long", "Int", "Short", "Char", "Byte", "Bool")
TYPED = {"a": rng_array(2), "b": rng_array(2, dtype="int64"), "c": rng_array(2, dtype="bool"),
         "d": rng_array(2).astype("float64"), "e": rng_array(2, dtype="uint8"), "f": rng_array(2, dtype="int32")}


LEGACY_CASES = [
    Case(f"torch.{name}Tensor", HEADER + "from typing import Union\n"
         f"def typed(t: Union[torch.{name}Tensor, torch.Tensor]) -> torch.{name}Tensor:\n    return t\n# @run\n"
         f"out = [isinstance(typed(t), torch.{name}Tensor) for t in (a, b, c, d, e, f, a.half(), b.short(), b.char())]\n",
         inputs=TYPED, id=f"torch.{name}Tensor")
    for name in LEGACY
]


@pytest.mark.parametrize("case", LEGACY_CASES, ids=str)
def test_legacy_tensor_types_as_isinstance_targets(case):
    run_case(case)


CASES = CASES + SCHED + MORE + LEGACY_CASES  # every case, for tests/api/test_coverage.py


CLOSE = [
    Case("torch.testing.assert_close", HEADER + "# @run\ntorch.testing.assert_close(x, x + 1e-7)\n"
         "torch.testing.assert_close(x.double(), x.double())\ntorch.testing.assert_close(actual=x, expected=x * 1.001,"
         " rtol=1e-2, atol=0.0)\ntorch.testing.assert_close([x, 2.0], [x, 2.0])\n"
         "torch.testing.assert_close(x, x.double(), check_dtype=False)\nout = x\n", inputs=X),
]


@pytest.mark.parametrize("case", CLOSE, ids=lambda c: c.apis[0])
def test_assert_close_passes(case):
    run_case(case)


@pytest.mark.parametrize("call", [
    "torch.testing.assert_close(x, x + 1e-3)", "torch.testing.assert_close(x, x.double())",
    "torch.testing.assert_close(x, x[:2])", "torch.testing.assert_close(x, x * 1.01, rtol=1e-3, atol=0.0)",
    "torch.testing.assert_close(x.long(), x.long() + 1)", "torch.testing.assert_close(x, x + 1, msg='far')",
])
def test_assert_close_fails_where_torch_fails(call):
    import mindspore as ms
    import numpy as np
    import torch

    x = np.abs(rng_array(3, 4)) + 1
    src = HEADER + call + "\n"
    with pytest.raises(AssertionError):
        exec(src, {"x": torch.from_numpy(x)})
    result = convert_source(src)
    assert not result.unsupported, result.unsupported
    with pytest.raises(AssertionError):
        exec(result.code, {"x": ms.Tensor(x)})


CASES = CASES + CLOSE


def test_a_probe_of_a_name_the_table_lacks_is_false_and_the_fallback_branch_runs():
    """The converted code takes the branch written for a torch without the name (the dead branch keeps its
    marker); a probe on anything but a torch module (a tensor here) is left as written."""
    out = convert_source(HEADER + "def f(x):\n    if hasattr(torch, 'xpu_like_missing') and hasattr(x, 'shape'):\n"
                         "        return torch.xpu_like_missing(x)\n    return x\n")
    assert "if False and hasattr(x, 'shape'):" in out.code
    assert [u.api for u in out.unsupported] == ["torch.xpu_like_missing"]


def test_a_getattr_probe_that_stays_marked_keeps_the_torch_import_it_reads():
    """timm's layers/typing.py: ``getattr(getattr(torch, "compiler", None), "disable", None) or nullwrap``: the
    table has no value for torch.compiler itself, so the probe is marked and `torch` stays imported (the file
    imports, instead of failing with NameError)."""
    src = ("import torch\n\ndef nullwrap(fn=None):\n    return fn\n\n"
           "disable = getattr(getattr(torch, 'compiler', None), 'disable', None) or nullwrap\n")
    out = convert_source(src)
    assert [u.api for u in out.unsupported] == ["torch.compiler"]
    ns = {}
    exec(compile(out.code, "<converted>", "exec"), ns)
    assert callable(ns["disable"])
