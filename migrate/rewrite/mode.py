"""The mode pass: torch's train mode at construction, set where the script builds a model (issue 24).

A torch module is in training mode once built; a MindSpore Cell in inference mode (Dropout is the identity,
BatchNorm uses its moving statistics), and ``Cell.set_train(mode)`` sets the mode of the cell and every sub-cell.
So the mode is set where a script builds a model, never inside a Cell: a model file reads like a MindSpore model
file, and the script's one ``set_train(True)`` reaches every layer.

THE RULE. Script code is a module's top level and every function or method that is not inside a Cell class (a
converted ``nn.Module`` subclass), except a module-level function the file's Cells call (a layer builder such as
``conv_bn(c_in, c_out)``: what it builds joins a Cell) and a factory (a module-level function that returns a Cell it
builds, ``def resnet18(**kw): return ResNet(...)``: library code, its caller sets the mode); a Cell class's own code
is never touched (its parent's mode reaches it). In script code, a *mode-dependent construction* is a call of

* a user Cell class (defined in the file, or a sibling module's ``nn.Module`` subclass: it may hold BatchNorm or
  Dropout, or read ``self.training``),
* a MindSpore layer whose torch twin's result depends on the mode (the table's ``train_mode = true`` entries:
  BatchNorm, Dropout, RNNs with dropout, MultiheadAttention, TransformerEncoderLayer...),
* a container (SequentialCell, CellList, CellDict) holding one of those,
* a factory of this file or of a sibling module (``model = resnet18()``).

Such a construction assigned to a name or an attribute (``model = UNet()``, ``self.net = nn.SequentialCell(...)``)
gets ``model.set_train(True)  # torch modules start in training mode`` on the next line, unless the first later
statement of the same block that mentions the target sets its mode itself (``model.set_train(False)`` converted from
``model.eval()``; ``model.to(device)`` lines in between are skipped). Anywhere else (``return UNet()`` in a factory,
``Twice()(x)``, an argument) it becomes ``UNet().set_train(True)`` (``set_train`` returns the cell), unless it is an
argument of another mode-dependent construction (that one sets the mode of the whole tree) or its mode is set right
there (``Net().set_train(False)``). The training pass runs after this one and adds its own line before a training loop
only where the scope still sets no mode (a model that is a function's parameter).

CAVEATS: a construction the pass cannot see as one (a factory imported from a package, ``getattr(models, name)()``)
gets no line: parity, the api harness and the benchmarks set both frameworks' modes explicitly. A Cell whose
``__init__`` puts a child in eval mode (a frozen backbone) is switched whole by the script's ``set_train(True)``, as
torch's ``model.train()`` would do; torch's construction alone would have left that child in eval mode.
"""
from __future__ import annotations

import libcst as cst

from ..core import emit
from ..core.cst_util import STATEMENT_TYPES, dotted, nodes_of

COMMENT = "# torch modules start in training mode"
CELL_BASES = {"nn.Cell", "ms.nn.Cell", "mindspore.nn.Cell", "Cell"}
CONTAINERS = {"SequentialCell", "CellList", "CellDict", "Sequential", "ModuleList", "ModuleDict"}
# mode-dependent torch layers beyond the table's train_mode entries (their MindSpore classes keep the name)
MODE_LAYERS = {"Dropout1d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout", "SyncBatchNorm", "InstanceNorm1d",
               "InstanceNorm2d", "InstanceNorm3d", "TransformerEncoder", "TransformerDecoder",
               "TransformerDecoderLayer", "Transformer"}
# calls that return the module itself (``model = Net().to(device)``): the construction is inside
_CHAIN = {"to", "cuda", "cpu", "float", "double", "half", "to_float", "bfloat16"}


def applies(ctx) -> bool:
    return ctx.resolver.uses_torch()


def run(module: cst.Module, ctx) -> cst.Module:
    return module.visit(_Mode(ctx))


def _mode_layers(table) -> frozenset[str]:
    """The MindSpore class names (last part) of the table's mode-dependent layers, and the helper Cells (emitted
    into the converted file, ``_MsmigrateInstanceNorm``) whose construct reads ``self.training``."""
    from ..helpers import registry

    names = set(MODE_LAYERS)
    for helper in registry().values():
        if "self.training" in helper.source:
            names.update(d for d in helper.defines if d.startswith("_Msmigrate"))
    for e in table.entries:
        if e.train_mode:
            names.add(e.torch.rsplit(".", 1)[-1])
            if e.ms:
                names.add(e.ms.rsplit(".", 1)[-1])
    return frozenset(names)


