"""Small helper functions that converted code defines for itself (converted code never imports msmigrate).

A mapping template or a pass writes a call of ``_msm_<name>(...)``; :func:`insert` adds the definition of every
helper the converted module calls, once, after its imports. The text lives in the one helper registry
(migrate/helpers/templates/inline/NAME.py). Each helper states the torch behaviour it keeps.
"""
from __future__ import annotations

import re

import libcst as cst

from .. import helpers as _registry

# name -> source, from the one helper registry (migrate/helpers/templates/inline/NAME.py)
HELPERS = _registry.inline_helpers()
_CALL = re.compile(r"\b(_msm_\w+)\(")


def _helper_apis() -> set[str]:
    """Table entries whose conversion can call a helper (their transform, forms or rule text names one)."""
    from ..mapping import load_table

    out = set()
    for e in load_table().entries:
        text = " ".join([*e.transform.values(), *(f.template for f in e.forms)])
        if "_msm_" in text:
            out.add(e.torch)
    # in-place methods converted through their out-of-place entry (x.pow_(y) -> x.copy_(_msm_pow(x, y)))
    out |= {e.torch for e in load_table().entries if e.inplace in out}
    return out


_APIS: set[str] | None = None
# what the operators pass writes with a helper (_msm_pow, _msm_inplace)
PASS_USES = ("operator **", *(f"operator {s}= {how}" for s in ("+", "-", "*", "/", "//", "%", "**", "&", "|", "^")
                               for how in ("on a shared tensor", "keeps the dtype")))


def used_apis(rewriter) -> bool:
    """Whether the conversion used an entry that calls a helper (checked before generating any text)."""
    global _APIS
    if _APIS is None:
        _APIS = _helper_apis()
    return (getattr(rewriter, "msm_helpers", False) or any(rewriter.apis.get(api) for api in _APIS)
            or any(rewriter.apis.get(op) for op in PASS_USES))


def may_need(source: str) -> bool:
    """A cheap text test on the torch source: a name of an API whose conversion calls a helper."""
    return any(word in source for word in ("cat", "stack", "concat"))


def _definitions(module: cst.Module, code: str) -> list:
    """The statements defining the helpers ``code`` (the text of ``module``) calls and does not define."""
    used = [name for name in dict.fromkeys(_CALL.findall(code)) if name in HELPERS]
    for name in used:  # the helpers a helper calls (the list grows while it is walked)
        used.extend(n for n in _CALL.findall(HELPERS[name]) if n in HELPERS and n not in used)
    defined = {s.name.value for s in module.body if isinstance(s, cst.FunctionDef)}
    newline = module.default_newline  # also inside the helpers' docstrings (CRLF files stay CRLF)
    defs = [stmt for n in used if n not in defined
            for stmt in cst.parse_module(HELPERS[n].lstrip("\n").replace("\n", newline)).body]
    return [d.with_changes(leading_lines=[cst.EmptyLine()] * (1 if i == 0 else 2)) if isinstance(d, cst.FunctionDef)
            else d for i, d in enumerate(defs)]


def insert(module: cst.Module, after) -> cst.Module:
    """Define the helpers ``module`` calls; ``after(body)`` gives the index to insert them at."""
    defs = _definitions(module, module.code)
    if not defs:
        return module
    body = list(module.body)
    at = after(body)
    if at < len(body) and not body[at].leading_lines:  # the file's own code starts two lines below the helpers
        body[at] = body[at].with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()])
    body[at:at] = defs
    return module.with_changes(body=body)


def insert_code(module: cst.Module, code: str, after) -> str:
    """``insert(module, after).code``, given ``code == module.code``, without generating the whole module again:
    the helpers' text goes in after the text of the statements before ``after(body)``."""
    defs = _definitions(module, code)
    if not defs:
        return code
    body = list(module.body)
    at = after(body)
    head = module.with_changes(body=body[:at], footer=(), has_trailing_newline=True)
    prefix = head.code if (at or module.header) else ""
    if not code.startswith(prefix) or (at == len(body) and module.footer):
        return insert(module, after).code  # not a plain prefix (never seen): the slow way
    text = module.with_changes(header=(), body=defs, footer=(), has_trailing_newline=True).code
    rest = code[len(prefix):]
    if at < len(body) and not body[at].leading_lines:
        rest = module.default_newline * 2 + rest
    return prefix + text + rest
