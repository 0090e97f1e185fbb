"""Line numbers of a few nodes, at the cost of one code generation.

libcst's PositionProvider records a range for every node (about 8 kLOC/s here, as slow as a parse). The report
only needs the start line of the nodes it lists, so this walks the code generator once, counting newlines in the
emitted tokens and remembering the line where each wanted node begins.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst
from libcst._nodes.internal import CodegenState


@dataclass(frozen=False)
class _LineCounter(CodegenState):
    wanted: set = field(default_factory=set)
    found: dict = field(default_factory=dict)
    line: int = 1

    def add_indent_tokens(self) -> None:  # indentation holds no newline
        pass

    def add_token(self, value: str) -> None:
        self.line += value.count("\n")

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.wanted and id(node) not in self.found:
            self.found[id(node)] = self.line

    def after_codegen(self, node: cst.CSTNode) -> None:
        pass


def start_lines(module: cst.Module, nodes) -> dict[int, int]:
    """``id(node) -> 1-based start line`` for the given nodes of ``module`` (the tree they belong to)."""
    state = _LineCounter(default_indent=module.default_indent, default_newline=module.default_newline,
                         wanted={id(n) for n in nodes})
    module._codegen(state)
    return state.found