class _Mode(cst.CSTTransformer):
    def __init__(self, ctx):
        super().__init__()
        self.ctx = ctx
        self.layers = _mode_layers(ctx.table)
        self.cells = set(ctx.resolver.local_module_classes)
        self.script: list[bool] = [True]  # per scope: script code (True) or a Cell class's code
        self.handled: set[int] = set()  # constructions whose mode is set by a line or by a caller's set_train
        self.inside: list[int] = []  # depth of mode-dependent constructions being walked (arguments of one)

    # -- what is a mode-dependent construction ----------------------------------------------------------
    def _cell_class(self, func: cst.BaseExpression) -> bool:
        name = dotted(func)
        if name is None:
            return False
        if "." not in name:
            if name in self.cells or (name.startswith("_Msmigrate") and name in self.layers):
                return True
            b = self.ctx.resolver.scopes[0].names.get(name)
            if b is not None and (b.qualname or "").startswith(("torch.", "mindspore.")):
                return b.qualname.rsplit(".", 1)[1] in self.layers  # ``from torch.nn import BatchNorm2d``
            return b is not None and b.module_class
        root, last = name.split(".", 1)[0], name.rsplit(".", 1)[1]
        if root in ("nn", "ms", "mindspore", "torch") or name.startswith("torch.nn."):
            return last in self.layers
        return False

    def _container(self, node: cst.Call) -> bool:
        last = (dotted(node.func) or "").rsplit(".", 1)[-1]
        if last not in CONTAINERS:
            return False
        return any(isinstance(n, cst.Call) and self._construction(n) for a in node.args
                   for n in _calls(a.value))

    def _construction(self, node: cst.Call) -> bool:
        return (self._cell_class(node.func) or self._container(node)
                or (isinstance(node.func, cst.Name) and node.func.value in getattr(self, "factories", ())))

    def _needs_mode(self, node: cst.Call) -> bool:
        """A construction whose mode the script sets (a Cell that sets its own, _own_mode, is left alone)."""
        name = dotted(node.func) or ""
        return self._construction(node) and name not in getattr(self, "self_moded", ()) and name not in getattr(
            self, "modeless", ())

    # -- Cells that set a child's mode in __init__ (a frozen backbone) --------------------------------------
    def visit_Module(self, node: cst.Module) -> None:
        self.self_moded = {stmt.name.value for stmt in node.body if isinstance(stmt, cst.ClassDef)
                           and _init_sets_child_mode(stmt) is not None}
        self.modeless = self._modeless_classes(node)
        for name, b in self.ctx.resolver.scopes[0].names.items():  # a sibling module's modeless Cell classes
            if b.module_class and b.origin and b.qualname and _modeless_in(self, b.origin,
                                                                          b.qualname.rsplit(".", 1)[-1]):
                self.modeless.add(name)
        # module-level functions that this file's Cells call while being built (``conv_bn(c_in, c_out)``): layer
        # builders, whose result takes the mode of the Cell it joins, so they are Cell code
        cell_classes = [c for c in node.body if isinstance(c, cst.ClassDef) and (
            c.name.value in self.cells or any((dotted(b.value) or "") in CELL_BASES for b in c.bases))]
        self.layer_builders = {call.func.value for c in cell_classes for call in _calls(c)
                               if isinstance(call.func, cst.Name)} & {
            f.name.value for f in node.body if isinstance(f, cst.FunctionDef)}
        # factories (``def resnet18(**kw): return ResNet(...)``): library code, like the Cells they build; the script
        # that calls one sets the mode of what it returns (here, or in a file importing it: resolve.Project)
        self.factories = {f.name.value for f in node.body if isinstance(f, cst.FunctionDef) and self._factory(f)}
        self.factories |= {name for name, b in self.ctx.resolver.scopes[0].names.items() if b.factory}

    def _factory(self, fn: cst.FunctionDef) -> bool:
        built = set()
        returns = []
        # not inside nested functions and classes
        for n in nodes_of(fn, (cst.Assign, cst.Return), skip=(cst.FunctionDef, cst.ClassDef)):
            if isinstance(n, cst.Return):
                returns.append(n.value)
            elif len(n.targets) == 1 and isinstance(n.targets[0].target, cst.Name) and isinstance(
                    _unchain(n.value), cst.Call) and self._construction(_unchain(n.value)):
                built.add(n.targets[0].target.value)
        return any((isinstance(_unchain(v), cst.Call) and self._construction(_unchain(v))) or (
            isinstance(v, cst.Name) and v.value in built) for v in returns if v is not None)

    def _modeless_classes(self, module: cst.Module, torch_source: bool = False) -> set[str]:
        """Cell classes of a file whose result cannot depend on the mode (a loss of BCE + Dice, a U-Net without
        BatchNorm or Dropout): a script building one needs no line. Conservative, by a fixpoint over the file's
        classes: the class text names no mode-dependent layer and no ``training``; its bases are Cell (``nn.Module``
        in a torch sibling) or such classes; every call it makes at construction is a builtin, a framework function
        or class that is not mode-dependent (``nn.Conv2d``, ``torch.tensor``), one of its own methods or such a
        class (a layer passed in, ``norm_layer(c)``, ``getattr(nn, name)()``, a factory makes it dependent). What
        runs while it is built is ``__init__`` and the methods it calls; construct, forward and bprop compute
        (``self.conv(x)``, ``x.sum()``) and build nothing."""
        import re

        bases = CELL_BASES | ({"nn.Module", "torch.nn.Module", "Module"} if torch_source else set())
        words = re.compile(r"\b(" + "|".join(sorted(self.layers | {"training"})) + r")\b")
        classes = {c.name.value: c for c in module.body if isinstance(c, cst.ClassDef)}
        modeless = {n for n, c in classes.items() if not words.search(_code(c)) and all(
            (dotted(b.value) or "") in bases or (dotted(b.value) or "") in classes for b in c.bases)}
        changed = True
        while changed:
            changed = False
            for name in sorted(modeless):
                c = classes[name]
                ok = all((dotted(b.value) or "") in bases or (dotted(b.value) or "") in modeless for b in c.bases)
                methods = {f.name.value for f in c.body.body if isinstance(f, cst.FunctionDef)} if isinstance(
                    c.body, cst.IndentedBlock) else set()
                defs = {f.name.value: f for f in (c.body.body if isinstance(c.body, cst.IndentedBlock) else ())
                        if isinstance(f, cst.FunctionDef)}
                # what runs while it is built: __init__ and the methods __init__ calls (``self._make_layer(...)``)
                building, todo = set(), ["__init__"]
                while todo:  # and the methods those call, transitively
                    m = todo.pop()
                    if m in building or m not in defs:
                        continue
                    building.add(m)
                    todo += [(dotted(k.func) or "").split(".", 1)[-1] for k in _calls(defs[m])
                             if (dotted(k.func) or "").startswith("self.")]
                for fname in sorted(building & set(defs)):
                    f = defs[fname]
                    for call in _calls(f):
                        if not _builds_nothing(call, modeless, methods):
                            ok = False
                if not ok:
                    modeless.discard(name)
                    changed = True
        return modeless

    def _own_mode(self, cls: cst.ClassDef) -> cst.ClassDef:
        """``self.backbone.set_train(False)`` in a Cell's ``__init__``: torch's children start in training mode and
        that one is then switched; a script's ``set_train(True)`` would switch it back. So this class sets its own
        mode right before that statement (children built later in ``__init__`` get their own line) and scripts
        building it add nothing."""
        found = _init_sets_child_mode(cls)
        if found is None:
            return cls
        fn, at = found
        body, out = list(fn.body.body), []
        for i, stmt in enumerate(body):
            if i == at:
                out.append(emit.statement(f"self.set_train(True)  {COMMENT}\n"))
            out.append(stmt)
            if i > at and isinstance(stmt, cst.SimpleStatementLine):
                target, value = _assigned(stmt)
                if target and target.startswith("self.") and isinstance(value, cst.Call) and self._construction(value):
                    out.append(emit.statement(f"{target}.set_train(True)  {COMMENT}\n"))
        self.ctx.ok("torch.nn.Module.train (implicit)")
        new_fn = fn.with_changes(body=fn.body.with_changes(body=out))
        return cls.with_changes(body=cls.body.with_changes(body=[new_fn if s is fn else s for s in cls.body.body]))

    # -- scopes ----------------------------------------------------------------------------------------
    def visit_ClassDef(self, node: cst.ClassDef) -> bool:
        self._note_cell(node)
        self.script.append(self.script[-1] and node.name.value not in self.cells)
        return self._enter(node)

    def _note_cell(self, node: cst.ClassDef) -> None:
        if any((dotted(b.value) or "") in CELL_BASES or (dotted(b.value) or "") in self.cells
               for b in node.bases) or node.name.value in self.cells:
            self.cells.add(node.name.value)

    def _enter(self, node) -> bool:
        """Whether the walk enters ``node`` (just pushed on ``script``): library code (a Cell, a layer builder, a
        factory) has no construction that needs a line, so it is not entered (a walk rebuilds every node it enters,
        and the passes after this one skip unchanged statements by identity); its classes still count as Cells."""
        if self.script[-1]:
            return True
        inner = nodes_of(node.body, cst.ClassDef)
        if any(c.name.value in self.self_moded for c in inner):
            return True  # leave_ClassDef rewrites such a class wherever it is
        for c in inner:
            self._note_cell(c)
        return False

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        builder = len(self.script) == 1 and node.name.value in (
            getattr(self, "layer_builders", set()) | getattr(self, "factories", set()))
        self.script.append(self.script[-1] and not builder)
        return self._enter(node)

    def leave_FunctionDef(self, original, updated):
        self.script.pop()
        return updated

    def leave_ClassDef(self, original, updated):
        self.script.pop()
        if updated.name.value in self.cells and updated.name.value in self.self_moded:
            return self._own_mode(updated)
        return updated

    # -- constructions used as values --------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute) and node.func.attr.value in ("set_train", "train", "eval"):
            inner = _unchain(node.func.value)
            self.handled.add(id(inner))
        if self.script[-1] and self._construction(node):
            self.inside.append(id(node))
            if not self._needs_mode(node):
                self.handled.add(id(node))

    def leave_Call(self, original, updated):
        if not self.inside or self.inside[-1] != id(original):
            return updated
        self.inside.pop()
        if id(original) in self.handled or self.inside:
            return updated  # its mode is set here or by the construction it is an argument of
        self.ctx.ok("torch.nn.Module.train (implicit)")
        return cst.Call(func=cst.Attribute(value=updated, attr=cst.Name("set_train")),
                        args=[cst.Arg(cst.Name("True"))])

    # -- constructions assigned to a target: a line after them -------------------------------------------
    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> None:
        if not self.script[-1]:
            return
        target, value = _assigned(node)
        if target is not None and isinstance(value, cst.Call) and self._construction(value):
            self.handled.add(id(value))

    def leave_IndentedBlock(self, original, updated):
        if not self.script[-1]:
            return updated
        body = self._block(list(updated.body))
        return updated if body is None else updated.with_changes(body=body)

    def leave_Module(self, original, updated):
        body = self._block(list(updated.body))
        return updated if body is None else updated.with_changes(body=body)

    def on_visit(self, node: cst.CSTNode) -> bool:
        enter = super().on_visit(node)
        if enter and self.script[-1] and type(node) in STATEMENT_TYPES and self._inert(node):
            return False  # not rebuilt: the passes after this one skip unchanged statements by identity
        return enter

    def _inert(self, stmt) -> bool:
        """Script code with nothing for this pass inside: no class (it may be a Cell) and no construction."""
        found = nodes_of(stmt, (cst.Call, cst.ClassDef))
        return not any(isinstance(n, cst.ClassDef) or self._construction(n) for n in found)

    def on_leave(self, original, updated):
        result = super().on_leave(original, updated)
        # a statement rebuilt around an inserted line still stands for the torch statement it came from
        if result is not original and isinstance(result, cst.CSTNode) and original in self.ctx.origins:
            self.ctx.origins[result] = self.ctx.origins[original]
        return result

    def _block(self, body: list) -> list | None:
        """``body`` with a set_train line after each construction that needs one; None when none does."""
        out = []
        for i, stmt in enumerate(body):
            out.append(stmt)
            if not isinstance(stmt, cst.SimpleStatementLine):
                continue
            target, value = _assigned(stmt)
            if target is not None and isinstance(value, cst.Call) and self._construction(value) and not \
                    self._needs_mode(value):
                self.ctx.facts.mode_settled[id(stmt)] = target  # the training pass adds no line for it either
            if target is None or not (isinstance(value, cst.Call) and self._needs_mode(value)):
                continue
            if _first_mention_sets_mode(target, body[i + 1:]):
                continue
            self.ctx.ok("torch.nn.Module.train (implicit)")
            out.append(emit.statement(f"{target}.set_train(True)  {COMMENT}\n"))
        return out if len(out) != len(body) else None


