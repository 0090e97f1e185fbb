"""Source rewriting: torch code in, MindSpore code out (see ``transformer`` for the passes)."""
from .transformer import MARKER, Rewriter

__all__ = ["MARKER", "Rewriter"]
