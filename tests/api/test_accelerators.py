"""Device queries of torch's accelerator namespaces (mappings/accelerators.toml): converted code answers what
torch answers on this machine (CPU only: no CUDA, no XPU, no other vendor's device).

torch.cuda, torch.xpu and torch.mtia exist in a CPU-only torch and are run as they are. The vendor plugins
(torch.npu, torch.mlu, torch.musa, torch.sdaa, torch.neuron, torch.hpu) are added to torch by packages that are not
installed here, so their conversion is compared with the same call of torch.xpu, the namespace torch has for a
device that is absent (what each plugin reports without its device)."""
import pytest

from migrate import convert_source
from tests.api.cases import HEADER, X
from tests.harness import Case, assert_unsupported, run_case


def run_cases(api, bodies, inputs=X, prelude="", names=("out",), **kw):
    return [Case(api, f"{HEADER}{prelude}\n# @run\n{b}\n", names=names, inputs=inputs, id=f"{api}:{b}", **kw)
            for b in bodies]


CASES = [
    *run_cases("torch.cuda.memory_allocated", ["out = torch.cuda.memory_allocated()", "out = torch.cuda.memory_allocated(0)",
                                               "out = torch.cuda.memory_allocated(device=None) // 2 ** 20"]),
    *run_cases("torch.cuda.max_memory_allocated", ["out = torch.cuda.max_memory_allocated()",
                                                   "out = torch.cuda.max_memory_allocated('cuda:0') / 1024"]),
    *run_cases("torch.cuda.memory_reserved", ["out = torch.cuda.memory_reserved()"]),
    *run_cases("torch.cuda.max_memory_reserved", ["out = torch.cuda.max_memory_reserved(0)"]),
    *run_cases("torch.cuda.is_initialized", ["out = torch.cuda.is_initialized()",
                                             "out = x * 2 if not torch.cuda.is_initialized() else x"]),
    *run_cases("torch.xpu.max_memory_allocated", ["out = torch.xpu.max_memory_allocated()",
                                                  "out = torch.xpu.max_memory_allocated(0)"]),
    *run_cases("torch.xpu.manual_seed_all", ["out = torch.xpu.manual_seed_all(7)", "torch.xpu.manual_seed_all(seed=7)\nout = x + 1"]),
    *run_cases("torch.xpu.get_rng_state_all", ["out = len(torch.xpu.get_rng_state_all())"]),
    *run_cases(("torch.xpu.get_rng_state_all", "torch.xpu.set_rng_state_all"),
               ["states = torch.xpu.get_rng_state_all()\nout = torch.xpu.set_rng_state_all(states)"]),
    *run_cases("torch.xpu.is_bf16_supported", ["out = torch.xpu.is_bf16_supported()"]),
    *run_cases("torch.mtia.is_available", ["out = torch.mtia.is_available()"]),
    *run_cases("torch.backends.mps.is_built", ["out = torch.backends.mps.is_built()",
                                               "out = x * 2 if torch.backends.mps.is_built() else x"]),
]

# Vendor plugins absent from torch: each call is compared with torch.xpu's on this machine (no XPU either).
PLUGINS = ("npu", "mlu", "musa", "sdaa", "neuron", "hpu")
CALLS = {  # function -> (the call written, torch.xpu's reference call)
    "is_available": ("{ns}.is_available()", "torch.xpu.is_available()"),
    "device_count": ("{ns}.device_count()", "torch.xpu.device_count()"),
    "empty_cache": ("{ns}.empty_cache()", "torch.xpu.empty_cache()"),
    "memory_allocated": ("{ns}.memory_allocated(0)", "torch.xpu.memory_allocated(0)"),
    "max_memory_allocated": ("{ns}.max_memory_allocated()", "torch.xpu.max_memory_allocated()"),
    "manual_seed_all": ("{ns}.manual_seed_all(42)", "torch.xpu.manual_seed_all(42)"),
    "get_rng_state_all": ("{ns}.get_rng_state_all()", "torch.xpu.get_rng_state_all()"),
    "set_rng_state_all": ("{ns}.set_rng_state_all([])", "torch.xpu.set_rng_state_all([])"),
    "is_bf16_supported": ("{ns}.is_bf16_supported()", "torch.xpu.is_bf16_supported()"),
}
NPU_ONLY = ("get_rng_state_all", "set_rng_state_all", "is_bf16_supported")  # not mapped for torch.npu
PLUGIN_CASES = [(p, fn) for p in PLUGINS for fn in CALLS if not (p == "npu" and fn in NPU_ONLY)]
PROVEN_ELSEWHERE = {f"torch.{p}.{fn}": "test_plugin_query (compared with torch.xpu's answer)" for p, fn in PLUGIN_CASES}
PROVEN_ELSEWHERE.update({"torch.cuda.current_device": "test_current_device (torch raises without CUDA)",
                         "torch.npu.current_device": "test_current_device"})


@pytest.mark.parametrize("case", CASES, ids=str)
def test_accelerator_entry(case):
    run_case(case)


def _converted_value(src: str, api: str):
    result = convert_source(f"{HEADER}out = {src}\n")
    assert not result.unsupported and result.apis.get(api), result.code
    ns = {}
    exec(result.code, ns)
    return ns["out"]


