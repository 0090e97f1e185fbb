"""``x.device.type`` and ``torch.autocast(..., enabled=False)``, as timm's EfficientViT attention writes them:

    if not torch.jit.is_scripting() and v.device.type != 'meta':
        with torch.autocast(device_type=v.device.type, enabled=False):
            out = self._attn(q, k, v)

MindSpore's ``Tensor.device`` is a string ("CPU"), which has no ``.type`` ("'str' object has no attribute 'type'"
in the real model): ``.type`` of a ``.device`` becomes torch's device type name ("cpu", "cuda", "npu"); the
autocast region that is switched off becomes a context that does nothing (MindSpore has no autocast region).
Both run in both frameworks here and give the same values."""
from migrate import convert_source
from tests.api.cases import HEADER
from tests.harness import Case, rng_array, run_case

QKV = {"q": rng_array(2, 4, 5), "k": rng_array(2, 4, 5, seed=1), "v": rng_array(2, 4, 5, seed=2)}


def test_device_type_and_autocast_off_run_as_in_torch():
    case = Case(("torch.device.type (-> torch's device type name)", "torch.autocast"), HEADER + """
def attn(q, k, v):
    if not torch.jit.is_scripting() and v.device.type != 'meta':
        with torch.autocast(device_type=v.device.type, enabled=False):
            out = (q @ k.transpose(-1, -2)) @ v
    else:
        out = q
    return out

# @run
out = attn(q, k, v)
is_cpu = q.device.type == "cpu"
""", names=("out", "is_cpu"), inputs=QKV, id="efficientvit attention")
    out = run_case(case)
    assert "_msmigrate_device_type(v.device) != 'meta'" in out and "with _MsmigrateNoAutocast():" in out, out


def test_a_variable_enabled_is_still_refused():
    result = convert_source(HEADER + "def f(x, on):\n    with torch.autocast('cuda', enabled=on):\n        return x\n")
    # a variable enabled= is converted only around a training step's loss (the network is cast under `if on:`)
    assert any(u.api == "torch.autocast" and "only converted around the loss" in u.reason for u in result.unsupported)
