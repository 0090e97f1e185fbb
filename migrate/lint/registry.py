"""The list of lint rules, in report order."""
from __future__ import annotations

from .core import Rule
from .rules.amp_frozen_conv import AmpFrozenConv
from .rules.construct_self import ConstructSelf
from .rules.dataset_seed import DatasetSeed
from .rules.dynamic_shape import DynamicShape
from .rules.list_accumulation import ListAccumulation
from .rules.ms_function import MsFunction
from .rules.print_debug import PrintInGraph
from .rules.reversed_list import ReversedList
from .rules.tensor_control_flow import TensorControlFlow

RULES: tuple[type[Rule], ...] = (
    ListAccumulation,
    TensorControlFlow,
    PrintInGraph,
    MsFunction,
    DatasetSeed,
    AmpFrozenConv,
    ConstructSelf,
    DynamicShape,
    ReversedList,
)


def fixable_rules() -> tuple[type[Rule], ...]:
    """Rules that carry a safe rewrite for ``--fix``."""
    return tuple(r for r in RULES if r.fix is not None)
