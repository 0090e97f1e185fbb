"""Families of torch names with no honest MindSpore conversion (mappings/distributed_refused.toml: FSDP, distributed
checkpoints, DTensor, pipelining; mappings/facilities_refused.toml: operator registration, dispatcher internals, ONNX
export, the profiler, torchvision's compiled operators, eager quantization, torch.fx, pruning): every name is marked
unsupported with its reason where code uses it, and each is a name torch defines."""
import importlib
import tomllib
from pathlib import Path

import pytest

from tests.api.cases import HEADER
from tests.harness import assert_unsupported

MAPPINGS = Path(__file__).resolve().parents[2] / "mappings"
REFUSED = [e["torch"] for f in ("distributed_refused.toml", "facilities_refused.toml")
           for e in tomllib.loads((MAPPINGS / f).read_text())["api"]]


def _module(name):
    """The module to import for a name: the dotted prefix before its first capitalised part (a class)."""
    parts = name.split(".")
    upto = next((i for i, p in enumerate(parts) if p.lstrip("_")[:1].isupper()), len(parts) - 1)
    return ".".join(parts[:upto])


@pytest.mark.parametrize("code,api", [(f"import {_module(a)}\nout = {a}", a) for a in REFUSED],
                         ids=lambda v: "" if "\n" in v else v)
def test_refused(code, api):
    assert_unsupported(HEADER + code + "\n", api, "not converted")


def test_refused_names_exist_in_torch():
    """Each refused name is one torch 2.13 defines (no entry for a name that is not torch's); torch.ops.torchvision
    and torch.ops.image are registered by torchvision, which is not installed here."""
    missing = []
    for name in REFUSED:
        if name.startswith(("torch.ops.torchvision", "torch.ops.image")):
            continue
        parts = name.split(".")
        for i in range(len(parts) - 1, 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            try:
                for p in parts[i:]:
                    obj = getattr(obj, p)
            except AttributeError:
                missing.append(name)
            break
    assert not missing, missing
