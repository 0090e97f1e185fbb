"""Device handling, TorchScript/compile hints, legacy constructors and constants (mappings/device.toml): converted
code computes what torch computed (here both run on CPU)."""
import numpy as np
import pytest

from migrate import convert_source
from tests.api.cases import HEADER, X, call_cases
from tests.harness import Case, assert_unsupported, rng_array, run_case

IMG = {"x": rng_array(2, 3, 8, 8)}
CPLX = {"x": (rng_array(3, 4) + 1j * rng_array(3, 4, seed=1)).astype("complex64")}


def run_cases(api, bodies, inputs=X, prelude="", names=("out",), **kw):
    return [Case(api, f"{HEADER}{prelude}\n# @run\n{b}\n", names=names, inputs=inputs, id=f"{api}:{b}", **kw)
            for b in bodies]


NET = "net = nn.Linear(4, 3)\n"
DECORATED = """
@torch.jit.ignore
def f(a):
    return a * 2

@torch.jit.ignore()
def g(a):
    return a + 1

@torch.jit.unused
def h(a):
    return a - 1

@torch.jit.ignore(drop=False)
def k(a):
    return -a
"""

CASES = [
    *run_cases("torch.device", ["out = str(torch.device('cpu'))", "out = str(torch.device('cpu', 0))",
                                "out = str(torch.device(type='cpu'))",
                                "device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\nout = x.to(device) * 2",
                                "d = torch.device('cpu')\nout = isinstance(d, torch.device)",
                                "def f(t, device: torch.device = None):\n    return t + 1\nout = f(x)"]),
    *run_cases("torch.cuda.is_available", ["out = torch.cuda.is_available()",
                                           "out = x * 2 if torch.cuda.is_available() else x - 1"]),
    *run_cases("torch.distributed.is_available", ["out = torch.distributed.is_available()"]),
    *run_cases("torch.cuda.device_count", ["out = torch.cuda.device_count()"]),
    *run_cases("torch.xpu.is_available", ["out = torch.xpu.is_available()",
                                          "out = x.to('xpu') if torch.xpu.is_available() else x * 2"]),
    *run_cases("torch.xpu.device_count", ["out = torch.xpu.device_count()", "out = x * max(1, torch.xpu.device_count())"]),
    *run_cases("torch.xpu.empty_cache", ["torch.xpu.empty_cache()\nout = x + 1", "out = torch.xpu.empty_cache()"]),
    *run_cases("torch.xpu.memory_allocated", ["out = torch.xpu.memory_allocated()", "out = torch.xpu.memory_allocated(0)"]),
    *run_cases("torch.mps.device_count", ["out = torch.mps.device_count()"]),
    *run_cases("torch.compile", ["kw = {'fullgraph': False}\nm = torch.compile(net, backend='eager', mode=None, **kw)\nout = m(x)"],
               prelude="net = nn.Linear(4, 3)"),
    *run_cases("torch.compiler.is_compiling", ["out = torch.compiler.is_compiling()",
                                               "out = x if torch.compiler.is_compiling() else x * 2"]),
    *run_cases("torch.compiler.disable", ["out = (f(x), g(x), torch.compiler.disable(lambda a: a * 3)(x))"],
               prelude="@torch.compiler.disable\ndef f(a):\n    return a * 2\n\n"
                       "@torch.compiler.disable(recursive=False)\ndef g(a):\n    return a + 1\n"),
    *run_cases("torch.get_default_device", ["out = str(torch.get_default_device())",
                                            "out = torch.zeros(2, device=torch.get_default_device()) + x[0, :2]"]),
    *run_cases("torch.__version__", [
        "out = (torch.__version__ >= '2.2', torch.__version__ < '1.12.0', torch.__version__ >= (2, 0), "
        "torch.__version__ > (2, 12, 9), str(torch.__version__)[:4] == '2.13')",
        "major, minor = re.match(r'(\\d+)\\.(\\d+)', torch.__version__).groups()\nout = (int(major), int(minor))",
        "v = torch.__version__\nout = tuple(int(p) for p in v.split('+')[0].split('.'))",
        "out = x * 2 if torch.__version__ >= '2.0' else x"], prelude="import re"),
    *run_cases("torch.cuda.empty_cache", ["torch.cuda.empty_cache()\nout = x + 1"]),
    *run_cases("torch.cuda.manual_seed", ["torch.cuda.manual_seed(3)\nout = x + 1"]),
    *run_cases("torch.cuda.manual_seed_all", ["torch.cuda.manual_seed_all(3)\nout = x + 1"]),
    *run_cases("torch.nn.DataParallel", ["m = nn.DataParallel(net)\nout = m(x)", "m = nn.DataParallel(net, device_ids=[0])\nout = m(x)",
                                         "m = nn.DataParallel(module=net)\nout = m(x)"], prelude=NET),
    *run_cases("torch.nn.parallel.DataParallel", ["m = nn.parallel.DataParallel(net)\nout = m(x)"], prelude=NET),
    *run_cases("torch.autograd.Variable", ["out = torch.autograd.Variable(x) * 2",
                                           "out = torch.autograd.Variable(x, requires_grad=True).sum()"]),
    *run_cases("torch.autograd.Variable", ["out = Variable(x) + 1"], prelude="from torch.autograd import Variable"),
    *run_cases("torch.compile", ["m = torch.compile(net, backend='eager')\nout = m(x)"], prelude=NET, **dict(
        rtol=1e-5, atol=1e-6)),
    *run_cases("torch.jit.is_scripting", ["out = x * 2 if not torch.jit.is_scripting() else x",
                                          "out = torch.jit.is_scripting()"]),
    *run_cases("torch.jit.is_tracing", ["out = torch.jit.is_tracing()"]),
    *run_cases(("torch.jit.ignore", "torch.jit.unused"), ["out = (f(x), g(x), h(x), k(x))"], prelude=DECORATED),
    *run_cases("torch.jit.ignore", ["out = torch.jit.ignore(lambda a: a * 3)(x)"]),
    *run_cases("torch.fx.wrap", ["def f(a):\n    return a * 2\ntorch.fx.wrap('f')\nout = f(x)"]),
    *[c for t, data in (("FloatTensor", "[1, 2.5]"), ("DoubleTensor", "[[1.0, 2.0]]"), ("HalfTensor", "[0.5, 1.5]"),
                         ("LongTensor", "[1, 2, 3]"), ("IntTensor", "(4, 5)"), ("ShortTensor", "[1]"),
                         ("CharTensor", "[-1, 2]"), ("ByteTensor", "[1, 200]"), ("BoolTensor", "[True, False]"))
      for c in run_cases(f"torch.{t}", [f"out = torch.{t}({data})"])],
    *run_cases("torch.LongTensor", ["out = torch.LongTensor([i * 2 for i in range(3)])", "out = torch.LongTensor()"]),
    *run_cases("torch.FloatTensor", ["out = torch.FloatTensor(2, 3)"], compare="shape"),
    # torch.Tensor(...) called: torch's legacy float32 constructor (timm's ml_decoder, smp's patch_first_conv,
    # timm's pos_embed_rel, accelerate's test scripts); a size leaves the values uninitialised in torch
    *run_cases("torch.Tensor", ["out = torch.Tensor([1, 2])", "out = torch.Tensor([[1.5, 2], [3, 4]]).to(dtype=torch.float16)",
                                "out = torch.Tensor(x_np)[None, None, ...]", "out = torch.Tensor(g()).contiguous()",
                                "out = torch.Tensor(x) * 2", "out = isinstance(torch.Tensor(x_np), torch.Tensor)"],
               prelude="import numpy as np\nx_np = np.arange(6.0).reshape(2, 3)\ndef g():\n    return [[1, 2], [3, 4]]"),
    *run_cases("torch.Tensor", ["out = torch.Tensor(n, c, *k)", "out = torch.Tensor(n)", "out = torch.Tensor(2, 3)",
                                "out = nn.Parameter(torch.Tensor(n, c))"],
               prelude="n, c = 3, 4\nk = (2, 2)", compare="shape"),
    *run_cases("torch.FloatTensor", ["out = torch.FloatTensor(n)", "out = torch.FloatTensor(n, 2)"], prelude="n = 3",
               compare="shape"),
    *run_cases("torch.nn.functional.upsample", ["out = F.upsample(x, scale_factor=2, mode='bilinear', align_corners=False)",
                                                "out = F.upsample(x, size=(12, 20), mode='nearest')",
                                                "out = F.upsample(x, None, 2)"], IMG),
    *run_cases("torch.nn.functional.upsample_nearest", ["out = F.upsample_nearest(x, scale_factor=2)",
                                                        "out = F.upsample_nearest(x, size=(16, 12))",
                                                        "out = F.upsample_nearest(x, (4, 4))"], IMG),
    *run_cases("torch.nn.functional.upsample_bilinear", ["out = F.upsample_bilinear(x, size=(12, 20))",
                                                         "out = F.upsample_bilinear(x, scale_factor=2)"], IMG),
    *run_cases("torch.Size", ["out = torch.Size([2, 3])", "out = x.shape == torch.Size([3, 4])",
                              "out = isinstance(x.shape, torch.Size)"]),
    *run_cases("torch.dtype", ["out = isinstance(x.dtype, torch.dtype)"]),
    *run_cases("torch.get_default_dtype", ["out = torch.zeros(2, dtype=torch.get_default_dtype())"]),
    *run_cases("torch.pi", ["out = x * torch.pi"]),
    *run_cases("torch.e", ["out = x * torch.e"]),
    *run_cases("torch.inf", ["out = x.clamp(max=torch.inf)", "out = x.masked_fill(x > 0, -torch.inf)"]),
    *run_cases("torch.nan", ["out = torch.isnan(x + torch.nan)"]),
    *run_cases("torch.bfloat16", ["out = x.to(torch.bfloat16).float()"]),
    *[c for d in ("int8", "int16", "short") for c in run_cases(f"torch.{d}", [f"out = (x * 10).to(torch.{d})"])],
    *[c for d in ("uint16", "uint32", "uint64") for c in run_cases(f"torch.{d}", [f"out = (x.abs() * 10).to(torch.{d}).to(torch.int64)"])],
    *[c for d in ("complex64", "complex128", "cfloat", "cdouble") for c in run_cases(f"torch.{d}", [f"out = x.to(torch.{d})"])],
    *run_cases("torch.as_tensor", ["out = torch.as_tensor([1.0, 2.0])", "out = torch.as_tensor([1, 2], dtype=torch.float32)",
                                   "out = torch.as_tensor(x)", "out = torch.as_tensor(data=x, dtype=torch.float64)",
                                   "out = torch.as_tensor(x, device='cpu')"]),
    *run_cases("torch.view_as_real", ["out = torch.view_as_real(x)", "out = torch.view_as_real(input=x)"], CPLX),
    *run_cases("torch.is_complex", ["out = torch.is_complex(x)"], CPLX),
    *run_cases("torch.is_complex", ["out = torch.is_complex(x)"]),
]

