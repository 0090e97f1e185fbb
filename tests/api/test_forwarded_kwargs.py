"""Keyword arguments forwarded with ``**options`` into a converted call (timm's ``nn.Conv2d(..., **dd)`` with
``dd = {'device': device, 'dtype': dtype}``): the keys are known only when the code runs, so the converted call
passes ``**_msmigrate_kwargs(api, options, keep=..., drop=..., unset=..., defaults=...)``, which renames what the
entry maps one to one, gives the entry's filled defaults unless a key overrides them, drops devices, drops a dtype
only when it is the default, and raises for anything else."""
import textwrap

import pytest

from migrate import convert_source
from tests.api.cases import HEADER, call_cases, layer_cases
from tests.harness import rng_array, run_case

DD = "dd = {'device': None, 'dtype': None}"
DD32 = "dd = dict(device='cpu', dtype=torch.float32)"
CASES = [
    *layer_cases("torch.nn.Conv2d", ["nn.Conv2d(3, 4, 3, padding=1, **dd)", "nn.Conv2d(3, 4, 3, **dd)"], prelude=DD),
    *layer_cases("torch.nn.Conv2d", ["nn.Conv2d(3, 4, 3, **dd, **opts)"],
                 prelude=DD32 + "\nopts = {'stride': 2, 'groups': 1, 'dilation': 2}"),
    # bias is filled (has_bias=True) when the call does not write it: through ** the helper gives that default
    # only when the key is absent (timm's create_conv2d_pad(..., bias=False, **kwargs))
    *layer_cases("torch.nn.Conv2d", ["nn.Conv2d(3, 4, 3, padding=1, **opts)", "nn.Conv2d(3, 4, 1, **dd)"],
                 prelude="opts = {'bias': False, 'stride': 2, 'device': None}\n" + DD),
    # googlenet's BasicConv2d: kernel_size, stride and padding all come through **
    *layer_cases("torch.nn.Conv2d", ["nn.Conv2d(3, 4, bias=False, **bc)"],
                 prelude="bc = {'kernel_size': 3, 'padding': (1, 0), 'stride': 2}"),
    *layer_cases("torch.nn.Linear", ["nn.Linear(8, 4, **dd)", "nn.Linear(8, 4, **opts)"], shape=(3, 8),
                 prelude=DD + "\nopts = {'bias': False, 'device': 'cpu'}"),
    *layer_cases("torch.nn.BatchNorm2d", ["nn.BatchNorm2d(3, **dd)", "nn.BatchNorm2d(3, momentum=0.3, **opts)"],
                 prelude=DD + "\nopts = {'eps': 1e-3, 'dtype': None}",
                 run="train_out = m(x)\nm.eval()\nout = m(x + 1)", names=("train_out", "out"), rtol=1e-4, atol=1e-5,
                 why_tolerance="batch variance is reduced in a different order (float32 rounding)"),
    *layer_cases("torch.nn.LayerNorm", ["nn.LayerNorm(8, **dd)", "nn.LayerNorm(d, eps=1e-6, **dd)"], shape=(2, 5, 8),
                 prelude=DD32 + "\nd = 8", rtol=1e-4, atol=1e-5,
                 why_tolerance="variance is reduced in a different order (float32 rounding)"),
    *layer_cases("torch.nn.Identity", ["nn.Identity(**dd)", "nn.Identity(3, 4, **dd)"], prelude=DD),
    *call_cases("torch.zeros", ["torch.zeros(2, 3, **dd)", "torch.zeros((2, 3), **ints)"], {},
                prelude=DD + "\nints = {'dtype': torch.int64, 'device': 'cpu'}"),
    *call_cases("torch.ones", ["torch.ones(2, 3, **dd)", "torch.ones(4, **ints)"], {},
                prelude=DD32 + "\nints = {'dtype': torch.int32}"),
    *call_cases("torch.empty", ["torch.empty(2, 3, **dd).shape", "torch.empty((2,), **dd).dtype == torch.float32"], {}, prelude=DD),
    *call_cases("torch.tensor", ["torch.tensor([1.0, 2.0], **dd)", "torch.tensor([1, 2], **ints)"], {},
                prelude=DD + "\nints = {'dtype': torch.int64}"),
    *call_cases("torch.arange", ["torch.arange(5, **dd)", "torch.arange(0, 6, 2, **ints)"], {},
                prelude=DD32 + "\nints = {'dtype': torch.int64, 'device': None}"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_forwarded_options(case):
    out = run_case(case)
    if "Identity" not in case.id:  # the run-time key check, or the entry's torch-signature callable
        assert "_msmigrate_kwargs(" in out or "_Msmigrate" in out


def _run_converted(source: str):
    import mindspore  # noqa: F401 - the converted code imports it

    result = convert_source(textwrap.dedent(source))
    assert not result.unsupported, result.unsupported
    ns = {"__name__": "converted"}
    exec(compile(result.code, "<converted>", "exec"), ns)
    return result.code


@pytest.mark.parametrize("options, key", [
    ("{'padding': 1}", "padding"),              # the conv rule depends on padding: never accepted through **
    ("{'dtype': torch.float16}", "dtype"),      # a layer dtype other than the default is not dropped
    ("{'padding_mode': 'reflect'}", "padding_mode"),  # refused by name, refused through ** too
])
def test_an_unconverted_key_raises_when_it_runs(options, key):
    # ConvTranspose2d has no torch-signature callable (``value``): its forwarded keys go through the run-time check
    with pytest.raises(TypeError, match=f"torch.nn.ConvTranspose2d\\(\\*\\*\\.\\.\\.\\): msmigrate did not convert "
                                        f"the argument {key}="):
        _run_converted(HEADER + f"opts = {options}\nm = nn.ConvTranspose2d(3, 4, 3, **opts)\n")


@pytest.mark.parametrize("options, message", [("{'dtype': torch.float16}", "only float32"),
                                              ("{'padding_mode': 'reflect'}", "only zero padding")])
def test_a_torch_signature_class_refuses_what_it_cannot_convert_when_it_runs(options, message):
    # Conv1d's forwarded keys go to its torch-signature class, which raises for what it does not convert
    with pytest.raises(NotImplementedError, match=message):
        _run_converted(HEADER + f"opts = {options}\nm = nn.Conv1d(3, 4, 3, **opts)\n")


def test_an_entry_with_a_torch_signature_callable_takes_every_forwarded_key():
    """googlenet's BasicConv2d: ``nn.Conv2d(cin, cout, bias=False, **kwargs)`` with kernel_size, stride and
    padding in kwargs goes to the entry's torch-signature class, which adapts them when it runs."""
    code = _run_converted(HEADER + "opts = {'kernel_size': 3, 'padding': (1, 0), 'stride': 2}\n"
                                   "m = nn.Conv2d(3, 4, bias=False, **opts)\nassert m.has_bias is False\n")
    assert "_MsmigrateConv2d(3, 4, bias=False, **opts)" in code
    with pytest.raises(NotImplementedError, match="padding_mode='reflect'"):
        _run_converted(HEADER + "opts = {'padding_mode': 'reflect'}\nm = nn.Conv2d(3, 4, 3, **opts)\n")


def test_an_allowed_value_known_only_at_run_time_goes_to_the_torch_signature_callable():
    """timm's PiT: ``nn.Conv2d(..., padding_mode=padding_mode, groups=c)``: 'zeros' converts when it runs."""
    code = _run_converted(HEADER + "mode = 'zeros'\nm = nn.Conv2d(4, 4, 3, padding=1, padding_mode=mode, groups=4)\n")
    assert "_MsmigrateConv2d(4, 4, 3, padding=1, padding_mode=mode, groups=4)" in code
    with pytest.raises(NotImplementedError, match="padding_mode='reflect'"):
        _run_converted(HEADER + "mode = 'reflect'\nm = nn.Conv2d(4, 4, 3, padding_mode=mode)\n")


def test_a_key_given_twice_raises_like_torch():
    with pytest.raises(TypeError):
        _run_converted(HEADER + "opts = {'stride': 2}\nm = nn.Conv2d(3, 4, 3, stride=1, **opts)\n")


def test_a_rule_that_writes_the_whole_call_refuses_forwarded_options():
    result = convert_source(HEADER + "opts = {}\nx = torch.ones(2)\ny = x.to(**opts)\n")
    assert any(u.api == "Tensor.to" and "**opts" in u.reason for u in result.unsupported), result.unsupported


def test_converting_twice_changes_nothing():
    once = convert_source(HEADER + DD + "\nm = nn.Conv2d(3, 4, 3, **dd)\n").code
    assert convert_source(once).code == once
