"""Runtime queries, TorchScript / export hints and torch.utils pieces (mappings/torch_runtime.toml): converted code
computes what torch computed."""
import numpy as np
import pytest

from tests.api.cases import HEADER, X
from tests.harness import Case, run_case


def run_cases(api, bodies, inputs=X, prelude="", names=("out",), **kw):
    return [Case(api, f"{HEADER}{prelude}\n# @run\n{b}\n", names=names, inputs=inputs, id=f"{api}:{b}", **kw)
            for b in bodies]


DATASET = """
class Squares(torch.utils.data.Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        info = torch.utils.data.get_worker_info()
        return torch.tensor([float(i * i), 0.0 if info is None else 1.0])
"""
HOOKS = """
import collections
import torch.utils.hooks as hooks
"""
SAMPLES = {"x": np.arange(12, dtype="float32").reshape(3, 4)}

CASES = [
    *run_cases("torch.utils.data.get_worker_info", [
        "out = torch.utils.data.get_worker_info() is None",
        "data = Squares(4)\nout = [b for b in torch.utils.data.DataLoader(data, batch_size=2, collate_fn=lambda s: torch.stack(s))]"],
        prelude=DATASET),
    *run_cases("torch._dynamo.is_compiling", ["out = torch._dynamo.is_compiling()",
                                              "out = x if torch._dynamo.is_compiling() else x * 2"]),
    *run_cases("torch.compiler.is_exporting", ["out = torch.compiler.is_exporting()"]),
    *run_cases("torch.onnx.is_in_onnx_export", ["out = x.mean() if torch.onnx.is_in_onnx_export() else x.sum()"]),
    *run_cases("torch.jit._script_if_tracing", ["out = f(x)"],
               prelude="@torch.jit._script_if_tracing\ndef f(a):\n    return a * 3 + 1\n"),
    *run_cases("torch.jit.annotate", ["out = torch.jit.annotate(List[torch.Tensor], [])\nout.append(x)",
                                      "out = torch.jit.annotate(int, 3) * x"], prelude="from typing import List"),
    # torch scripts a module from torch's own sources; a function written in a snippet has no source file to script
    *run_cases("torch.jit.script", ["m = torch.jit.script(net)\nout = m(x)", "out = torch.jit.script(nn.ReLU())(x)",
                                    "out = torch.jit.script(net, optimize=None)(x)"], prelude="net = nn.Linear(4, 2)\n"),
    *[c for n in (1, 2, 3) for c in run_cases(f"torch.jit.annotations.BroadcastingList{n}", ["out = f(x, [2] * N)"],
      prelude=f"from torch.jit.annotations import BroadcastingList{n}\nN = {n}\n"
              f"def f(a, size: BroadcastingList{n}[int]):\n    return a * len(size)\n")],
    *run_cases("torch.backends.cudnn.benchmark", [
        "out = torch.backends.cudnn.benchmark",
        "torch.backends.cudnn.benchmark = True\nout = (torch.backends.cudnn.benchmark, x * 2)",
        "torch.backends.cudnn.benchmark = False\nout = torch.backends.cudnn.benchmark"]),
    *run_cases("torch.utils.data.default_collate", [
        "out = default_collate([x[0], x[1]])",
        "out = default_collate([(x[i], i) for i in range(3)])",
        "b = default_collate([{'a': x[i], 'b': 0.5 * i} for i in range(3)])\nout = (b['a'], b['b'])",
        "out = torch.utils.data.default_collate([[1, 2], [3, 4]])",
        "out = [b for b in torch.utils.data.DataLoader(list(x), batch_size=2, collate_fn=default_collate)]"],
        SAMPLES, prelude="from torch.utils.data import default_collate"),
    *run_cases("torch.utils.data.ConcatDataset", [
        "d = torch.utils.data.ConcatDataset([list(x[:2]), list(x[2:])])\nout = (len(d), d[0], d[2], d[-1], d.cumulative_sizes)",
        "d = ConcatDataset([[x[0]] * 2, [x[1]] * 3])\nout = [b for b in torch.utils.data.DataLoader(d, batch_size=2, collate_fn=default_collate)]"],
        SAMPLES, prelude="from torch.utils.data import ConcatDataset, default_collate"),
    *run_cases("torch.utils.hooks.RemovableHandle", [
        "d = collections.OrderedDict()\nh = hooks.RemovableHandle(d)\nd[h.id] = 1\nh2 = hooks.RemovableHandle(d)\n"
        "d[h2.id] = 2\nh.remove()\nout = (list(d.values()), h2.id - h.id)",
        "d = collections.OrderedDict()\ne = collections.OrderedDict()\nwith torch.utils.hooks.RemovableHandle(d, extra_dict=e) as h:\n"
        "    d[h.id] = x\n    e[h.id] = 1\n    inside = len(d) + len(e)\nout = (inside, len(d), len(e))",
        "def register(d) -> hooks.RemovableHandle:\n    return hooks.RemovableHandle(d)\n"
        "d = collections.OrderedDict()\nh = register(d)\nd[h.id] = 1\nh.remove()\nh.remove()\nout = len(d)"],
        prelude=HOOKS),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_runtime_entry(case):
    import torch

    before = torch.backends.cudnn.benchmark
    try:
        run_case(case)
    finally:
        torch.backends.cudnn.benchmark = before


# MindSpore's deterministic switch is set once per process (tests/api/test_device.py's DETERMINISTIC asks for off
# first): this case asks for on, which that helper accepts again, and torch's switch is reset after it
DETERMINISTIC = run_cases(("torch.are_deterministic_algorithms_enabled", "torch.use_deterministic_algorithms"), [
    "torch.use_deterministic_algorithms(True)\nout = torch.are_deterministic_algorithms_enabled()"])
CASES = CASES + DETERMINISTIC


@pytest.mark.parametrize("case", DETERMINISTIC, ids=str)
def test_deterministic_query(case):
    import torch

    try:
        run_case(case)
    finally:
        torch.use_deterministic_algorithms(False)


# Entries that refused a form before: torch.randperm with a generator (the converted torch.Generator draws torch's
# permutation), Tensor.diff with prepend / append; and torch's re-export paths (torch.utils.data.sampler.X,
# dataloader.X, torch.amp.grad_scaler.X) folded into the names the table has
FORMS = [
    *run_cases("torch.randperm", ["g = torch.Generator()\ng.manual_seed(3)\nout = torch.randperm(10, generator=g)",
                                  "g = torch.Generator().manual_seed(1234)\nout = (torch.randperm(7, generator=g), torch.randperm(50, generator=g))",
                                  "g = torch.Generator()\ng.manual_seed(0)\nout = torch.randperm(6, generator=g, dtype=torch.int32)",
                                  "g = torch.Generator()\ng.manual_seed(5)\nout = x[torch.randperm(x.shape[0], generator=g)]"]),
    *run_cases("Tensor.diff", ["out = x.diff(prepend=x[..., 3:4])", "out = x.diff(append=x[..., 0:1])",
                               "out = x.diff(dim=0, prepend=x[:1], append=x[-1:])",
                               "out = x.diff(1, -1, x[..., :2], x[..., 1:])"]),
    *run_cases(("torch.utils.data.BatchSampler", "torch.utils.data.SequentialSampler"),
               ["out = [b for b in BatchSampler(SequentialSampler(range(7)), 3, False)]"],
               prelude="from torch.utils.data.sampler import BatchSampler, SequentialSampler"),
    *run_cases(("torch.utils.data.Sampler", "torch.utils.data.DataLoader"),
               ["out = [b for b in torch.utils.data.DataLoader(list(x), sampler=Reverse(3), batch_size=2)]"],
               prelude="from torch.utils.data.sampler import Sampler\nclass Reverse(Sampler):\n"
                       "    def __init__(self, n):\n        self.n = n\n    def __iter__(self):\n"
                       "        return iter(range(self.n - 1, -1, -1))\n    def __len__(self):\n        return self.n\n"),
    *run_cases("torch.utils.data.default_collate", ["out = torch.utils.data.dataloader.default_collate([x[0], x[2]])"]),
]
CASES = CASES + FORMS


@pytest.mark.parametrize("case", FORMS, ids=str)
def test_forms(case):
    run_case(case)


TREES = ("[x, (x * 2, None)]", "{'b': x, 'a': [x + 1, 3]}", "collections.OrderedDict(z=x, y=(x,))",
         "P(x, [x * 3])", "collections.deque([x, x], maxlen=3)", "collections.defaultdict(list, {'k': [x]})",
         "x", "[]", "((), {})")
PYTREE = [
    *[c for tree in TREES for c in run_cases(
        ("torch.utils._pytree.tree_flatten", "torch.utils._pytree.tree_unflatten"),
        [f"leaves, spec = tree_flatten({tree})\nrebuilt = tree_unflatten([l * 2 if isinstance(l, torch.Tensor) else l "
         f"for l in leaves], spec)\nflat, _ = tree_flatten(rebuilt)\nout = (leaves, flat, spec.num_leaves, "
         f"type(rebuilt).__name__, isinstance(spec, TreeSpec))"],
        prelude="import collections\nfrom torch.utils._pytree import tree_flatten, tree_unflatten, TreeSpec\n"
                "P = collections.namedtuple('P', 'a b')\n")],
    *run_cases(("torch.utils._pytree.tree_flatten", "torch.utils._pytree.TreeSpec", "torch.utils._pytree.PyTree"),
               ["def f(t: pytree.PyTree) -> pytree.TreeSpec:\n    return pytree.tree_flatten(t)[1]\n"
                "out = (f([x, {'a': x}]) == f([x * 0, {'a': 1}]), f([x]) == f((x,)), f([x]).num_children)"],
               prelude="import torch.utils._pytree as pytree"),
    *run_cases("torch.utils._pytree.tree_flatten",
               ["out = pytree.tree_flatten([x, [x, 1]], is_leaf=lambda n: isinstance(n, list) and len(n) == 2)[0]"],
               prelude="import torch.utils._pytree as pytree"),
]
CASES = CASES + PYTREE


@pytest.mark.parametrize("case", PYTREE, ids=str)
def test_pytree(case):
    run_case(case)


def test_pytree_wrong_leaf_count():
    """torch's tree_unflatten raises a ValueError for a leaf count the spec does not hold; so does the helper."""
    from migrate import convert_source

    code = ("import torch\nfrom torch.utils._pytree import tree_flatten, tree_unflatten\n"
            "leaves, spec = tree_flatten([1, (2, 3)])\ntree_unflatten([1, 2], spec)\n")
    for source in (code, convert_source(code).code):
        with pytest.raises(ValueError):
            exec(source, {})


JIT = """
def set_fuser():
    a = torch._C._jit_set_profiling_executor(False)
    b = torch._C._jit_set_profiling_mode(False)
    c = torch._C._jit_override_can_fuse_on_gpu(True)
    d = torch._C._jit_override_can_fuse_on_cpu(False)
    e = torch._C._jit_set_texpr_fuser_enabled(False)
    f = torch._C._jit_set_profiling_executor(True)
    g = torch._C._jit_set_profiling_mode(True)
    return [a, b, c, d, e, f, g]
"""
QUANT = """
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = torch.ao.quantization.QuantStub()
        self.fc = nn.Linear(4, 2)
        self.dequant = DeQuantStub(qconfig=None)
    def forward(self, x):
        return self.dequant(self.fc(self.quant(x)))
net = Net()
"""
MORE = [
    *run_cases("torch._C._get_tracing_state", ["out = torch._C._get_tracing_state() is None",
                                               "out = x * 2 if torch._C._get_tracing_state() else x"]),
    *run_cases(("torch._C._jit_set_profiling_executor", "torch._C._jit_set_profiling_mode",
                "torch._C._jit_override_can_fuse_on_gpu", "torch._C._jit_override_can_fuse_on_cpu",
                "torch._C._jit_set_texpr_fuser_enabled"), ["out = set_fuser()"], prelude=JIT),
    *run_cases("torch._C._jit_set_nvfuser_enabled", ["out = torch._C._jit_set_nvfuser_enabled(False)"]),
    *run_cases(("torch.ao.quantization.QuantStub", "torch.ao.quantization.DeQuantStub"), ["out = net(x)"],
               prelude="from torch.ao.quantization import DeQuantStub\n" + QUANT),
    *run_cases(("torch.distributed.Backend.NCCL", "torch.distributed.Backend.GLOO", "torch.distributed.Backend.MPI"),
               ["out = [str(torch.distributed.Backend.NCCL), str(Backend.GLOO), 'gloo' == Backend.GLOO, "
                "Backend.MPI in ('mpi',), str(Backend.NCCL).upper()]"],
               prelude="from torch.distributed import Backend"),
]
CASES = CASES + MORE


@pytest.mark.parametrize("case", MORE, ids=str)
def test_more(case):
    import torch

    state = (torch._C._jit_texpr_fuser_enabled(), torch._C._jit_can_fuse_on_cpu(), torch._C._jit_can_fuse_on_gpu())
    try:
        run_case(case)
    finally:  # torch's TorchScript settings as they were (the case changes them on torch's side)
        torch._C._jit_set_texpr_fuser_enabled(state[0])
        torch._C._jit_override_can_fuse_on_cpu(state[1])
        torch._C._jit_override_can_fuse_on_gpu(state[2])


COMPILED = "net = nn.Linear(4, 3)\nfrom torch._dynamo import OptimizedModule\nimport torch._dynamo.eval_frame\n"
MP = "import torch.multiprocessing as mp\n"
PROCS = [
    *run_cases("torch._dynamo.OptimizedModule", [
        "m = torch.compile(net, backend='eager')\nout = (m._orig_mod if isinstance(m, OptimizedModule) else m)(x)",
        "out = (isinstance(net, OptimizedModule), net(x))"], prelude=COMPILED),
    *run_cases("torch._dynamo.eval_frame.OptimizedModule", [
        "out = isinstance(net, torch._dynamo.eval_frame.OptimizedModule)"], prelude=COMPILED),
    *run_cases("torch.multiprocessing.get_all_start_methods", ["out = 'fork' in mp.get_all_start_methods()",
                                                              "out = torch.multiprocessing.get_all_start_methods()"], prelude=MP),
    *run_cases(("torch.multiprocessing.get_context", "torch.multiprocessing.get_start_method"),
               ["out = (mp.get_context('spawn').get_start_method(), mp.get_start_method(allow_none=True) in (None, 'fork', 'spawn', 'forkserver'))"],
               prelude=MP),
    *run_cases("torch.multiprocessing.set_start_method",
               ["try:\n    mp.set_start_method(mp.get_start_method(), force=True)\n    out = 1\nexcept RuntimeError:\n    out = 0"],
               prelude=MP),
    *run_cases("torch.multiprocessing.SimpleQueue", ["q = mp.SimpleQueue()\nq.put(3)\nq.put([1, 'a'])\nout = (q.get(), q.get(), q.empty())"],
               prelude=MP),
    *run_cases("torch.multiprocessing.Queue", ["q = torch.multiprocessing.Queue()\nq.put(2.5)\nout = q.get(timeout=5)"], prelude=MP),
    *run_cases("torch.multiprocessing.Process", ["p = mp.Process(target=int, args=(1,))\nout = (p.daemon, p.is_alive(), p.exitcode)"],
               prelude=MP),
    *run_cases("torch.multiprocessing.Manager", [
        "with mp.Manager() as m:\n    d = m.dict()\n    d['a'] = 1\n    out = dict(d)"], prelude=MP),
]
CASES = CASES + PROCS


@pytest.mark.parametrize("case", PROCS, ids=str)
def test_processes(case):
    run_case(case)


DENSE = """
class Layer(nn.Module):
    @torch.jit._overload_method  # noqa: F811
    def forward(self, x: List[torch.Tensor]) -> torch.Tensor:
        pass

    @torch.jit._overload_method  # noqa: F811
    def forward(self, x: torch.Tensor) -> torch.Tensor:  # noqa: F811
        pass

    def forward(self, x):  # noqa: F811
        return torch.cat(x, 1) if isinstance(x, list) else x * 2
layer = Layer()
"""
HUB = [
    *run_cases("torch.nn.init._calculate_fan_in_and_fan_out", [
        "out = _calculate_fan_in_and_fan_out(torch.zeros(8, 3, 3, 5))", "out = init._calculate_fan_in_and_fan_out(x)",
        "w = nn.Conv1d(4, 6, 3).weight\nout = init._calculate_fan_in_and_fan_out(w)"],
        prelude="import torch.nn.init as init\nfrom torch.nn.init import _calculate_fan_in_and_fan_out"),
    *run_cases("torch.jit._overload_method", ["out = (layer(x), layer([x, x]))"],
               prelude="from typing import List\n" + DENSE),
    *run_cases("torch.hub.urlparse", ["u = urlparse('https://host/models/resnet18-f37072fd.pth?x=1')\n"
                                      "out = [u.scheme, u.netloc, u.path, u.query]"], prelude="from torch.hub import urlparse"),
    *run_cases("torch.hub.HASH_REGEX.search", ["r = HASH_REGEX.search('resnet18-f37072fd.pth')\nout = r.group(1)",
                                               "out = torch.hub.HASH_REGEX.search('plain.pth') is None"],
               prelude="import torch.hub\nfrom torch.hub import HASH_REGEX"),
]
CASES = CASES + HUB


@pytest.mark.parametrize("case", HUB, ids=str)
def test_hub_and_init(case):
    run_case(case)


QX = {"x": np.random.default_rng(3).standard_normal((5, 6)).astype("float32")}
QUANTILE = [
    *run_cases("torch.quantile", [
        "out = torch.quantile(x, 0.5)", "out = torch.quantile(x, 0.3, dim=1)", "out = torch.quantile(x, 0.25, 0, True)",
        "out = torch.quantile(x, torch.tensor([0.1, 0.5, 0.9]), dim=-1)", "out = torch.quantile(x, torch.tensor([0.2, 0.7]))",
        "out = torch.quantile(x, 0.4, dim=None, keepdim=True)",
        "out = [torch.quantile(x, 0.37, dim=1, interpolation=m) for m in ('linear', 'lower', 'higher', 'midpoint', 'nearest')]",
        "out = torch.quantile(x, 0.5, dim=0, interpolation='nearest')",
        "y = x.clone()\ny[1, 2] = float('nan')\nout = torch.quantile(y, 0.5, dim=1)"], QX),
    *run_cases("Tensor.quantile", ["out = x.quantile(0.9)", "out = x.quantile(0.5, dim=0, keepdim=True)",
                                   "out = x.quantile(q=torch.tensor([0.25, 0.75]), dim=1)"], QX),
]
CASES = CASES + QUANTILE


@pytest.mark.parametrize("case", QUANTILE, ids=str)
def test_quantile(case):
    run_case(case)


UNBOUND = [
    *run_cases("torch.Tensor.detach", ["out = list(map(torch.Tensor.detach, [x, x * 2]))", "out = torch.Tensor.detach(x) + 1",
                                       "f = torch.Tensor.detach\nout = f(x * 3)"]),
    *run_cases("torch.Tensor.clone", ["out = [torch.Tensor.clone(t) for t in (x, x + 1)]", "f = torch.Tensor.clone\nout = f(x)"]),
]
CASES = CASES + UNBOUND


@pytest.mark.parametrize("case", UNBOUND, ids=str)
def test_unbound_methods(case):
    run_case(case)


SCRIPTED = [
    *run_cases(("torch.jit.ScriptModule", "torch.jit.ScriptFunction"), [
        "out = (isinstance(net, torch.jit.ScriptModule), isinstance(f, (torch.jit.ScriptModule, torch.jit.ScriptFunction)), net(x))",
        ], prelude="net = nn.Linear(4, 2)\ndef f(a):\n    return a\n"),
    *run_cases("torch.jit.ScriptModule", ["out = [isinstance(m, torch.jit.ScriptModule) for m in seq.modules()]"],
               prelude="seq = nn.Sequential(nn.Linear(4, 4), nn.ReLU())\n"),
    *run_cases("torch.ScriptModule", ["def g(m) -> ScriptModule:\n    return m\nout = (isinstance(g(net), ScriptModule), g(net)(x))"],
               prelude="from torch import ScriptModule\nnet = nn.Linear(4, 2)\n"),
]
CASES = CASES + SCRIPTED


@pytest.mark.parametrize("case", SCRIPTED, ids=str)
def test_scripted_types(case):
    run_case(case)