# Modules placed on a device: MindSpore places a Cell itself, so the call is the module (the cuda branch is
# converted too, and taken only where an accelerator is present, on both sides alike)
NET = "net = nn.Linear(4, 3)\ndevice = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
MODULE_PLACEMENT = [
    Case(("Module.to", "Module.cpu", "Module.cuda"), HEADER + NET + "# @run\nnet = net.to(device)\nnet.to('cpu')\n"
         "net = net.cpu()\nnet = net.cuda() if torch.cuda.is_available() else net\nnet.to(device=device)\n"
         "out = net(x.to(device))\n", inputs={"x": rng_array(2, 4)}, id="Module.to/cpu/cuda"),
]
# torch.hub: the paths torch computes; a download is refused by both (no network here; msmigrate's names the URL)
HUB = [
    Case(("torch.hub._get_torch_home", "torch.hub.get_dir"), HEADER + "# @run\n"
         "out = torch.tensor([ord(c) for c in torch.hub._get_torch_home() + '|' + torch.hub.get_dir()])\n",
         id="torch.hub paths"),
    Case(("torch.hub.load_state_dict_from_url", "torch.utils.model_zoo.load_url"), HEADER +
         "import torch.hub\nimport torch.utils.model_zoo\n# @run\nout = []\n"
         "for load in (torch.hub.load_state_dict_from_url, torch.utils.model_zoo.load_url):\n"
         "    try:\n        load('http://invalid.invalid/w.pth', progress=False)\n"
         "    except Exception:\n        out.append(1.0)\nout = torch.tensor(out)\n", id="torch.hub downloads"),
]
CASES += MODULE_PLACEMENT + HUB  # run by test_device_entry



