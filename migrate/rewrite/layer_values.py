"""Layers used as values (``norm_layer=nn.BatchNorm2d``, ``partial(nn.BatchNorm2d, eps=1e-3)``,
``norm = nn.InstanceNorm2d if instance else nn.BatchNorm2d``): which of them can be the MindSpore class itself.

A torch layer class used as a value is called later with arguments the converter does not see where it writes the
value, so the table's ``value`` (an adapter with torch's signature, ``_MsmigrateBatchNorm2d``) takes them when the
code runs. A MindSpore engineer writes ``norm = nn.BatchNorm2d`` (mindcv's ResNet) wherever the calls pass arguments
both classes read alike. This pass follows the value through the file to every call of it and asks the table: when
the table converts each call ``nn.BatchNorm2d(<the call's arguments>)`` to ``nn.BatchNorm2d(<the same arguments>)``
(``BatchNorm2d(c)``: torch's momentum 0.1 is MindSpore's default 0.9, so nothing changes), the value is the MindSpore
class itself; otherwise the adapter stays.

How the value is followed (by name, over the whole file; conservative where it cannot see):
- it flows through a conditional expression (either branch) and ``functools.partial(cls, ...)`` (whose arguments join
  every call), into an assignment's targets (a name, or an attribute's name: ``self._norm_layer``, matched only as an
  attribute), a parameter's
  default, or an argument of a call of a function or class defined in this file (by keyword, or by position onto the
  parameter there);
- each use of a name it flowed into is a call (a call site), an assignment or argument passing it on (followed), or a
  comparison with None; any other use (``norm_layer.__name__``, returned, put in a list, passed to something imported,
  a module-level name other modules import, ``**kwargs`` at a call) keeps the adapter;
- an instance built by a call site (``self.bn1 = norm_layer(c)``) whose torch attributes the file reads by that name
  (``self.bn1.weight``: the adapter's alias of ``gamma``) keeps the adapter.

CAVEATS: names are matched by spelling, not by scope, so an unrelated use of the same name keeps the adapter (never
the other way round); a call reached only through ``getattr`` / a container is not seen.
"""
from __future__ import annotations

import libcst as cst

from ..core.cst_util import Misfit, Unsupported, code, dotted
from .msnames import short_name

# torch attributes an adapter keeps under torch's name (its aliases and the arguments it stores); read off an
# instance a call site built, they need the adapter
_TORCH_ATTRS = frozenset({
    "weight", "bias", "running_mean", "running_var", "momentum", "num_batches_tracked", "affine",
    "track_running_stats", "eps", "normalized_shape", "elementwise_affine", "in_channels", "out_channels",
    "kernel_size", "stride", "padding", "dilation", "groups", "padding_mode", "in_features", "out_features",
    "num_features", "num_groups", "num_channels", "p", "inplace", "negative_slope", "approximate"})
_PARTIAL = ("functools.partial", "partial")


class _Parents(cst.CSTVisitor):
    def __init__(self):
        self.parent: dict[int, cst.CSTNode] = {}
        self.stack: list[cst.CSTNode] = []
        self.names: list[cst.Name] = []
        self.attrs: list[cst.Attribute] = []
        self.defs: dict[str, cst.CSTNode] = {}

    def on_visit(self, node):
        if self.stack:
            self.parent[id(node)] = self.stack[-1]
        self.stack.append(node)
        if isinstance(node, cst.Name):
            self.names.append(node)
        elif isinstance(node, cst.Attribute):
            self.attrs.append(node)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self.defs.setdefault(node.name.value, node)
        return True

    def on_leave(self, node):
        self.stack.pop()