_SIBLINGS: dict[tuple, set[str] | None] = {}


def _modeless_in(mode: "_Mode", path: str, name: str) -> bool:
    """Whether class ``name`` of the sibling torch file ``path`` is modeless (read once per file version)."""
    import os

    try:
        key = (path, os.stat(path).st_mtime_ns)
    except OSError:
        return False
    if key not in _SIBLINGS:
        try:
            with open(path, encoding="utf-8") as f:
                _SIBLINGS[key] = mode._modeless_classes(cst.parse_module(f.read()), torch_source=True)
        except (OSError, UnicodeDecodeError, cst.ParserSyntaxError):
            _SIBLINGS[key] = None
    found = _SIBLINGS[key]
    return found is not None and name in found


_BUILTINS = {"super", "range", "len", "int", "float", "bool", "str", "list", "tuple", "dict", "set", "zip",
             "enumerate", "isinstance", "hasattr", "getattr", "setattr", "min", "max", "sum", "abs", "print", "reversed",
             "sorted", "round", "any", "all", "map", "filter", "iter", "next", "type", "repr", "format"}
_FRAMEWORK_ROOTS = {"nn", "ops", "ms", "mindspore", "torch", "F", "math", "np", "numpy", "init", "functools"}


def _builds_nothing(call: cst.Call, modeless: set[str], methods: set[str]) -> bool:
    """A call made while a Cell is built that cannot build a mode-dependent layer (see _modeless_classes)."""
    func = call.func
    name = dotted(func)
    if isinstance(func, cst.Name):
        return func.value in _BUILTINS and func.value != "getattr" or func.value in modeless
    if isinstance(func, cst.Attribute) and func.attr.value == "__init__":
        return True  # super().__init__(), nn.Cell.__init__(self)
    if name is None:
        return False
    root, last = name.split(".", 1)[0], name.rsplit(".", 1)[-1]
    if root == "self":
        return name.count(".") == 1 and last in methods
    return root in _FRAMEWORK_ROOTS and last != "getattr"


