"""Layer-by-layer parity between a torch model and its MindSpore port.

Modules: ``loading`` (FILE:NAME objects), ``hooks`` (record every layer on both sides),
``metrics`` (error measures), ``runner`` (``compare``: one run's phases in order) with ``state`` (the run's
state), ``recording`` (forward / backward, alignment by module path), ``routing`` (kinks), ``reference`` (float64
tier), ``steps`` (optimizer steps) and ``verdict`` (tables, first divergence), ``lines`` / ``kinks`` (source lines,
functional kinks), ``repro`` (standalone reproductions),
``report`` (the report object, JSON and terminal table), ``html`` (self-contained parity.html).

``compare`` and ``assert_parity`` are imported lazily so that importing this package costs nothing.
"""
from __future__ import annotations

__all__ = ["compare", "assert_parity", "ParityReport"]


def __getattr__(name):
    if name in ("compare", "assert_parity"):
        from . import runner

        return getattr(runner, name)
    if name == "ParityReport":
        from .report import ParityReport

        return ParityReport
    raise AttributeError(name)