def test_cuda_synchronize():
    """torch.cuda.synchronize() needs CUDA (a CPU-only torch raises); the conversion waits for MindSpore's device."""
    result = convert_source(f"{HEADER}out = torch.cuda.synchronize()\n")
    assert not result.unsupported and result.apis.get("torch.cuda.synchronize"), result.code
    ns = {}
    exec(result.code, ns)
    assert ns["out"] is None


CUDA_LEGACY = ("FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ByteTensor", "BoolTensor")
PROVEN_ELSEWHERE = {f"torch.cuda.{t}": "test_cuda_legacy_constructors" for t in CUDA_LEGACY}
PROVEN_ELSEWHERE["torch.cuda.synchronize"] = "test_cuda_synchronize (torch's side cannot run without CUDA)"


@pytest.mark.parametrize("case", CASES, ids=str)
def test_device_entry(case):
    run_case(case)


@pytest.mark.parametrize("name", CUDA_LEGACY)
def test_cuda_legacy_constructors(name):
    """torch.cuda.*Tensor cannot run on a CPU-only torch: the MindSpore result is compared with torch's CPU
    constructor of the same type (MindSpore places the tensor on its device target itself)."""
    import torch

    data = "[1, 0, 2]"
    result = convert_source(f"{HEADER}out = torch.cuda.{name}({data})\n")
    assert not result.unsupported and result.apis.get(f"torch.cuda.{name}"), result.code
    ns = {}
    exec(result.code, ns)
    expected = getattr(torch, name)([1, 0, 2]).numpy()
    got = ns["out"].asnumpy()
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("code,api,reason", [
    ("out = torch.FloatTensor(*n)", "torch.FloatTensor", "cannot tell whether n is data or a size"),
    ("out = torch.cuda.LongTensor(*values)", "torch.cuda.LongTensor", "cannot tell"),
    ("out = torch.Tensor(2, [1])", "torch.Tensor", "several arguments only as a size"),
    ("out = isinstance(x, torch.cuda.FloatTensor)", "torch.cuda.FloatTensor", "only supported when called"),  # a device check
])
def test_refused(code, api, reason):
    assert_unsupported(HEADER + code + "\n", api, reason)


