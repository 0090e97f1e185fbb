"""Load and validate ``mappings/*.toml`` (see the package docstring for the format)."""
from __future__ import annotations

import functools
import os
import string
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

KINDS = ("class", "function", "method", "attribute", "dtype")


def builtin_mappings_dir() -> Path:
    """The table that comes with msmigrate: the top-level ``mappings/`` folder of a source checkout, which the wheel
    installs as ``migrate/mappings/`` (pyproject.toml: package-dir), so an installed msmigrate finds it too."""
    package = Path(__file__).resolve().parents[1]
    installed, checkout = package / "mappings", package.parent / "mappings"
    return installed if installed.is_dir() else checkout


# MSMIGRATE_MAPPINGS names another folder of tables (the same format) to use instead
MAPPINGS_DIR = Path(os.environ.get("MSMIGRATE_MAPPINGS") or builtin_mappings_dir())
# Files in mappings/ that are not API tables (they have their own loaders).
NON_API_FILES = {"weights.toml"}
TENSOR_NAMES_FILE = "torch_tensor_methods.txt"

_FIELDS = {
    "torch", "kind", "ms", "args", "keep_positional", "rename", "fill", "transform", "inject", "drop",
    "unsupported", "allow", "rule", "forms", "notes", "inplace", "rebind", "helper", "kwargs", "train_mode",
    "value", "attrs", "base", "value_class", "aliases",
}


class MappingError(ValueError):
    """An invalid mapping entry: the message names the file and the entry."""


@dataclass(frozen=True)
class Form:
    """A whole-call template used when all names in ``when`` are bound (first match wins)."""

    template: str
    when: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()


@dataclass(frozen=True)
class Entry:
    torch: str
    kind: str
    ms: str | None = None
    args: tuple[str, ...] = ()
    keep_positional: int = 0
    rename: dict = field(default_factory=dict)
    aliases: dict = field(default_factory=dict)  # another keyword torch accepts for an argument: {input = "A"}
    fill: dict = field(default_factory=dict)
    transform: dict = field(default_factory=dict)
    inject: dict = field(default_factory=dict)
    drop: tuple[str, ...] = ()
    unsupported: dict = field(default_factory=dict)
    allow: dict = field(default_factory=dict)
    rule: str | None = None
    forms: tuple[Form, ...] = ()
    notes: str = ""
    # In-place methods (``x.add_(y)``): "Tensor.add" names the out-of-place entry whose conversion gives the new
    # value; "forms" means this entry's own ms/forms/rule give it. The value is written back with
    # ``recv.copy_(value)`` (keeps aliases and recv's dtype), or by ``recv = value`` when ``rebind`` (shape changes).
    inplace: str | None = None
    rebind: bool = False
    helper: str | None = None  # a generated helper the MindSpore form calls (migrate/helpers/templates/NAME.py)
    # What the torch object becomes when used as a value, not called (``norm_layer=nn.BatchNorm2d``,
    # ``partial(nn.GELU)``): a helper taking torch's arguments (``_msmigrate_value_Dropout``, or the ``base`` class). Without it, an
    # entry whose arguments or defaults need adapting is refused as a value, since its call sites are unknown.
    value: str | None = None
    # What the class becomes as the base class of a user class (``class BatchNormAct2d(nn.BatchNorm2d)``): a helper
    # subclassing the MindSpore cell with torch's constructor signature and attribute names, so the subclass's
    # ``super().__init__(torch arguments)`` and ``self.weight`` work. Without it, an entry whose arguments need
    # adapting is refused as a base.
    base: str | None = None
    # attribute names of an instance that MindSpore's cell names otherwise (Linear.out_features -> Dense.out_channels),
    # renamed where the instance is known (``if isinstance(m, nn.Linear): m.out_features``)
    attrs: dict = field(default_factory=dict)
    kwargs: bool = False  # the entry takes `**mapping` arguments as they are, or its rule reads them (Call.kwargs);
    # otherwise each one goes through the generated _msmigrate_kwargs, which checks its keys when the code runs
    # A layer whose result depends on the training mode (BatchNorm*, Dropout*, recurrent / attention dropout): torch
    # modules start in training mode, MindSpore Cells in inference mode, so a script that builds one sets its mode
    # (migrate/rewrite/mode.py); inside a Cell it is built plainly (the parent's set_train reaches it).
    train_mode: bool = False
    # used as a value (not called), the name is the class ``ms`` itself although its calls are adapted (torch.Tensor:
    # a type in annotations, ``cast(List[Tensor], x)`` and tuples of types; called, the legacy constructor rule)
    value_class: bool = False
    source: str = ""  # "file.toml: entry name", for error messages

    @property
    def varargs(self) -> str | None:
        """The name of the ``*args`` parameter, if the torch signature has one."""
        for a in self.args:
            if a.startswith("*"):
                return a[1:]
        return None

    @property
    def method_name(self) -> str:
        return self.torch.rsplit(".", 1)[-1]

    @property
    def is_identity(self) -> bool:
        """A method that MindSpore tensors accept exactly as torch writes it."""
        return (self.kind == "method" and self.ms == "=" and not self.forms and not self.rule
                and not (self.rename or self.fill or self.transform or self.inject or self.drop or self.unsupported))