@pytest.mark.parametrize("plugin,fn", PLUGIN_CASES, ids=lambda v: str(v))
def test_plugin_query(plugin, fn):
    import torch

    written, reference = CALLS[fn]
    got = _converted_value(written.format(ns=f"torch.{plugin}"), f"torch.{plugin}.{fn}")
    expected = eval(reference, {"torch": torch})
    assert type(got) is type(expected) and got == expected, (got, expected)


@pytest.mark.parametrize("api", ["torch.cuda.current_device", "torch.npu.current_device"])
def test_current_device(api):
    """No accelerator here: torch raises an AssertionError (CUDA not compiled); the conversion raises it too (on a
    GPU or Ascend it gives MindSpore's device_id)."""
    import torch

    with pytest.raises(AssertionError):
        torch.cuda.current_device()
    result = convert_source(f"{HEADER}out = {api}()\n")
    assert not result.unsupported and result.apis.get(api), result.code
    with pytest.raises(AssertionError, match="not compiled with CUDA"):
        exec(result.code, {})


REFUSED = [f"torch.{p}.{fn}" for p in ("mlu", "musa", "sdaa", "neuron", "hpu")
           for fn in ("current_device", "get_device_name", "get_rng_state", "set_rng_state", "mem_get_info",
                      "set_device", "reset_max_memory_allocated", "reset_peak_memory_stats")]
REFUSED += [f"torch.xpu.{fn}" for fn in ("current_device", "get_device_name", "get_rng_state", "set_rng_state",
                                          "mem_get_info", "synchronize", "reset_peak_memory_stats")]


@pytest.mark.parametrize("code,api", [(f"out = {api}()", api) for api in REFUSED])
def test_refused(code, api):
    """torch raises for these without the device; MindSpore has no such backend: marked, with the reason."""
    assert_unsupported(HEADER + code + "\n", api, "backend")


def test_refusals_are_what_torch_raises_without_the_device():
    """The measured part of the refusals' reason: torch.xpu's versions raise on this CPU-only torch."""
    import torch

    for fn in ("current_device", "get_device_name", "get_rng_state", "mem_get_info", "synchronize",
               "reset_peak_memory_stats"):
        with pytest.raises((AssertionError, AttributeError, RuntimeError)):
            getattr(torch.xpu, fn)()


CUDA_REFUSED = ["set_device", "get_device_capability", "get_device_properties", "get_device_name", "mem_get_info",
                "get_rng_state", "reset_max_memory_allocated", "reset_peak_memory_stats"]


@pytest.mark.parametrize("code,api", [(f"out = torch.cuda.{fn}()", f"torch.cuda.{fn}") for fn in CUDA_REFUSED])
def test_cuda_refused(code, api):
    """What torch cannot run without CUDA is marked, with the reason (checked below: torch raises)."""
    import torch

    assert_unsupported(HEADER + code + "\n", api, "needs a CUDA device")
    with pytest.raises((AssertionError, AttributeError, RuntimeError)):
        getattr(torch.cuda, api.rsplit(".", 1)[1])(*([0] if api.endswith("set_device") else []))


@pytest.mark.parametrize("code,api", [("s = torch.get_rng_state()\ntorch.set_rng_state(s)", "torch.get_rng_state"),
                                      ("torch.set_rng_state(state)", "torch.set_rng_state"),
                                      ("s = torch.random.get_rng_state()", "torch.random.get_rng_state"),
                                      ("torch.random.set_rng_state(s)", "torch.random.set_rng_state"),
                                      ("torch.cuda.set_rng_state(s)", "torch.cuda.set_rng_state"),
                                      ("s = torch.cuda.get_rng_state_all()", "torch.cuda.get_rng_state_all"),
                                      ("torch.cuda.set_rng_state_all(s)", "torch.cuda.set_rng_state_all"),
                                      ("s = torch.npu.get_rng_state()", "torch.npu.get_rng_state"),
                                      ("torch.npu.set_rng_state(s)", "torch.npu.set_rng_state")])
def test_rng_state_refused(code, api):
    assert_unsupported(HEADER + code + "\n", api, "does not restore its draws")


def test_mindspore_rng_state_does_not_restore():
    """The measured part of the reason: MindSpore's state round trip does not give the same draws (if a later
    MindSpore restores them, this fails and the entries can become conversions)."""
    import mindspore as ms
    import numpy as np
    from mindspore import ops

    state = ms.get_rng_state()
    a = ops.rand(8).asnumpy()
    ms.set_rng_state(state)
    b = ops.rand(8).asnumpy()
    assert not np.array_equal(a, b)


@pytest.mark.parametrize("code,api", [("torch.mps.empty_cache()", "torch.mps.empty_cache"),
                                      ("out = torch.mps.current_allocated_memory()", "torch.mps.current_allocated_memory")])
def test_mps_refused(code, api):
    """torch raises for these without MPS (checked); MindSpore has no Metal backend: marked, with the reason."""
    import torch

    assert_unsupported(HEADER + code + "\n", api, "no Metal backend")
    with pytest.raises(RuntimeError):
        getattr(torch.mps, api.rsplit(".", 1)[1])()
