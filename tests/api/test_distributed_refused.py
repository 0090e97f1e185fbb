"""torch.distributed's sharded training (mappings/distributed_refused.toml): every name is marked unsupported with
its reason where the code uses it (a call, an attribute or a base class)."""
import pytest

from migrate.mapping import load_table
from tests.api.cases import HEADER
from tests.harness import assert_unsupported

REFUSED = [e.torch for e in load_table().entries if e.torch.startswith("torch.distributed.") and "*" in e.unsupported
           and " not converted" in e.unsupported["*"]]


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
    """Each refused name is one torch 2.13 defines (no entry for a name that is not torch's)."""
    import importlib

    missing = []
    for name in REFUSED:
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