def _init_sets_child_mode(cls: cst.ClassDef):
    """(``__init__``, index of its first top-level statement that sets a child's mode: ``self.x.set_train(...)``),
    or None."""
    import re

    if not isinstance(cls.body, cst.IndentedBlock):
        return None
    for fn in cls.body.body:
        if isinstance(fn, cst.FunctionDef) and fn.name.value == "__init__" and isinstance(fn.body, cst.IndentedBlock):
            for i, stmt in enumerate(fn.body.body):
                if re.search(r"\bself(\.\w+)+\.set_train\(", _code(stmt)):
                    return fn, i
    return None


def _calls(node: cst.CSTNode):
    """Every Call node in ``node`` (itself included)."""
    return nodes_of(node, cst.Call)


def _unchain(node: cst.BaseExpression) -> cst.BaseExpression:
    """``Net().to(device).float()`` -> ``Net()``."""
    while (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)
           and node.func.attr.value in _CHAIN and isinstance(node.func.value, cst.Call)):
        node = node.func.value
    return node


def _assigned(stmt: cst.SimpleStatementLine):
    """``target = <construction>`` (a name or a dotted attribute, one target): (target text, the construction)."""
    if len(stmt.body) != 1:
        return None, None
    s = stmt.body[0]
    if isinstance(s, cst.Assign) and len(s.targets) == 1:
        target, value = s.targets[0].target, s.value
    elif isinstance(s, cst.AnnAssign) and s.value is not None:
        target, value = s.target, s.value
    else:
        return None, None
    name = dotted(target)
    if name is None or value is None:
        return None, None
    return name, _unchain(value)


def _code(node) -> str:
    return cst.Module([]).code_for_node(node)


def _first_mention_sets_mode(target: str, rest: list) -> bool:
    """The first later statement of the block that mentions ``target`` sets its mode (``target.set_train(...)``);
    ``target.to(device)`` / ``target = target.to(device)`` lines before it do not count as uses."""
    import re

    word = re.compile(r"(?<![\w.])" + re.escape(target) + r"(?!\w)")
    for stmt in rest:
        text = _code(stmt)
        if not word.search(text):
            continue
        body = text.strip()
        if re.match(re.escape(target) + r"\.set_train\(", body):
            return True
        if re.fullmatch(rf"({re.escape(target)} = )?{re.escape(target)}(\.(to|cuda|cpu)\([^()]*\))+(\s*#.*)?", body):
            continue
        if re.match(rf"(\w+ = )?((ms|mindspore)\.)?(load_params|load_param_into_net)\({re.escape(target)}, ", body):
            continue  # loading weights does not depend on the mode
        return False
    return False
