"""Load user objects named ``FILE.py:NAME`` (a class or factory) and build them.

This imports the user's file, so it runs the user's code: only the ``parity`` and ``weights``
commands do it, and their --help says so.
"""
from __future__ import annotations

import importlib.util
import itertools
import json
import os
import sys

_counter = itertools.count()


class LoadError(ValueError):
    """A FILE:NAME that cannot be loaded; the message is one line for the user."""


def split_spec(spec: str) -> tuple[str, str]:
    path, sep, name = spec.rpartition(":")
    if not sep or not path or not name:
        raise LoadError(f"{spec!r}: expected FILE.py:NAME (a class or factory in that file)")
    return path, name


def import_file(path: str, module_name: str | None = None):
    """Import a Python file as a fresh module (its directory is put on sys.path for its imports)."""
    if not os.path.isfile(path):
        raise LoadError(f"{path}: no such file")
    module_name = module_name or f"_msmigrate_user_{next(_counter)}_{os.path.splitext(os.path.basename(path))[0]}"
    directory = os.path.dirname(os.path.abspath(path))
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    added = directory not in sys.path
    if added:
        sys.path.insert(0, directory)
    sys.modules[module_name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        raise LoadError(f"{path}:{exc.lineno}: syntax error: {exc.msg}") from None
    except Exception as exc:  # noqa: BLE001 - user code may raise anything
        sys.modules.pop(module_name, None)
        raise LoadError(f"{path}: importing it raised {type(exc).__name__}: {_first_line(exc)}") from None
    finally:
        if added and directory in sys.path:
            sys.path.remove(directory)
    return module


def load_object(spec: str, kwargs: dict | None = None, module=None):
    """``FILE.py:NAME`` -> ``NAME(**kwargs)`` (a class is instantiated, a factory called)."""
    path, name = split_spec(spec)
    module = module or import_file(path)
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
