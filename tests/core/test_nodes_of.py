"""cst_util.nodes_of finds the nodes a libcst visitor finds (the mode pass relies on it instead of a visit)."""
from pathlib import Path

import libcst as cst

from migrate.core.cst_util import nodes_of

SOURCE = (Path(__file__).resolve().parents[2] / "migrate" / "rewrite" / "mode.py").read_text(encoding="utf-8") + '''
x = f"{g(1)}" + [h(i) for i in k(2)][0](lambda: m(3))
@deco(n())
class A(B(c())):
    def f(self, a=d(), *, b=e()):
        return (yield q())
'''


def _visited(node, kind, skip=()):
    found = []

    class V(cst.CSTVisitor):
        def on_visit(self, n):
            if isinstance(n, kind):
                found.append(n)
            return not (skip and n is not node and isinstance(n, skip))

    node.visit(V())
    return found


def test_nodes_of_finds_what_a_visitor_finds():
    module = cst.parse_module(SOURCE)
    for kind in (cst.Call, cst.ClassDef, (cst.Assign, cst.Return), cst.Name):
        assert {id(n) for n in nodes_of(module, kind)} == {id(n) for n in _visited(module, kind)}
    skip = (cst.FunctionDef, cst.ClassDef)
    inner = nodes_of(module, cst.Call, skip=skip)
    assert {id(n) for n in inner} == {id(n) for n in _visited(module, cst.Call, skip)}
    assert len(inner) < len(nodes_of(module, cst.Call))  # skip can fail: calls inside defs are left out
