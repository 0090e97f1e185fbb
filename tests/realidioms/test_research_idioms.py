"""Idioms of research repositories (benchmarks/real_models.py --research) that converted with no marker and then
failed in MindSpore, each run here in both frameworks on a small snippet written for the test.

* A numpy scalar on the left of an arithmetic operator (a tanh-GELU written with ``np.sqrt(2 / np.pi)``): numpy
  outranks a MindSpore Tensor, so the product was a numpy array (gradients lost; the next op raised). The numpy
  operand becomes a Python number (rewrite/operators.py).
* ``bias=None`` given to a convolution or a linear layer (a deformable-conv block's default): torch reads it as
  "no bias", MindSpore's ``has_bias`` refuses anything but a bool. The value goes through ``bool()`` (the table's
  ``transform``; a literal folds: ``has_bias=False``).
"""
import numpy as np

from migrate import convert_source
from tests.api.cases import HEADER
from tests.harness import Case, rng_array, run_case

GELU_NP = HEADER + """import numpy as np


class TanhGELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1. + torch.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * torch.pow(x, 3))))


m = TanhGELU()
# @run
out = m(x)
scaled = np.float32(3.0) * x - np.exp(np.log(2.0)) / (x * x + 1)
"""


def test_numpy_scalar_times_tensor_stays_a_tensor():
    case = Case(("operator numpy scalar * tensor", "operator numpy scalar / tensor"), GELU_NP,
                names=("out", "scaled"), inputs={"x": rng_array(2, 3, 4)}, id="tanh-GELU with np.sqrt")
    out = run_case(case)
    assert "np.sqrt(2 / np.pi).item() * (" in out, out


def test_numpy_on_the_left_is_left_alone_where_it_is_not_a_scalar_or_not_beside_a_tensor():
    code = convert_source(HEADER + "import numpy as np\n\ndef f(x):\n"
                          "    a = np.ones(3) * x\n    b = np.sqrt(2) * np.pi\n    return x * np.sqrt(2), a, b\n").code
    assert "np.ones(3) * x" in code and "np.sqrt(2) * np.pi" in code and "x * np.sqrt(2)" in code, code
    assert ".item()" not in code, code


BIAS_NONE = HEADER + """

class Block(nn.Module):
    def __init__(self, cin, cout, bias=None):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, kernel_size=3, padding=1, bias=bias)
        self.fc = nn.Linear(cout, 2, bias=bias)
        self.head = nn.Conv2d(cout, 1, 1, bias=None)

    def forward(self, x):
        y = self.conv(x)
        return self.head(y), self.fc(y.mean((2, 3)))


m = Block(3, 4)
n_params = len(list(m.parameters()))
# @run
out = m(x)
"""


def test_bias_none_means_no_bias():
    case = Case(("torch.nn.Conv2d", "torch.nn.Linear"), BIAS_NONE, names=("out", "n_params"),
                inputs={"x": rng_array(2, 3, 6, 6)}, id="bias=None")
    out = run_case(case)
    assert "has_bias=bool(bias)" in out and "has_bias=False" in out, out
    assert "bool(None)" not in out and "bool(True)" not in out, out


def test_a_bias_none_reaches_the_torch_signature_classes_too():
    """A subclass of nn.Conv2d (the ``base`` helper with torch's signature) given bias=None builds without bias."""
    case = Case("torch.nn.Conv2d", HEADER + """

class Conv(nn.Conv2d):
    pass


m = Conv(3, 2, 3, bias=None)
has = m.bias is not None
# @run
out = m(x)
""", names=("out", "has"), inputs={"x": rng_array(1, 3, 5, 5)}, id="subclass bias=None")
    run_case(case)


PARENS_NO_SPACE = HEADER + """

def gate(x):
    if(torch.is_tensor(x)):
        x = x * 2
    flag = not(torch.is_tensor(x))
    return(torch.relu(x)), flag


# @run
out, flag = gate(x)
"""