@dataclass
class Table:
    entries: list[Entry]
    #: public torch.Tensor attribute names (mappings/torch_tensor_methods.txt): a call of one of these on a value
    #: known to be a tensor is marked when the table lacks it, never left as written
    tensor_method_names: frozenset = frozenset()

    def __post_init__(self) -> None:
        self.by_torch = {e.torch: e for e in self.entries if e.kind != "method"}
        # by method name; where torch.nn.Module and torch.Tensor share a name (``to``), ``methods`` holds the
        # Tensor entry and ``module_methods`` the Module one (the rewriter picks by the receiver's evidence)
        self.methods: dict[str, Entry] = {}
        self.module_methods: dict[str, Entry] = {}
        for e in self.entries:
            if e.kind != "method":
                continue
            if e.torch.startswith("Module."):
                self.module_methods[e.method_name] = e
                self.methods.setdefault(e.method_name, e)
            else:
                self.methods[e.method_name] = e

    def lookup(self, qualname: str) -> Entry | None:
        return self.by_torch.get(qualname)

    def __len__(self) -> int:
        return len(self.entries)


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def _entry(raw: dict, where: str) -> Entry:
    def fail(msg: str) -> MappingError:
        return MappingError(f"{where}: {msg}")

    unknown = set(raw) - _FIELDS
    if unknown:
        raise fail(f"unknown field(s) {sorted(unknown)}")
    for required in ("torch", "kind"):
        if required not in raw:
            raise fail(f"missing '{required}'")
    if raw["kind"] not in KINDS:
        raise fail(f"kind must be one of {KINDS}, not {raw['kind']!r}")
    forms = tuple(
        Form(template=f["template"], when=tuple(f.get("when", ())), absent=tuple(f.get("absent", ())))
        for f in raw.get("forms", ())
    )
    inplace = raw.get("inplace")
    if inplace is not None:
        if raw["kind"] != "method" or not isinstance(inplace, str):
            raise fail("inplace is a string, on method entries only")
        if inplace == "forms" and not (raw.get("ms") or forms or raw.get("rule")):
            raise fail("inplace = \"forms\" needs 'ms', 'forms' or 'rule' giving the new value")
        if inplace != "forms" and not inplace.startswith("Tensor."):
            raise fail("inplace names an out-of-place method entry (\"Tensor.add\") or is \"forms\"")
    if "rebind" in raw and not (inplace and isinstance(raw["rebind"], bool)):
        raise fail("rebind is a bool, on inplace entries only")
    if "train_mode" in raw and not (raw["kind"] == "class" and isinstance(raw["train_mode"], bool)):
        raise fail("train_mode is a bool, on class entries only")
    if not (raw.get("ms") or forms or raw.get("rule") or inplace or "*" in raw.get("unsupported", {})):
        raise fail("needs 'ms', 'forms', 'rule', 'inplace' or unsupported.\"*\" (a known API that cannot be converted)")
    args = tuple(raw.get("args", ()))
    names = {a.lstrip("*") for a in args} | {"self", "*", "subclass"}  # unsupported.subclass: refused as a base
    for table_name in ("rename", "fill", "transform", "unsupported", "allow"):
        for key in raw.get(table_name, {}):
            if key not in names:
                raise fail(f"{table_name}.{key} is not in args {list(args)}")
    for key in raw.get("drop", ()):
        if key not in names:
            raise fail(f"drop '{key}' is not in args {list(args)}")
    for key, tmpl in raw.get("transform", {}).items():
        if _placeholders(tmpl) - names:
            raise fail(f"transform.{key} uses unknown names {_placeholders(tmpl) - names}")
    for form in forms:
        bad = _placeholders(form.template) - names
        if bad:
            raise fail(f"template {form.template!r} uses unknown names {sorted(bad)}")
    kp = raw.get("keep_positional", 0)
    if not isinstance(kp, int) or kp < 0 or kp > len(args):
        raise fail("keep_positional must be an int between 0 and len(args)")
    for field_name in ("value", "base"):
        if raw.get(field_name) is not None:
            from .. import helpers

            if raw[field_name] not in helpers.by_defined_name():
                raise fail(f"{field_name} {raw[field_name]!r} is not defined by any helper template")
    if raw.get("helper") is not None:
        from .. import helpers

        if raw["helper"] not in helpers.registry():
            raise fail(f"unknown helper {raw['helper']!r} (known: {sorted(helpers.registry())})")
    if raw.get("rule"):
        from . import rules

        if raw["rule"] not in rules.RULES:
            raise fail(f"unknown rule {raw['rule']!r} (known: {sorted(rules.RULES)})")
    return Entry(
        torch=raw["torch"], kind=raw["kind"], ms=raw.get("ms"), args=args, keep_positional=kp,
        rename=dict(raw.get("rename", {})), fill=dict(raw.get("fill", {})), aliases=dict(raw.get("aliases", {})),
        transform=dict(raw.get("transform", {})), inject=dict(raw.get("inject", {})),
        drop=tuple(raw.get("drop", ())), unsupported=dict(raw.get("unsupported", {})),
        allow={k: tuple(v) for k, v in raw.get("allow", {}).items()}, rule=raw.get("rule"),
        forms=forms, notes=raw.get("notes", ""),
        inplace=inplace, rebind=raw.get("rebind", False), helper=raw.get("helper"), value=raw.get("value"), base=raw.get("base"),
        attrs=dict(raw.get("attrs", {})),
        kwargs=bool(raw.get("kwargs", False)), train_mode=raw.get("train_mode", False),
        value_class=bool(raw.get("value_class", False)), source=where,
    )


