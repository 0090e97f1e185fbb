"""Load user objects named ``TARGET:NAME`` (a class or factory) and build them, each side in its own namespace.

TARGET is a file (``nets/unet.py``) or a dotted module (``nets.unet``, found on ``--path`` roots, then the
current directory). A file inside a package (a folder with ``__init__.py``) is imported under its package name
from the package's root, so its relative imports work; a plain file is imported with its folder as the root, so
its sibling imports (``from networks import X``) work.

Each side's imports are kept apart: a :class:`Namespace` ("torch", "ms") imports with its roots on ``sys.path``,
hiding same-named modules from elsewhere; the torch side then takes the modules that came from its roots out of
``sys.modules`` (keeping them for its own later loads: the loss sees the model's ``networks``); MindSpore sides
leave theirs registered, because ``ms.jit`` resolves a Cell's module through ``sys.modules``. So when both sides import a local module of the same name
(``networks``, ``modules``), the MindSpore side gets its own, never torch's from ``sys.modules``. Third-party
packages (torch, mindspore, numpy) are shared. A user module imported lazily at run time (an ``import`` inside
``forward``) is not covered.

This imports the user's files, so it runs the user's code: only the ``parity`` and ``weights`` commands do it,
and their --help says so.
"""
from __future__ import annotations

import importlib
import json
import os
import sys

_NAMESPACES: dict = {}


class LoadError(ValueError):
    """A TARGET:NAME that cannot be loaded; the message is one line for the user."""


def split_spec(spec: str) -> tuple[str, str]:
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name or (len(path) == 1 and path.isalpha() and os.name == "nt"):
        raise LoadError(f"{spec!r}: expected FILE.py:NAME or package.module:NAME (a class or factory)")
    return path, name


def is_file_target(target: str) -> bool:
    return target.endswith(".py") or os.sep in target or "/" in target or os.path.isfile(target)


def locate(target: str, paths=()) -> tuple[str, str, str]:
    """-> (root, dotted module name, file) for a file or dotted TARGET."""
    if is_file_target(target):
        if not os.path.isfile(target):
            raise LoadError(f"{target}: no such file")
        file = os.path.abspath(target)
        root = os.path.dirname(file)
        stem = os.path.splitext(os.path.basename(file))[0]
        parts = [] if stem == "__init__" else [stem]
        while os.path.isfile(os.path.join(root, "__init__.py")):
            parts.insert(0, os.path.basename(root))
            root = os.path.dirname(root)
        if not parts:
            raise LoadError(f"{target}: name a module of the package, not its __init__.py")
        return root, ".".join(parts), file
    if not all(p.isidentifier() for p in target.split(".")):
        raise LoadError(f"{target!r}: not a file and not a dotted module name")
    for root in [*paths, os.getcwd()]:
        base = os.path.join(os.path.abspath(root), *target.split("."))
        for file in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(file):
                return os.path.abspath(root), target, file
    where = ", ".join(paths) if paths else "the current directory"
    raise LoadError(f"{target}: no such module under {where} (give its root with --path DIR)")


class Namespace:
    """One side's user modules (see the module docstring)."""

    def __init__(self, name: str, paths=()):
        self.name = name
        self.paths = [os.path.abspath(p) for p in paths]
        self.modules: dict = {}
        # MindSpore sides leave their modules in sys.modules (ms.jit needs them); the torch side takes its own out,
        # so the MindSpore side can still never receive torch's module of the same name
        self.keep = name.startswith("ms")

    def import_module(self, root: str, dotted: str, file: str):
        roots = [os.path.abspath(root)] + [p for p in self.paths if p != os.path.abspath(root)]
        saved_path = list(sys.path)
        hidden = {}
        top = dotted.split(".")[0]
        # a module of the same top-level name from elsewhere (another side, or any other root) must not answer
        for k in list(sys.modules):
            if (k == top or k.startswith(top + ".")) and not self._ours(sys.modules[k], roots):
                hidden[k] = sys.modules.pop(k)
        before = dict(sys.modules)
        # this side's earlier modules from the same roots answer again (the loss sees the model's `networks`);
        # one of the same name from another root (torch/model.py, then mindspore/model.py) does not
        sys.modules.update({k: v for k, v in self.modules.items() if self._ours(v, roots)})
        sys.path[:0] = roots
        try:
            return importlib.import_module(dotted)
        except SyntaxError as exc:
            raise LoadError(f"{exc.filename or file}:{exc.lineno}: syntax error: {exc.msg}") from None
        except LoadError:
            raise
        except Exception as exc:  # noqa: BLE001 - user code may raise anything
            raise LoadError(f"{file}: importing it raised {type(exc).__name__}: {_first_line(exc)}") from None
        finally:
            sys.path[:] = saved_path
            for k, mod in list(sys.modules.items()):
                if before.get(k) is not mod and (self._ours(mod, roots) or k == dotted):
                    self.modules[k] = mod
            for k in self.modules:
                if self.keep:  # ms.jit resolves a Cell's module through sys.modules: the MindSpore side stays
                    sys.modules[k] = self.modules[k]
                elif k in before and before[k] is not self.modules[k] and not self._ours(before[k], roots):
                    sys.modules[k] = before[k]
                else:
                    sys.modules.pop(k, None)
            sys.modules.update({k: v for k, v in hidden.items() if k not in sys.modules})

    @staticmethod
    def _ours(module, roots) -> bool:
        if getattr(module, "__name__", "").split(".")[0] == __name__.split(".")[0]:
            return False  # msmigrate itself is shared, wherever it lives
        f = getattr(module, "__file__", None)
        if not f:
            return False
        f = os.path.abspath(f)
        return any(f.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def namespace(side: str, paths=()) -> Namespace:
    ns = _NAMESPACES.get(side)
    if ns is None or ns.paths != [os.path.abspath(p) for p in paths]:
        ns = _NAMESPACES[side] = Namespace(side, paths)
    return ns


def import_file(path: str, module_name: str | None = None, side: str = "torch", paths=()):
    """Import a Python file (or dotted module) in ``side``'s namespace; see the module docstring."""
    root, dotted, file = locate(path, paths)
    return namespace(side, paths).import_module(root, dotted, file)


def load_object(spec: str, kwargs: dict | None = None, module=None, side: str = "torch", paths=()):
    """``TARGET:NAME`` -> ``NAME(**kwargs)`` (a class is instantiated, a factory called)."""
    path, name = split_spec(spec)
    module = module or import_file(path, side=side, paths=paths)
    if not hasattr(module, name):
        raise LoadError(f"{path}: no class or function named {name!r}")
    target = getattr(module, name)
    if not callable(target):
        raise LoadError(f"{path}:{name} is not a class or a function")
    try:
        return target(**(kwargs or {}))
    except Exception as exc:  # noqa: BLE001
        raise LoadError(f"{path}:{name}(**{kwargs or {}}) raised {type(exc).__name__}: {_first_line(exc)}") from None


def parse_args_json(text: str | None) -> dict:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(f"--args is not valid JSON: {exc.msg} at column {exc.colno}") from None
    if not isinstance(value, dict):
        raise LoadError("--args must be a JSON object of keyword arguments, e.g. '{\"channels\": 3}'")
    return value


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0][:200] if lines else ""
