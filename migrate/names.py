"""torch's public re-export paths folded into the names the mapping table uses (``canonical``).

Name resolution itself (scopes, imports, tensor-ness) lives in ``migrate.core.resolve``.
"""
from __future__ import annotations

import re

from .core.cst_util import dotted

__all__ = ["canonical", "dotted"]


def canonical(qualname: str) -> str:
    """Fold torch's public re-export paths into the names the table uses."""
    m = _NN_MODULES.match(qualname)
    if m:  # torch.nn.modules[.batchnorm].BatchNorm2d: every layer class is re-exported as torch.nn.<Class>
        return "torch.nn." + m.group(1)
    for long, short in _CANONICAL:
        if qualname.startswith(long):
            return short + qualname[len(long):]
    return qualname


_NN_MODULES = re.compile(r"torch\.nn\.modules\.(?:[a-z_]+\.)?([A-Z]\w*)$")
_CANONICAL = (
    ("torch.nn.modules.module.", "torch.nn."),
    ("torch.nn.modules.conv.", "torch.nn."),
    ("torch.nn.modules.container.", "torch.nn."),
    ("torch.nn.parameter.", "torch.nn."),
    ("torch.functional.", "torch."),
    # torch.utils.data re-exports its submodules' public classes and functions (sampler.BatchSampler,
    # dataloader.default_collate, dataset.ConcatDataset), torch.amp its grad_scaler's GradScaler
    ("torch.utils.data.sampler.", "torch.utils.data."),
    ("torch.utils.data.dataloader.", "torch.utils.data."),
    ("torch.utils.data.dataset.", "torch.utils.data."),
    ("torch.amp.grad_scaler.", "torch.amp."),
)