def test_a_keyword_right_before_parentheses_keeps_them():
    """``return(torch.relu(x))``, ``if(...)``, ``not(...)``: a replaced expression keeps the source's parentheses
    (without them ``returnops.relu(x)`` is no statement; libcst refused the node and the whole file was copied
    unconverted)."""
    case = Case(("torch.relu", "torch.is_tensor"), PARENS_NO_SPACE, names=("out", "flag"),
                inputs={"x": rng_array(2, 3)}, id="keyword(...)")
    out = run_case(case)
    assert "return(ops.relu(x))" in out, out


def test_assert_right_before_parentheses_converts():
    result = convert_source(HEADER + "assert(torch.cuda.is_available())\n\n\ndef f(x):\n    return x\n")
    assert not result.errors, result.errors
    assert "import torch\n" not in result.code and "assert(" in result.code, result.code
    compile(result.code, "<converted>", "exec")


FLOAT_POOL = HEADER + """

class Head(nn.Module):
    def __init__(self, h, w):
        super().__init__()
        self.pool = nn.MaxPool2d(kernel_size=(h / 4, w / 4))   # a float size: built in torch, unused
        self.avg = nn.AvgPool2d(kernel_size=h / 4)             # the same, without stride
        self.used = nn.MaxPool2d(kernel_size=h // 4)

    def forward(self, x):
        return self.used(x)


m = Head(8, 8)
# @run
out = m(x)
"""


def test_a_pool_built_with_a_true_division_builds():
    """torch keeps a float kernel_size until the layer is called; MindSpore refused it at construction, so the
    model could not be built at all."""
    case = Case(("torch.nn.MaxPool2d", "torch.nn.AvgPool2d"), FLOAT_POOL, inputs={"x": rng_array(1, 2, 8, 8)},
                id="float pool size")
    out = run_case(case)
    assert "kernel_size=(int(h / 4), int(w / 4))" in out and "kernel_size=int(h / 4)" in out, out


def test_a_module_method_the_cell_lacks_is_a_marker():
    """``self.conv.register_full_backward_pre_hook(...)``, ``m.float()``: converted silently before, the Cell then raised
    AttributeError when built. Now each call is a marker at its line (``register_parameter`` is mapped since)."""
    import mindspore as ms
    import torch

    from migrate.rewrite.transformer import _CELL_LACKS

    for name in _CELL_LACKS:  # the list is what the two frameworks are: torch has it, MindSpore's Cell does not
        assert callable(getattr(torch.nn.Module, name, None)), name
        assert not hasattr(ms.nn.Cell, name), name
    result = convert_source(HEADER + """

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 1)
        self.conv.register_full_backward_pre_hook(self._scale)
        self.register_parameter('extra', None)

    @staticmethod
    def _scale(module, grad_input, grad_output):
        return None

    def forward(self, x):
        return self.conv(x)


model = Block().float()
""")
    marked = {(u.api, u.line) for u in result.unsupported}
    assert marked == {("Module.register_full_backward_pre_hook", 10), ("Module.float", 21)}, marked
    assert result.code.count("# msmigrate: unsupported Module.") == 2, result.code
    assert "self.insert_param_to_cell('extra', None)" in result.code, result.code  # mapped since (init.toml)
    compile(result.code, "<converted>", "exec")


EINOPS = HEADER + """from einops import rearrange, reduce, repeat
from einops.layers.torch import Rearrange, Reduce


class PatchMixer(nn.Module):
    def __init__(self):
        super().__init__()
        self.to_tokens = nn.Sequential(Rearrange('b c (h p) (w q) -> b (h w) (p q c)', p=2, q=2), nn.Linear(12, 8))
        self.pool = Reduce('b n d -> b d', 'mean')

    def forward(self, x):
        t = self.to_tokens(x)
        back = rearrange(t, 'b (h w) d -> b d h w', h=2)
        peak = reduce(x, 'b c h w -> b c', 'max')
        return self.pool(t), back, repeat(peak, 'b c -> b c k', k=3), reduce(t, 'b n d -> b d', 'prod')


m = PatchMixer()
# @run
pooled, back, peaks, prod = m(x)
"""


