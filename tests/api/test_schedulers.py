"""More learning-rate schedulers (mappings/schedulers.toml): the learning rate after each scheduler step is what
torch's scheduler gives (an SGD optimizer over one Parameter; no gradients needed to step a scheduler)."""
import pytest

from tests.api.cases import HEADER
from tests.harness import Case, run_case

SETUP = "p = nn.Parameter(torch.zeros(2))\nopt = torch.optim.SGD([p], lr=0.1, momentum=0.9)\n"
RUN = "lrs = []\nfor i in range({n}):\n    sched.step({arg})\n    lrs.append(float(opt.param_groups[0]['lr']))\n"
TOL = dict(rtol=1e-5, atol=1e-7, why_tolerance="MindSpore keeps the learning rate as a float32 Parameter")


def sched_cases(api, ctors, n=8, arg="", extra=""):
    return [Case(api, f"{HEADER}{SETUP}{extra}sched = {c}\n# @run\n{RUN.format(n=n, arg=arg)}", names=("lrs",), id=f"{api}:{c}", **TOL)
            for c in ctors]


L = "torch.optim.lr_scheduler"
CASES = [
    *sched_cases(f"{L}.ConstantLR", [f"{L}.ConstantLR(opt)", f"{L}.ConstantLR(opt, factor=0.5, total_iters=3)",
                                     f"{L}.ConstantLR(opt, 0.25, 2)"]),
    *sched_cases(f"{L}.LinearLR", [f"{L}.LinearLR(opt)", f"{L}.LinearLR(opt, start_factor=0.5, total_iters=4)",
                                   f"{L}.LinearLR(opt, 1.0, 0.1, 5)"]),
    *sched_cases(f"{L}.PolynomialLR", [f"{L}.PolynomialLR(opt)", f"{L}.PolynomialLR(opt, total_iters=4, power=2.0)",
                                       f"{L}.PolynomialLR(opt, 6, 0.5)"]),
    *sched_cases(f"{L}.MultiplicativeLR", [f"{L}.MultiplicativeLR(opt, lambda e: 0.9)", f"{L}.MultiplicativeLR(opt, lr_lambda=f)"],
                 extra="def f(epoch):\n    return 0.5 if epoch % 2 else 1.0\n"),
    *sched_cases(f"{L}.CosineAnnealingWarmRestarts", [f"{L}.CosineAnnealingWarmRestarts(opt, 3)",
                                                      f"{L}.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2, eta_min=0.01)"], n=10),
    *sched_cases(f"{L}.ReduceLROnPlateau", [f"{L}.ReduceLROnPlateau(opt)", f"{L}.ReduceLROnPlateau(opt, patience=1, factor=0.5)",
                                            f"{L}.ReduceLROnPlateau(opt, 'max', 0.2, 0, cooldown=1)"], n=8, arg="1.0"),
    *sched_cases(f"{L}.SequentialLR", [f"{L}.SequentialLR(opt, [{L}.ConstantLR(opt, 0.5, 2), {L}.ExponentialLR(opt, 0.9)], [2])",
                                       f"{L}.SequentialLR(opt, schedulers=[a, b], milestones=[3])"],
                 extra=f"a = {L}.LinearLR(opt, 0.2, 1.0, 3)\nb = {L}.StepLR(opt, 2)\n"),
    *sched_cases(f"{L}.CyclicLR", [f"{L}.CyclicLR(opt, 0.01, 0.1, step_size_up=3)",
                                   f"{L}.CyclicLR(opt, base_lr=0.01, max_lr=0.1, step_size_up=2, mode='triangular2')",
                                   f"{L}.CyclicLR(opt, 0.01, 0.1, 2, 3, mode='exp_range', gamma=0.9)"], n=12),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_scheduler(case):
    run_case(case)