def load_files(paths) -> Table:
    entries: list[Entry] = []
    seen: dict[str, str] = {}
    for path in sorted(Path(p) for p in paths):
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except tomllib.TOMLDecodeError as exc:
            raise MappingError(f"{path.name}: invalid TOML: {exc}") from None
        for i, raw in enumerate(data.get("api", [])):
            where = f"{path.name}: entry {i + 1} ({raw.get('torch', '?')})"
            entry = _entry(raw, where)
            key = entry.torch
            if key in seen:
                raise MappingError(f"{where}: duplicate of {seen[key]}")
            seen[key] = where
            entries.append(entry)
    methods = {e.torch for e in entries if e.kind == "method"}
    for e in entries:
        if e.inplace not in (None, "forms") and e.inplace not in methods:
            raise MappingError(f"{e.source}: inplace target {e.inplace!r} is not a method entry")
        if e.inplace not in (None, "forms") and e.inplace.rsplit(".", 1)[-1] == e.method_name:
            raise MappingError(f"{e.source}: inplace target is the entry itself")
    return Table(entries)


@functools.lru_cache(maxsize=None)
def load_table(directory: str | None = None) -> Table:
    """The validated table from every ``*.toml`` in ``directory`` (default: msmigrate's own mappings/)."""
    d = Path(directory) if directory else MAPPINGS_DIR
    files = [p for p in d.glob("*.toml") if p.name not in NON_API_FILES]
    if not files:
        raise MappingError(f"{d}: no mapping files found")
    table = load_files(files)
    names = d / TENSOR_NAMES_FILE
    if names.is_file():
        table.tensor_method_names = frozenset(
            ln.strip() for ln in names.read_text(encoding="utf-8").splitlines() if ln.strip() and ln[0] != "#")
    return table
