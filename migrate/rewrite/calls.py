"""Apply one mapping :class:`~migrate.mapping.Entry` to one call (or method call): the table-driven core.

Steps, in order: bind the call's arguments to the torch signature; refuse what the entry marks unsupported;
fill the torch defaults MindSpore does not share; run the entry's named rule; transform values; drop, rename
and inject; emit either a template form or a call of the MindSpore target. Argument nodes are reused, so
comments and line breaks inside the call survive.
"""
from __future__ import annotations

import ast
import re
import string

import libcst as cst

from ..core.cst_util import NOT_LITERAL, Misfit, Unsupported, atom_code, code, expr
from ..mapping import Entry
from .msnames import short_name

__all__ = ["Call", "NOT_LITERAL", "Unsupported", "atom_code", "code", "expr"]


class Call:
    """A call bound to a torch signature; rules read and edit ``bound`` (name -> expression node)."""

    def __init__(self, node: cst.Call, entry: Entry, receiver: cst.BaseExpression | None = None):
        self.node, self.entry, self.receiver = node, entry, receiver
        self.bound: dict[str, cst.BaseExpression] = {}
        self.positional: set[str] = set()  # names that were passed positionally
        self.varargs: list[cst.Arg] = []
        self.kwargs: list[cst.Arg] = []  # `**mapping` arguments, for entries whose rule reads them (entry.kwargs)
        self.forwarded: list[cst.Arg] = []  # `**mapping` arguments of other entries: keys checked when it runs
        self._forward_args: dict[int, cst.Arg] = {}  # id(original ** Arg) -> its converted form
        self.origin: dict[str, cst.Arg] = {}  # name -> the original Arg node (for its comma/whitespace)
        self.replacement: cst.BaseExpression | None = None  # a rule may produce the whole result
        # whether an argument is a device value (the rewriter sets the resolver's judgement; rules ask it)
        self.is_device = lambda node: False
        # the dtype evidence of an argument (a bound name, or "self" for the receiver), read on the source call:
        # FLOATING / INTEGER / BOOL / UNKNOWN (migrate/core/resolve.py); the rewriter sets it, rules ask it
        self.dtype_of = lambda name: "unknown"
        # whether an argument (a bound name) is shown to be a Python int (migrate/rewrite/int_values.py)
        self.is_int = lambda name: False
        if "*" in entry.unsupported:
            raise Unsupported(entry.unsupported["*"])
        self._bind()

    # -- binding -----------------------------------------------------------------------------------
    def _bind(self) -> None:
        entry, names = self.entry, list(self.entry.args)
        star_at = next((i for i, a in enumerate(names) if a.startswith("*")), None)
        pos_names = names if star_at is None else names[:star_at]
        i = 0
        for arg in self.node.args:
            if arg.star == "*" and star_at is not None and i >= star_at and not self.bound.keys() - set(pos_names):
                self.varargs.append(arg)  # f(*items) into a *args signature
                i += 1
                continue
            if arg.star == "**":
                (self.kwargs if entry.kwargs else self.forwarded).append(arg)
                continue
            if arg.star:
                raise Misfit(f"cannot map {arg.star}{code(arg.value)} onto the signature")
            if arg.keyword is None:
                if i < len(pos_names):
                    name = pos_names[i]
                    self.positional.add(name)
                elif star_at is not None:
                    self.varargs.append(arg)
                    i += 1
                    continue
                else:
                    raise Misfit(f"too many positional arguments (signature: {', '.join(names)})")
                i += 1
            else:
                name = entry.aliases.get(arg.keyword.value, arg.keyword.value)
                if name == entry.varargs and not self.varargs:  # torch.zeros(size=(2, 3))
                    self.varargs.append(arg.with_changes(keyword=None, equal=cst.MaybeSentinel.DEFAULT))
                    continue
                if name not in {a.lstrip("*") for a in names} or name == entry.varargs:
                    raise Misfit(f"unknown argument '{name}'")
            if name in self.bound:
                raise Misfit(f"argument '{name}' given twice")
            self.bound[name] = arg.value
            self.origin[name] = arg

    # -- helpers for rules -------------------------------------------------------------------------
    def src(self, name: str) -> str | None:
        return code(self.bound[name]) if name in self.bound else None

    def literal(self, name: str, absent=None):
        """The Python value of argument ``name`` when it is written as a literal; ``NOT_LITERAL`` when it is any
        other expression; ``absent`` when the call does not give it."""
        if name not in self.bound:
            return absent
        try:
            return ast.literal_eval(code(self.bound[name]))
        except (ValueError, SyntaxError):
            return NOT_LITERAL

    def _allowed(self, name: str) -> bool:
        """Argument ``name`` is one of the entry's ``allow`` values: the same source text, the same literal value
        (``dilation=1`` and ``dilation=1.0``... by ``==``), or an integer given per axis (``dilation=(1, 1)``, as
        BNInception writes it) whose every element is an allowed integer."""
        allowed = self.entry.allow.get(name, ())
        if code(self.bound[name]) in allowed:
            return True
        value = self.literal(name)
        if value is NOT_LITERAL:
            return False
        values = []
        for text in allowed:
            try:
                values.append(ast.literal_eval(text))
            except (ValueError, SyntaxError):
                continue
        if any(type(v) is type(value) and v == value for v in values):
            return True
        ints = [v for v in values if type(v) is int]
        return (isinstance(value, (tuple, list)) and len(value) > 0 and bool(ints)
                and all(type(el) is int and el in ints for el in value))

    def set(self, name: str, source: str) -> None:
        self.bound[name] = expr(source)

    # -- the pipeline --------------------------------------------------------------------------------
    def convert(self) -> cst.BaseExpression:
        # a layer whose result depends on the mode (entry.train_mode) is built as MindSpore builds it: the script
        # that builds the model sets the mode (migrate/rewrite/mode.py)
        return self._convert()

    def _legacy_reduction(self) -> None:
        """``size_average=`` / ``reduce=`` (torch's deprecated loss arguments, still accepted: stargan's
        ``F.binary_cross_entropy_with_logits(..., size_average=False)``) as literals: torch's
        ``_Reduction.legacy_get_string`` turns them into ``reduction``, which they override."""
        e = self.entry
        given = [n for n in ("size_average", "reduce") if n in self.bound]
        if not given or "reduction" not in e.args:
            return
        values = [self.literal(n) for n in ("size_average", "reduce")]
        if any(v is not None and not isinstance(v, bool) for v in values):
            return  # not literals: refused by the entry as before
        for n in given:
            self.bound.pop(n)
        if values == [None, None]:
            return  # both None (written out positionally): reduction holds
        size_average, reduce = (True if v is None else v for v in values)
        self.set("reduction", repr("mean" if size_average and reduce else "sum" if reduce else "none"))

    def _convert(self) -> cst.BaseExpression:
        e = self.entry
        self._legacy_reduction()
        for name, reason in e.unsupported.items():
            if name in self.bound and not self._allowed(name):
                if name in e.allow and e.value and e.kind != "method" and self.literal(name) is NOT_LITERAL:
                    # known only when it runs (timm's padding_mode=padding_mode): the entry's torch-signature
                    # callable accepts what is allowed then and raises for the rest
                    return self.node.with_changes(func=expr(e.value))
                raise Unsupported(f"{name}={code(self.bound[name])}: {reason}")
        if self.forwarded and e.value and e.kind != "method":
            # ``nn.Conv2d(a, b, **kwargs)``: the keys are known only when it runs, and the entry has a callable
            # with torch's signature that adapts every argument then (``value``): the call goes to it as written
            return self.node.with_changes(func=expr(e.value))
        for name, default in e.fill.items():
            if name not in self.bound:
                self.bound[name] = expr(self._format(default))
        if e.rule:
            from ..mapping import rules

            rules.RULES[e.rule](self)
            if self.replacement is not None:
                if self.forwarded:  # the rule wrote the whole call from the arguments it saw
                    raise Misfit(f"cannot map **{code(self.forwarded[0].value)} onto the signature")
                return self.replacement
        if self.forwarded:
            self._forward()
        for name, template in e.transform.items():
            if name in self.bound:
                self.bound[name] = _fold(self._format(template))
        for name in e.drop:
            self.bound.pop(name, None)
        for form in e.forms:
            if all(n in self.bound for n in form.when) and not any(n in self.bound for n in form.absent):
                result = expr(_literal_casts(self._format(form.template)))
                if self.forwarded:
                    if not isinstance(result, cst.Call):
                        raise Misfit(f"cannot map **{code(self.forwarded[0].value)} onto the signature")
                    result = result.with_changes(args=[*result.args[:-1], *(
                        [result.args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))]
                        if result.args else []), *self._forward_args.values()])
                return result
        if not e.ms:
            raise Unsupported("no form of this call is supported: " + ", ".join(sorted(self.bound)))
        return self._emit()

    def _forward(self) -> None:
        """``f(a, **options)``: the keys of ``options`` are known only when the converted code runs. Each
        ``**options`` becomes ``**_msmigrate_kwargs(api, options, keep=..., drop=..., unset=..., defaults=...)`` (a
        helper written into the file) that passes on the torch arguments this entry maps one to one (renamed), gives
        the defaults the entry fills (Conv2d's ``has_bias=True``) unless ``options`` holds the key, discards
        those it drops (a device), discards a dtype only when it is the default (None or float32), and raises a
        TypeError naming any other key: one that a fill, a transform, a rule or a refusal depends on, or one the
        call already gives by name."""
        e = self.entry
        reads = _rule_reads(e.rule)
        used = set(e.transform) | set(e.unsupported) | {n for f in e.forms for n in (
            *f.when, *f.absent, *_template_names(f.template))}
        # (with two ** mappings, a default cannot go to one of them: it stays written, and its key is refused)
        filled = {n for n in e.fill if n in self.bound and n not in self.origin} if len(self.forwarded) == 1 else set()
        taken = (set(self.bound) - filled) | set(e.inject)
        keep, drop, unset, defaults = {}, [], [], {}
        for arg in e.args:
            if arg.startswith("*") or arg in used or reads is None or arg in reads:
                continue
            if arg in filled and e.ms and e.rename.get(arg, arg) not in set(e.inject):
                # a default the call did not write (Conv2d's bias=True) may come through **: the helper applies it
                # only when the key is absent
                keep[arg] = e.rename.get(arg, arg)
                defaults[keep[arg]] = code(self.bound.pop(arg))
                continue
            if arg in self.bound:
                continue
            if arg in e.drop:
                (unset if arg == "dtype" else drop).append(arg)
            elif e.ms and e.rename.get(arg, arg) not in taken:
                keep[arg] = e.rename.get(arg, arg)
        options = [f"keep={keep!r}"] if keep else []
        options += [f"drop={tuple(drop)!r}"] if drop else []
        options += [f"unset={tuple(unset)!r}"] if unset else []
        options += ["defaults={" + ", ".join(f"{k!r}: {v}" for k, v in defaults.items()) + "}"] if defaults else []
        for arg in self.forwarded:
            helper = f"_msmigrate_kwargs({e.torch!r}, {code(arg.value)}{''.join(', ' + o for o in options)})"
            self._forward_args[id(arg)] = arg.with_changes(value=expr(helper))

    def _format(self, template: str) -> str:
        values = {n: atom_code(v) for n, v in self.bound.items()}
        if self.receiver is not None:
            values["self"] = atom_code(self.receiver)
        values["*"] = ", ".join(("*" if a.star == "*" else "") + code(a.value) for a in self.varargs)
        try:
            return string.Formatter().vformat(template, (), values)
        except KeyError as exc:  # a template names an argument the call does not give
            raise Unsupported(f"needs argument {exc.args[0]}") from None

    def _emit(self) -> cst.Call:
        e = self.entry
        target = self.entry.ms
        if e.kind == "method":
            func = self.node.func.with_changes(attr=cst.Name(target)) if target != "=" else self.node.func
        else:
            func = expr(short_name(target))
        keep = set(e.args[: e.keep_positional])
        out: list[cst.Arg] = []
        varargs_done = False
        for arg in self.node.args:  # original order, original formatting
            name = next((n for n, a in self.origin.items() if a is arg), None)
            if id(arg) in self._forward_args:
                out.append(self._forward_args[id(arg)])
                continue
            if any(arg is a for a in self.kwargs):  # an entry that takes **options as they are
                out.append(arg)
                continue
            if name is None:  # a vararg (a rule may have repacked them)
                if not varargs_done:
                    out.extend(self.varargs)
                    varargs_done = True
                continue
            if name not in self.bound:  # dropped
                continue
            value = self.bound[name]
            if name in self.positional and name in keep and all(
                isinstance(o, cst.Arg) and o.keyword is None for o in out
            ):
                out.append(arg.with_changes(value=value))
            else:
                out.append(_keyword_arg(arg, e.rename.get(name, name), value))
        for name, value in self.bound.items():  # filled by `fill` or by a rule
            if name not in self.origin:
                out.append(cst.Arg(keyword=cst.Name(e.rename.get(name, name)), value=value,
                                   equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
        for name, source in e.inject.items():
            if not any(a.keyword is not None and a.keyword.value == name for a in out):
                out.append(cst.Arg(keyword=cst.Name(name), value=expr(self._format(source)),
                                   equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))))
        out = [a for a in out if a.keyword is None and not a.star == "**"] + [
            a for a in out if a.keyword is not None or a.star == "**"]  # positional first, as Python requires
        return self.node.with_changes(func=func, args=_commas(self.node.args, out))


