"""Property: in generated programs mixing torch code with look-alike objects, look-alike lines come out byte for
byte, torch lines are converted or marked, and the output parses, is idempotent and imports nothing that shadows
MindSpore (see lookalikes.py). `make test` runs a few hundred programs; benchmarks/lookalikes.py runs >= 10,000.
"""
from __future__ import annotations

import ast
import os
import re

from hypothesis import HealthCheck, given, settings

from migrate import convert_source
from migrate.core.diagnostics import MARKER
from migrate.core.imports import MS_OBJECTS
from tests.core.lookalikes import program

EXAMPLES = int(os.environ.get("MSMIGRATE_LOOKALIKE_EXAMPLES", "300"))


def problems(src: str) -> list[str]:
    result = convert_source(src, filename="generated.py")
    if result.errors:
        return [e.message for e in result.errors]
    out = result.code
    found = []
    try:
        tree = ast.parse(out)
    except SyntaxError as exc:
        return [f"output does not parse: {exc}"]
    if "__msmigrate" in out:
        found.append("internal name left")
    nl = "\r\n" if "\r\n" in src else "\n"
    out_lines = out.split(nl)
    for line in src.split(nl):
        if line.endswith("# lookalike") and line not in out_lines:
            found.append(f"look-alike line changed: {line!r}")
    for line in out_lines:
        if "# shadowed " in line:
            name = line.rsplit("# shadowed ", 1)[1]
            code = line.split("#")[0]
            # the receiver stays (a tensor-method form may move it into a MindSpore call: `ops.softmax(F, ...)`)
            if "lambda" in code:
                code = code.split(":", 1)[1]
            elif " for " in code:
                code = code.split(" for ")[0]
            else:
                code = code.split("return", 1)[1]
            if not re.search(rf"(?<![\w.]){name}(?!\w)", code):
                found.append(f"shadowed name resolved as torch: {line!r}")
    for i, line in enumerate(out_lines):
        if line.endswith("# torch") and ("torch." in line or "F." in line):
            above = out_lines[i - 1] if i else ""
            if not above.lstrip().startswith(MARKER):
                found.append(f"torch line neither converted nor marked: {line!r}")
    for stmt in tree.body:
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names = [a.asname or a.name.split(".")[0] for a in stmt.names]
            src_mod = getattr(stmt, "module", None) or stmt.names[0].name
            if src_mod.split(".")[0] == "torch" and set(names) & set(MS_OBJECTS):
                found.append(f"torch import shadows MindSpore: {ast.unparse(stmt)}")
    if convert_source(out, filename="generated.py").code != out:
        found.append("not idempotent")
    return found


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(program())
def test_lookalikes_untouched_torch_converted_or_marked(src):
    assert problems(src) == [], src


def test_forward_argument_annotated_as_a_container_is_not_a_tensor():
    """torchvision's ``def forward(self, features: dict[str, Tensor])`` then ``features.values()``: a dict method, not
    a missing Tensor method; an argument annotated Tensor (or not at all) stays a tensor in forward."""
    src = ("import torch.nn as nn\nfrom torch import Tensor\nclass M(nn.Module):\n"
           "    def forward(self, x: dict[str, Tensor], names: List[str], y: Tensor, z):\n"
           "        return list(x.values()), names.index('a'), y.flip(0), z.flip(1)\n")
    result = convert_source(src)
    assert not result.unsupported, result.unsupported
    assert "list(x.values())" in result.code and "names.index('a')" in result.code
    assert "y.flip((0,))" in result.code and "z.flip((1,))" in result.code
