"""Gradient-mode switches (mappings/training.toml, helper templates/grad_mode.py): torch.enable_grad and
torch.set_grad_enabled as a `with` block, a called decorator, a bare decorator and a statement. The values inside
are compared by the harness; the MindSpore gradient state they set (what makes ms.grad work or refuse) is checked
on the converted code itself."""
import textwrap

import pytest

from migrate import convert_source
from tests.api.cases import HEADER, X
from tests.harness import Case, run_case

DECORATED = """
@torch.enable_grad()
def f(a):
    return a * 2

@torch.enable_grad
def g(a):
    return a + 1

@torch.set_grad_enabled(False)
def h(a):
    return a - 1
"""


def cases(api, bodies, prelude=""):
    return [Case(api, f"{HEADER}{prelude}\n# @run\n{b}\n", inputs=X, id=f"{api}:{b}") for b in bodies]


CASES = [
    *cases("torch.enable_grad", ["with torch.enable_grad():\n    out = x * 3",
                                 "with torch.no_grad():\n    with torch.enable_grad():\n        out = x.exp()",
                                 "out = (f(x), g(x))"], DECORATED),
    *cases("torch.set_grad_enabled", ["with torch.set_grad_enabled(False):\n    out = x * 3",
                                      "mode = True\nwith torch.set_grad_enabled(mode):\n    out = x + 1",
                                      "with torch.set_grad_enabled(mode=False):\n    out = x.abs()",
                                      "torch.set_grad_enabled(False)\nout = x * 2\ntorch.set_grad_enabled(True)",
                                      "out = h(x)"], DECORATED),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_grad_mode_entry(case):
    run_case(case)


PROBE = """
import torch

def grads_work():
    return torch.is_grad_enabled()

states = []
with torch.set_grad_enabled(False):
    states.append(grads_work())
    with torch.enable_grad():
        states.append(grads_work())
    states.append(grads_work())
states.append(grads_work())

@torch.set_grad_enabled(False)
def off():
    return grads_work()

@torch.enable_grad
def on():
    return grads_work()

torch.set_grad_enabled(False)
states += [on(), grads_work()]
torch.set_grad_enabled(True)
states += [off(), grads_work()]
"""


def _run_converted_probe(probe_source: str, apis: tuple[str, ...]) -> list:
    """Convert a probe script without its torch ``grads_work`` and run it with MindSpore's: ms.grad raises inside a
    switched-off region ("In no_grad context...") and works elsewhere. Returns its ``states``."""
    source = probe_source.replace("def grads_work():\n    return torch.is_grad_enabled()\n", "")
    result = convert_source(source, filename="<probe>")
    assert not result.unsupported and all(result.apis.get(a) for a in apis), result.code
    probe = textwrap.dedent("""
        import mindspore as _ms
        import numpy as _np

        def _square_sum(t):
            return (t * t).sum()

        def grads_work():
            try:
                _ms.grad(_square_sum)(_ms.Tensor(_np.ones(2, _np.float32)))
                return True
            except RuntimeError as exc:
                assert "no_grad" in str(exc), exc
                return False
        """)
    code = result.code.replace("\nstates = []", probe + "\nstates = []", 1)
    ms_ns: dict = {"__name__": "ms_probe"}  # ms.grad reads the function's module name
    exec(compile(code, "<ms>", "exec"), ms_ns)
    return ms_ns["states"]


def test_converted_switches_set_and_restore_mindspores_gradient_state():
    """The same probe in torch (torch.is_grad_enabled) and in the conversion, where the probe is replaced by what
    MindSpore does: ms.grad raises inside a switched-off region ("In no_grad context...") and works elsewhere."""
    torch_ns: dict = {}
    exec(compile(PROBE, "<torch>", "exec"), torch_ns)
    expected = torch_ns["states"]
    assert expected == [False, True, False, True, True, False, False, True]
    assert _run_converted_probe(PROBE, ("torch.enable_grad", "torch.set_grad_enabled")) == expected


VALUE_PROBE = """
import torch

def grads_work():
    return torch.is_grad_enabled()

states = []
for context_manager in (torch.no_grad, torch.inference_mode):  # Lightning's loops/utilities.py picks one of these
    with context_manager():
        states.append(grads_work())
    states.append(grads_work())
"""


def test_no_grad_and_inference_mode_as_values_switch_mindspores_gradient_state():
    """``context_manager = torch.no_grad`` / ``torch.inference_mode``, entered later: the same probe as above, torch's
    is_grad_enabled against whether ms.grad works in the conversion."""
    torch_ns: dict = {}
    exec(compile(VALUE_PROBE, "<torch>", "exec"), torch_ns)
    expected = torch_ns["states"]
    assert expected == [False, True, False, True]
    assert _run_converted_probe(VALUE_PROBE, ("torch.no_grad", "torch.inference_mode")) == expected


def test_inference_mode_false_as_a_value_raises_when_it_runs():
    result = convert_source("import torch\ncm = torch.inference_mode\nwith cm(False):\n    y = 1\n")
    assert not result.unsupported
    with pytest.raises(NotImplementedError, match="inference_mode"):
        exec(compile(result.code, "<ms>", "exec"), {"__name__": "ms_probe"})
