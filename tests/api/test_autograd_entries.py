"""Autograd / AMP / distributed APIs (or their arguments) that are known and not converted: each is marked with its reason."""
import pytest

from tests.harness import assert_unsupported


@pytest.mark.parametrize("code,api,reason", [
    ("g = torch.autograd.grad(y.sum(), x, create_graph=True)[0]", "torch.autograd.grad",
     "not computed from the inputs"),
    ("print(torch.autograd.grad(y.sum(), x))", "torch.autograd.grad", "converted only as a statement"),
    ("class F(torch.autograd.Function):\n    pass", "torch.autograd.Function", "only forward(ctx, ...)"),
    ("with torch.autocast('cpu'):\n    y = model(x)", "torch.autocast", "bfloat16"),
    ("with torch.autocast('cuda', dtype=torch.bfloat16):\n    y = model(x)", "torch.autocast", "bfloat16"),
    ("with torch.autocast('cuda'):\n    y = model(x)", "torch.autocast", "only converted around the loss"),
    ("scaler = torch.cuda.amp.GradScaler(backoff_factor=0.25)", "torch.cuda.amp.GradScaler", "1 / growth_factor"),
    ("scaler = torch.amp.GradScaler('cuda', enabled=False)", "torch.amp.GradScaler", "enabled"),
    ("import torch.distributed as dist\ndist.init_process_group('gloo', init_method='tcp://10.0.0.1:23456')",
     "torch.distributed.init_process_group", "msrun"),
    ("model = torch.nn.parallel.DistributedDataParallel(model, process_group=pg)",
     "torch.nn.parallel.DistributedDataParallel", "process_group"),
])
def test_marked(code, api, reason):
    assert_unsupported("import torch\n" + code + "\n", api, reason)


_I = "tests/autograd/test_init.py"
PROVEN_ELSEWHERE = {
    **{f"torch.nn.init.{n}": f"{_I}::test_apply_fn_kaiming_conv_fan_out_zeros_bias_constant"
       for n in ("kaiming_normal_", "kaiming_uniform_", "zeros_", "constant_")},
    **{f"torch.nn.init.{n}": f"{_I}::test_named_parameters_loop_normal_uniform_trunc_and_modules_loop"
       for n in ("normal_", "uniform_", "trunc_normal_", "xavier_normal_")},
    **{f"torch.nn.init.{n}": f"{_I}::test_xavier_uniform_orthogonal_eye_dirac_ones"
       for n in ("xavier_uniform_", "orthogonal_", "dirac_", "ones_", "eye_")},
    **{f"torch.nn.init.{n}": f"{_I}::test_deprecated_aliases_without_underscore"
       for n in ("kaiming_normal", "kaiming_uniform", "xavier_uniform", "xavier_normal", "normal", "uniform",
                 "constant")},
    "Module.register_full_backward_hook":
        "tests/realidioms/test_research_idioms.py::test_a_full_backward_hook_scales_the_input_gradient_as_in_torch",
    "Module.register_parameter": "tests/realidioms/test_research_gan_lm_idioms.py::"
                                 "test_equalized_learning_rate_hook_over_a_conv_built_from_star_args",
    "Module.apply": f"{_I}::test_apply_fn_kaiming_conv_fan_out_zeros_bias_constant",
    "Module.named_parameters": f"{_I}::test_named_parameters_loop_normal_uniform_trunc_and_modules_loop",
    "Module.modules": f"{_I}::test_named_parameters_loop_normal_uniform_trunc_and_modules_loop",
    "Module.named_modules": "tests/autograd/test_init.py::test_named_modules",
    "torch.autograd.Function": "tests/autograd/test_autograd.py::test_function_ste_and_gradient_scaling_train_like_torch",
}
