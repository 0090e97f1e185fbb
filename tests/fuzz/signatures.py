"""The torch signature of a mapping entry, as users can write a call to it.

A mapping entry names its torch API (``torch.sin``, ``Tensor.scatter``, ``torch.nn.BatchNorm1d``) and, for most
entries, the torch argument order in ``args``. ``args`` says nothing about defaults or keyword-only arguments, so
the signature comes from torch itself where torch exposes one: the overload lines at the top of a builtin's
docstring (``add(input, other, *, alpha=1, out=None) -> Tensor``), else ``inspect.signature``; ``args`` is the
fallback. Every overload is kept: the fuzzer picks one per example.
"""
from __future__ import annotations

import functools
import inspect
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Param:
    name: str
    required: bool
    keyword_only: bool = False
    default: str | None = None  # source text of the default, when known
    varargs: bool = False


@dataclass(frozen=True)
class Signature:
    params: tuple[Param, ...]
    source: str  # "doc", "inspect" or "args"

    def names(self) -> list[str]:
        return [p.name for p in self.params]


def resolve(qualname: str):
    """The torch object a mapping entry names (None when this torch has no such name)."""
    import torch

    parts = qualname.split(".")
    obj = torch.Tensor if parts[0] == "Tensor" else torch
    for part in parts[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _split_params(text: str) -> list[str]:
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _parse(text: str, source: str) -> Signature | None:
    params: list[Param] = []
    kw_only = False
    for raw in _split_params(text):
        if raw in ("*", "/"):
            kw_only = kw_only or raw == "*"
            continue
        if raw.startswith("**"):
            continue
        varargs = raw.startswith("*")
        name, _, default = raw.lstrip("*").partition("=")
        name = name.split(":")[0].strip()
        if not name.isidentifier():
            return None
        params.append(Param(name, required=not default and not varargs, keyword_only=kw_only,
                            default=default.strip() or None, varargs=varargs))
        if varargs:
            kw_only = True
    return Signature(tuple(params), source)


def _doc_overloads(obj, name: str) -> list[Signature]:
    doc = getattr(obj, "__doc__", None) or ""
    head = doc[:4000]
    sigs = []
    for m in re.finditer(r"^\s*(?:Tensor\.)?" + re.escape(name) + r"\((.*?)\)\s*(?:->.*)?$", head, re.M):
        sig = _parse(m.group(1), "doc")
        if sig is not None and sig not in sigs:
            sigs.append(sig)
    return sigs


_CACHE: dict[str, tuple] = {}


def signatures(entry) -> tuple[Signature, ...]:
    """Every torch signature of ``entry`` (methods without their receiver)."""
    if entry.torch not in _CACHE:
        _CACHE[entry.torch] = _signatures(entry)
    return _CACHE[entry.torch]


def _signatures(entry) -> tuple[Signature, ...]:
    obj = resolve(entry.torch)
    name = entry.method_name
    sigs: list[Signature] = []
    if obj is not None and entry.kind in ("function", "method"):
        sigs = _doc_overloads(obj, name)
        if entry.kind == "method":  # docstrings of Tensor methods omit the receiver; some keep "input"
            sigs = [Signature(tuple(p for p in s.params if p.name not in ("self",)), s.source) for s in sigs]
    if not sigs and obj is not None:
        target = obj.__init__ if inspect.isclass(obj) else obj
        try:
            sig = inspect.signature(target)
        except (TypeError, ValueError):
            sig = None
        if sig is not None:
            params = []
            for p in sig.parameters.values():
                if p.name == "self" or p.kind is p.VAR_KEYWORD:
                    continue
                params.append(Param(p.name, required=p.default is p.empty and p.kind is not p.VAR_POSITIONAL,
                                    keyword_only=p.kind is p.KEYWORD_ONLY,
                                    default=None if p.default is p.empty else repr(p.default),
                                    varargs=p.kind is p.VAR_POSITIONAL))
            sigs = [Signature(tuple(params), "inspect")]
    if not sigs and entry.args:
        sigs = [Signature(tuple(Param(a.lstrip("*"), required=False, varargs=a.startswith("*"))
                                for a in entry.args), "args")]
    return tuple(sigs)