def _keyword_arg(arg: cst.Arg, name: str, value: cst.BaseExpression) -> cst.Arg:
    if arg.keyword is not None:
        return arg.with_changes(keyword=cst.Name(name), value=value)
    return arg.with_changes(keyword=cst.Name(name), value=value,
                            equal=cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")))


def _commas(original: tuple[cst.Arg, ...], out: list[cst.Arg]) -> list[cst.Arg]:
    """Give new arguments the separators the call already uses; keep the original last separator last."""
    if not out:
        return out
    last_comma = original[-1].comma if original else cst.MaybeSentinel.DEFAULT
    sep = original[-2].comma if len(original) >= 2 else cst.MaybeSentinel.DEFAULT
    if isinstance(last_comma, cst.Comma) and not isinstance(sep, cst.Comma):
        sep = last_comma  # single-argument call with a trailing comma
    fixed = []
    for i, arg in enumerate(out):
        if i == len(out) - 1:
            fixed.append(arg.with_changes(comma=last_comma))
        elif arg in original and arg is not original[-1]:
            fixed.append(arg)
        else:
            fixed.append(arg.with_changes(comma=sep))
    return fixed


def _template_names(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


_RULE_READS: dict[str, frozenset | None] = {}


def _rule_reads(rule: str | None) -> frozenset | None:
    """The argument names a rule may read (every string literal in its source), or None when it reads them all
    (iterates ``call.bound``): such names are never accepted through ``**``."""
    if rule is None:
        return frozenset()
    if rule not in _RULE_READS:
        import inspect

        from ..mapping import rules

        if getattr(rules.RULES[rule], "reads", None) is not None:  # a rule that declares what it reads
            _RULE_READS[rule] = frozenset(rules.RULES[rule].reads)
            return _RULE_READS[rule]
        source = inspect.getsource(rules.RULES[rule])
        # loop variables over a literal tuple of names (`for flag in ("a", "b")`) read only those literals
        literal_loops = set(re.findall(r"for (\w+) in \((?:\s*[\"']\w+[\"'],?)+\s*\)", source))
        keys = re.findall(r"\b(\w+)\s+(?:not\s+)?in\s+call\.bound\b|call\.(?:bound\[|src\(|literal\(|bound\.get\(|"
                          r"bound\.pop\()\s*(\w+)", source)
        by_variable = {k for pair in keys for k in pair if k} - literal_loops - {"not"}
        if by_variable or re.search(r"bound\.(values|items|keys)\(|for \w+ in call\.bound\b", source):
            _RULE_READS[rule] = None
        else:
            _RULE_READS[rule] = frozenset(re.findall(r"[\"']([A-Za-z_]\w*)[\"']", source))
    return _RULE_READS[rule]


_NUMBER_EXPR = re.compile(r"^[\d\s.+\-*/()eE]+$")


_BOOL_OF_LITERAL = re.compile(r"^bool\((True|False|None|0|1)\)$")


def _fold(source: str) -> cst.BaseExpression:
    """Constant-fold purely numeric transforms (``1 - 0.1`` -> ``0.9``) and ``bool`` of a literal
    (``bool(True)`` -> ``True``) so the output reads like a hand port."""
    m = _BOOL_OF_LITERAL.match(source.strip())
    if m:
        return expr("True" if m.group(1) in ("True", "1") else "False")
    if _NUMBER_EXPR.match(source):
        try:
            value = eval(compile(ast.parse(source, mode="eval"), "<fold>", "eval"), {"__builtins__": {}})
        except Exception:
            return expr(source)
        if isinstance(value, float):
            return expr(repr(round(value, 12)))
        return expr(repr(value))
    return expr(source)


_INT_OF_LITERAL = re.compile(r"(?<![\w.])int\((-?\d+)\)")
_FLOAT_OF_LITERAL = re.compile(r"(?<![\w.])float\((-?\d+)(\.\d*)?\)")


def _literal_casts(text: str) -> str:
    """A template's ``int({start})`` / ``float({maxnorm})`` of a literal argument is the literal (``2``, ``5.0``):
    the cast is there for a tensor or an int the call gives at run time."""
    text = _INT_OF_LITERAL.sub(r"\1", text)
    return _FLOAT_OF_LITERAL.sub(lambda m: m.group(1) + (m.group(2) if m.group(2) and len(m.group(2)) > 1 else ".0"),
                                 text)