def test_einops_functions_and_layers_run_on_mindspore_tensors():
    """``einops.rearrange`` on a MindSpore tensor raised (einops has no MindSpore backend) and
    ``einops.layers.torch.Rearrange`` stayed a torch layer inside a Cell, both with no marker. The converted file
    defines the backend (``_msmigrate_einops_mindspore()``) and binds the layers to Cells."""
    case = Case(("einops", "einops.layers.torch"), EINOPS, names=("pooled", "back", "peaks", "prod"),
                inputs={"x": rng_array(2, 3, 4, 4)}, id="einops")
    out = run_case(case)
    assert "Rearrange = _MsmigrateEinopsRearrange" in out and "_msmigrate_einops_mindspore()" in out, out


def test_an_einops_torch_layer_without_a_cell_is_a_marker():
    result = convert_source(HEADER + "from einops.layers.torch import EinMix, Rearrange\n\n"
                            "layer = Rearrange('b c -> c b')\n")
    assert [u.api for u in result.unsupported] == ["einops.layers.torch.EinMix"], result.unsupported
    assert "from einops.layers.torch import EinMix\n" in result.code, result.code


def test_a_conv_subclass_built_with_list_sizes():
    """``class Conv2dStaticSamePadding(nn.Conv2d)`` built with ``kernel_size=[3, 3]``, ``stride=[1]``
    (EfficientNet-PyTorch): torch takes lists, a 1-element one for both axes; MindSpore's kernel refused them; the
    torch-signature base passes pairs."""
    case = Case("torch.nn.Conv2d", HEADER + """

class SameConv(nn.Conv2d):
    def forward(self, x):
        return super().forward(x)


m = SameConv(3, 4, kernel_size=[3, 3], stride=[2, 2], padding=1)
one = SameConv(3, 2, kernel_size=1, stride=[2])  # a 1-element stride is both axes' in torch
sizes = (tuple(m.kernel_size), tuple(m.stride))
# @run
out = m(x)
out1 = one(x)
""", names=("out", "out1", "sizes"), inputs={"x": rng_array(1, 3, 7, 7)}, id="list kernel_size")
    run_case(case)


HOOK = HEADER + """

class Offsets(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 3, 3, padding=1)
        self.conv.register_full_backward_hook(self._scale)

    @staticmethod
    def _scale(module, grad_input, grad_output):
        return tuple(g * 0.1 if g is not None else None for g in grad_input)

    def forward(self, x):
        return self.conv(x) * 2


m = Offsets()
# @run
def loss_of(inp):
    return (m(inp) ** 2).sum()
"""


def test_a_full_backward_hook_scales_the_input_gradient_as_in_torch():
    """``register_full_backward_hook`` (CT-crackseg's deformable conv scales its offsets' gradients): MindSpore's
    ``Cell.register_backward_hook`` takes the same hook and its returned tuple replaces grad_input (measured)."""
    import mindspore as ms
    import torch

    result = convert_source(HOOK)
    assert "self.conv.register_backward_hook(self._scale)" in result.code and not result.unsupported, result.code
    x = rng_array(1, 2, 5, 5)
    t_ns, m_ns = {"__name__": "torch_side"}, {"__name__": "ms_side"}
    exec(HOOK.replace("# @run\n", ""), t_ns)
    exec(result.code.replace("# @run\n", ""), m_ns)
    m_ns["m"].conv.weight.set_data(ms.Tensor(t_ns["m"].conv.weight.detach().numpy()))
    m_ns["m"].conv.bias.set_data(ms.Tensor(t_ns["m"].conv.bias.detach().numpy()))
    tx = torch.from_numpy(x).requires_grad_()
    t_ns["loss_of"](tx).backward()
    g = ms.grad(m_ns["loss_of"])(ms.Tensor(x))
    np.testing.assert_allclose(g.asnumpy(), tx.grad.numpy(), rtol=1e-5, atol=1e-5)