def plain_values(module: cst.Module, resolver, table, canonical, reexported=frozenset()) -> set[int]:
    """Ids of the torch layer classes used as values in ``module`` that can be written as the MindSpore class."""
    p = _Parents()
    module.visit(p)
    par = p.parent
    candidates = []  # (node, entry)
    for node in [*p.names, *p.attrs]:
        up = par.get(id(node))
        if isinstance(up, cst.Attribute) and up.value is node:
            continue  # an inner part of a chain
        if isinstance(up, cst.Call) and up.func is node:
            continue  # called: not a value
        q = resolver.qualify(node)
        if not q or not q.startswith("torch"):
            continue
        entry = table.lookup(canonical(q))
        if entry is None or entry.kind != "class" or not entry.value or not entry.ms or entry.ms == "=":
            continue
        candidates.append((node, entry))
    if not candidates:
        return set()
    top_level = {id(s) for s in module.body}

    def local_params(callee) -> list[str] | None:
        """The parameter names of a function or class defined in this file that ``callee`` calls."""
        name = callee.value if isinstance(callee, cst.Name) else None
        d = p.defs.get(name) if name else None
        if isinstance(d, cst.ClassDef):
            init = next((s for s in d.body.body if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
            return [q.name.value for q in init.params.params][1:] if init else None
        if isinstance(d, cst.FunctionDef):
            return [q.name.value for q in d.params.params]
        return None

    def flow(expr_node) -> tuple[set[str], list, bool]:
        """Where a value expression goes: (receiving names, [(call args prefix: partial's args)], escaped)."""
        node, extra = expr_node, []
        while True:
            up = par.get(id(node))
            if isinstance(up, cst.IfExp) and node in (up.body, up.orelse):
                node = up
                continue
            if isinstance(up, cst.Arg) and up.keyword is None and not up.star:
                call = par.get(id(up))
                if (isinstance(call, cst.Call) and call.args and call.args[0] is up
                        and (resolver.qualify(call.func) in _PARTIAL or dotted(call.func) in _PARTIAL)):
                    extra = list(call.args[1:]) + extra
                    node = call
                    continue
            break
        names, escaped = _targets(node)
        return names, extra, escaped

    def _targets(node) -> tuple[set[str], bool]:
        up = par.get(id(node))
        if isinstance(up, (cst.Assign, cst.AnnAssign)) and up.value is node:
            targets = [t.target for t in up.targets] if isinstance(up, cst.Assign) else [up.target]
            out = set()
            for t in targets:
                if isinstance(t, cst.Name):
                    stmt = par.get(id(up))
                    if id(stmt) in top_level and ({t.value, "*"} & reexported):
                        return set(), True  # other modules import it
                    out.add(t.value)
                elif isinstance(t, cst.Attribute):
                    out.add("." + t.attr.value)
                else:
                    return set(), True
            return out, False
        if isinstance(up, cst.Param) and up.default is node:
            return {up.name.value}, False
        if isinstance(up, cst.Arg) and not up.star:
            call = par.get(id(up))
            if isinstance(call, cst.Call):
                params = local_params(call.func)
                if params is None:
                    return set(), True
                if up.keyword is not None:
                    return {up.keyword.value}, False
                i = next(k for k, a in enumerate(call.args) if a is up)
                if all(a.keyword is None and not a.star for a in call.args[:i + 1]) and i < len(params):
                    return {params[i]}, False
        return set(), True

    # follow every candidate's names to a fixed point, collecting the call sites
    uses_by_name: dict[str, list] = {}
    for n in p.names:
        uses_by_name.setdefault(n.value, []).append(n)
    for a in p.attrs:
        uses_by_name.setdefault("." + a.attr.value, []).append(a)

    def sites_of(names: set[str]) -> tuple[list[cst.Call], bool]:
        seen, todo, sites = set(), list(names), []
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            for use in uses_by_name.get(name, []):
                node = use.attr if isinstance(use, cst.Attribute) else use
                owner = use
                up = par.get(id(owner))
                if isinstance(use, cst.Name):
                    if isinstance(up, cst.Attribute) and up.attr is use:
                        continue  # seen as the Attribute
                    if isinstance(up, cst.Attribute) and up.value is use:
                        return [], True  # norm_layer.__name__
                if isinstance(up, cst.Param) and up.name is node:
                    continue  # the parameter itself
                if isinstance(up, (cst.Assign, cst.AnnAssign, cst.AssignTarget)):
                    if isinstance(up, cst.AssignTarget) or getattr(up, "target", None) is owner:
                        continue  # a store
                if isinstance(up, cst.Arg) and up.keyword is node:
                    continue  # the keyword of an argument, not a use
                if isinstance(up, cst.Call) and up.func is owner:
                    sites.append(up)
                    continue
                if isinstance(up, cst.Comparison) and len(up.comparisons) == 1 and any(
                        isinstance(x, cst.Name) and x.value == "None" for x in (up.left, up.comparisons[0].comparator)):
                    continue
                more, escaped = _targets(owner)
                if escaped:
                    return [], True
                todo += more
        return sites, False

    out, by_names = set(), {}
    for node, entry in candidates:
        names, extra, escaped = flow(node)
        if escaped or not names:
            continue
        key = frozenset(names)
        if key not in by_names:
            by_names[key] = sites_of(names)
        sites, escaped = by_names[key]
        if escaped or not all(_agrees(entry, extra, s) for s in sites):
            continue
        if _reads_torch_attrs(sites, par, uses_by_name):
            continue
        out.add(id(node))
    return out


def _agrees(entry, extra: list, site: cst.Call) -> bool:
    """The table converts ``cls(<partial's args>, <the site's args>)`` to the MindSpore class with the same args."""
    from .calls import Call

    pos = [a for a in (*extra, *site.args) if a.keyword is None]
    kws = [a for a in (*extra, *site.args) if a.keyword is not None]
    args = pos + kws
    if any(a.star for a in args) or len({a.keyword.value for a in kws}) != len(kws):
        return False
    args = [a.with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")) if i < len(args) - 1
                           else cst.MaybeSentinel.DEFAULT) for i, a in enumerate(args)]
    node = cst.Call(func=cst.Name("_cls"), args=args)
    try:
        result = Call(node, entry).convert()
    except (Unsupported, Misfit):
        return False
    except Exception:  # a rule that needs what only a real call site has: the adapter stays
        return False
    want = cst.Call(func=cst.parse_expression(short_name(entry.ms)), args=args)
    return code(result) == code(want)


def _reads_torch_attrs(sites, par, uses_by_name) -> bool:
    """An instance a call site built, stored under a name, whose torch attributes the file reads by that name."""
    for s in sites:
        up = par.get(id(s))
        if isinstance(up, (cst.Assign, cst.AnnAssign)) and up.value is s:
            targets = [t.target for t in up.targets] if isinstance(up, cst.Assign) else [up.target]
            for t in targets:
                name = (t.value if isinstance(t, cst.Name) else "." + t.attr.value if isinstance(t, cst.Attribute)
                        else None)
                for use in uses_by_name.get(name, []) if name else []:
                    owner = par.get(id(use))
                    if isinstance(owner, cst.Attribute) and owner.value is use and owner.attr.value in _TORCH_ATTRS:
                        return True
                    if isinstance(use, cst.Attribute):
                        above = par.get(id(use))
                        if isinstance(above, cst.Attribute) and above.value is use and above.attr.value in _TORCH_ATTRS:
                            return True
    return False
