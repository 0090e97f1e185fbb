"""Every mapping entry is proven by at least one case that ran both frameworks (see tests/harness.py)."""
import importlib
import pkgutil

import tests.api
from migrate.mapping import load_table


def _proven() -> set[str]:
    proven = set()
    for info in pkgutil.iter_modules(tests.api.__path__):
        if not info.name.startswith("test_"):
            continue
        module = importlib.import_module(f"tests.api.{info.name}")
        for case in getattr(module, "CASES", ()):
            proven.update(case.apis)
        proven.update(getattr(module, "PROVEN_ELSEWHERE", {}))
    return proven


def test_every_entry_has_a_parity_case():
    table = load_table()
    proven = _proven()
    missing = sorted(e.torch for e in table.entries if e.torch not in proven and "*" not in e.unsupported)
    assert not missing, f"{len(missing)} mapping entries have no parity case: {missing}"


def test_known_unsupported_entries_have_a_marker_test():
    """Entries that exist only to explain why an API cannot be converted are tested for their marker."""
    table = load_table()
    proven = _proven()
    modules = [importlib.import_module(f"tests.api.{info.name}") for info in pkgutil.iter_modules(tests.api.__path__)
               if info.name.startswith("test_")]
    marked = {p.values[1] for m in modules for p in _unsupported_params(m)}
    missing = sorted(e.torch for e in table.entries if "*" in e.unsupported and e.torch not in marked | proven)
    assert not missing, missing


def _unsupported_params(module):
    for name in dir(module):
        fn = getattr(module, name)
        for mark in getattr(fn, "pytestmark", ()):
            if mark.name == "parametrize" and "api" in mark.args[0]:
                for values in mark.args[1]:
                    yield type("P", (), {"values": values})