def test_legacy_constructor_with_a_tuple_raises_when_it_runs():
    """torch.Tensor(t) reads a torch.Size as a size and another tuple as data; MindSpore's shapes are plain tuples,
    so the helper raises rather than guess (torch.Tensor((2, 3)) is the data [2., 3.] in torch)."""
    import mindspore  # noqa: F401 - the converted code imports it

    result = convert_source(HEADER + "t = (2, 3)\nout = torch.Tensor(t)\n")
    assert not result.unsupported, result.unsupported
    with pytest.raises(NotImplementedError, match="torch.Size"):
        exec(compile(result.code, "<converted>", "exec"), {"__name__": "converted"})


# MindSpore sets deterministic kernels once per process: off (its default) is asked first, then on, then on again;
# torch's switch is reset after each case so that other tests run as before
DETERMINISTIC = run_cases("torch.use_deterministic_algorithms", [
    "torch.use_deterministic_algorithms(d)\nout = x.sum(0)",
    "torch.use_deterministic_algorithms(True)\nout = x.sum(0)",
    "torch.use_deterministic_algorithms(mode=True, warn_only=True)\nout = x * 2\n"
    "torch.use_deterministic_algorithms(True, warn_only=False)"], prelude="d = False")
CASES = CASES + DETERMINISTIC  # a new list: test_device_entry keeps its own


@pytest.mark.parametrize("case", DETERMINISTIC, ids=str)
def test_deterministic_algorithms(case):
    import torch

    try:
        run_case(case)
    finally:
        torch.use_deterministic_algorithms(False)


def test_torch_tensor_as_a_type_stays_the_class():
    """torch.Tensor's calls are the legacy constructor; as a value it is the type (annotations, casts, tuples of
    types, a base class), MindSpore's Tensor, as before the constructor rule existed."""
    src = ("import torch\nfrom typing import List, Union, cast\nT = Union[torch.Tensor, int]\n"
           "def f(p):\n    return type(p) in (torch.Tensor, torch.nn.Parameter), cast(List[torch.Tensor], [p])\n"
           "class Sub(torch.Tensor):\n    pass\n")
    result = convert_source(src)
    assert not result.unsupported, result.unsupported
    assert "Union[ms.Tensor, int]" in result.code and "(ms.Tensor, ms.Parameter)" in result.code
    assert "cast(List[ms.Tensor], [p])" in result.code and "class Sub(ms.Tensor)" in result.code
