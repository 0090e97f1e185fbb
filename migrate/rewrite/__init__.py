"""Source rewriting: torch code in, MindSpore code out (see ``transformer`` for the passes)."""
from ..core.diagnostics import MARKER
from .transformer import Rewriter

__all__ = ["MARKER", "Rewriter"]
