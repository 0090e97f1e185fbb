"""Scope-aware name resolution and tensor-ness, filled while a pass walks the file in source order.

``Resolver`` keeps a stack of scopes (module, class, function, lambda, comprehension). Every binding form binds
in the scope it belongs to: imports (at any depth), parameters, assignments (plain, augmented, annotated, tuple
targets, ``for`` / ``with`` / ``except`` targets), ``def`` / ``class`` names, comprehension targets; ``global``
sends a name to the module scope. A name is looked up from the innermost scope outwards, skipping class scopes
(Python does not let methods see class attributes by bare name). Bindings are recorded in walk order, which is
exact for valid code except for a name used in a loop body before the assignment that rebinds it later in the
same body (the first iteration's meaning is used).

Each binding says what the name stands for: an imported object (its qualified name: ``torch.nn.functional``,
``numpy``, ``os.path``, ``pkg.layers.DoubleConv`` for a sibling module's class), or a value with a tensor-ness:

* ``YES``  — torch calls (``torch.randn``, ``F.relu``), module outputs (``self.conv(x)``, ``model(x)``), tensor
  method results, Parameters and buffers, ``forward`` / ``construct`` parameters, arithmetic on those;
* ``NO``   — numbers, strings, containers, comprehensions, numpy results, modules (a torch layer or a user
  ``nn.Module`` subclass instance: calling it gives a tensor, but it is not one), objects of non-Module user
  classes, ``self``, imported modules and functions, ``x.shape`` / ``x.dtype``, ``len(...)``...;
* ``UNKNOWN`` — everything else (a parameter of a plain function, a call of an unknown function, a list item).

``Project`` answers what a sibling module exports (``from .unet_parts import *``, ``from .base import Net``),
read with ``ast`` (no conversion), so a file whose torch names come from a sibling still converts and a class
deriving from a sibling's ``nn.Module`` subclass is a module too.
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from .cst_util import dotted

YES, NO, UNKNOWN = "yes", "no", "unknown"
#: dtype evidence of a value (beside its tensor-ness): the kind of numbers it holds, or UNKNOWN.
FLOATING, INTEGER, BOOL = "floating", "integer", "bool"

#: Tensor methods whose result is not a tensor.
NON_TENSOR_METHODS = frozenset({
    "item", "tolist", "numpy", "size", "dim", "ndimension", "numel", "nelement", "element_size", "is_contiguous",
    "data_ptr", "stride", "storage_offset", "is_floating_point", "is_complex", "get_device", "equal", "__len__",
    "untyped_storage", "storage", "is_leaf", "requires_grad_", "register_hook",
})
#: Attributes of a tensor that are not tensors.
NON_TENSOR_ATTRS = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "requires_grad", "layout",
                              "is_sparse", "names", "grad_fn", "is_leaf", "itemsize", "nbytes"})
#: Attributes of a tensor that are tensors.
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "data", "grad", "real", "imag"})
#: Builtins whose result is never a tensor.
NON_TENSOR_BUILTINS = frozenset({
    "len", "int", "float", "str", "bool", "list", "dict", "tuple", "set", "frozenset", "range", "enumerate", "zip",
    "isinstance", "issubclass", "sorted", "reversed", "open", "print", "repr", "format", "type", "id", "hash",
    "callable", "hasattr", "dir", "vars", "iter", "map", "filter", "round", "chr", "ord", "bytes", "bytearray",
    "object", "super", "property", "staticmethod", "classmethod", "input", "globals", "locals", "any", "all",
})
# torch callables that do not return a tensor (their qualified names, or prefixes ending in '.')
_TORCH_NON_TENSOR = ("torch.is_tensor", "torch.is_floating_point", "torch.is_complex", "torch.numel",
                     "torch.cuda.", "torch.backends.", "torch.device", "torch.Size", "torch.Generator",
                     "torch.get_default_dtype", "torch.set_", "torch.manual_seed", "torch.save", "torch.load",
                     "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.utils.", "torch.optim.",
                     "torch.distributed.", "torch.jit.", "torch.onnx.", "torch.hub.", "torch.autograd.grad",
                     "torch.typename", "torch.finfo", "torch.iinfo", "torch.accelerator.")


# Module methods that return the module itself
_RETURNS_MODULE = frozenset({"to", "cuda", "cpu", "train", "eval", "float", "double", "half", "bfloat16",
                             "requires_grad_", "apply", "share_memory"})
_DEVICE_STRING = re.compile(r"(cuda|cpu|mps|xpu|npu|meta)(:\d+)?$")


@dataclass
class Binding:
    """What a name stands for in the scope that binds it."""

    qualname: str | None = None  # an imported or defined object: 'torch.nn', 'numpy.zeros', 'pkg.mod.Net'
    tensor: str = UNKNOWN  # for values: YES / NO / UNKNOWN
    module: bool = False  # the value is a torch module instance (a layer, a user nn.Module subclass)
    module_class: bool = False  # the name is a class deriving from a torch module
    is_global: bool = False  # `global name` in a function: look it up in the module scope
    element: str = UNKNOWN  # for a list / tuple: the tensor-ness of its items (``feats.append(self.a(x))``)
    element_seen: bool = False  # an item was appended already
    device: bool = False  # the value is a device: torch.device(...), "cuda" / "cpu:0", or a name holding one
    layer: str | None = None  # a torch layer built here (``self.bn = nn.BatchNorm2d(c)``): its canonical class
    origin: str | None = None  # a sibling module's class: the file that defines it (Project)
    factory: bool = False  # a sibling module's function that returns a module it builds (``def resnet18(): ...``)
    ctor: object = None  # a torch layer built here: the constructor call as written (its literal arguments)
    dtype: str = UNKNOWN  # dtype evidence for a value: FLOATING / INTEGER / BOOL / UNKNOWN (see Resolver.dtype)


@dataclass
class Scope:
    kind: str  # module | class | function | lambda | comp
    names: dict[str, Binding] = field(default_factory=dict)
    module_class: bool = False  # class scope: the class derives from a torch module
    qualname: str = ""  # class scope: the class's name
    forward: bool = False  # function scope: forward/construct of a module class
    self_name: str | None = None  # method scope: the first parameter
    attrs: dict[str, Binding] = field(default_factory=dict)  # class scope: self.<attr> bindings


def _literal_data_dtype(node) -> str:
    """The kind of numbers literal data holds (``[[1, 2], [3, -4]]``: INTEGER; ``[True]``: BOOL; any float:
    FLOATING); UNKNOWN for anything but nested lists / tuples of number and bool literals."""
    kinds: set[str] = set()

    def walk(n) -> bool:
        if isinstance(n, (cst.List, cst.Tuple)):
            return all(walk(e.value) for e in n.elements if not isinstance(e, cst.StarredElement)) and not any(
                isinstance(e, cst.StarredElement) for e in n.elements)
        if isinstance(n, cst.UnaryOperation) and isinstance(n.operator, (cst.Minus, cst.Plus)):
            return walk(n.expression)
        if isinstance(n, cst.Integer):
            kinds.add(INTEGER)
        elif isinstance(n, cst.Float):
            kinds.add(FLOATING)
        elif isinstance(n, cst.Name) and n.value in ("True", "False"):
            kinds.add(BOOL)
        else:
            return False
        return True

    if not walk(node) or not kinds:
        return UNKNOWN
    if FLOATING in kinds:
        return FLOATING
    return kinds.pop() if len(kinds) == 1 else INTEGER


def is_torch(q: str | None) -> bool:
    return bool(q) and (q == "torch" or q.startswith("torch."))


def is_numpy(q: str | None) -> bool:
    return bool(q) and (q == "numpy" or q.startswith("numpy."))


def torch_module_class(q: str | None) -> bool:
    """A torch class whose instances are modules (``torch.nn.Conv2d``, ``torch.nn.Module``), or the MindSpore
    Cell class a conversion made of one (so converted code reads as its source did)."""
    if q and q.startswith("mindspore.nn."):
        last = q.rsplit(".", 1)[1]
        return last[:1].isupper() and not q.startswith("mindspore.nn.probability.")
    q = _canonical(q)
    if not q or not q.startswith("torch.nn.") or q.startswith(("torch.nn.functional.", "torch.nn.init.",
                                                                  "torch.nn.utils.")):
        return False
    last = q.rsplit(".", 1)[1]
    return (last[:1].isupper() and last not in ("Parameter", "Buffer")) or last in _PRIVATE_MODULE_BASES


# torch's private module base classes that user code subclasses (smp's DiceLoss(_Loss))
_PRIVATE_MODULE_BASES = frozenset({"_Loss", "_WeightedLoss", "_BatchNorm", "_NormBase", "_InstanceNorm", "_ConvNd",
                                   "_DropoutNd", "_MaxPoolNd", "_AvgPoolNd"})


class Resolver:
    def __init__(self, project: "Project | None" = None, path: Path | None = None) -> None:
        self.project, self.path = project, path
        self.scopes: list[Scope] = [Scope("module")]
        self.local_module_classes: set[str] = set()  # qualified names of classes known to be torch modules
        # ids of calls a pass converted as Tensor methods on a receiver of unknown type (``m.weight.detach()``):
        # the conversion took the receiver for a tensor, so its result is read as one (``w = ....clone()`` is a
        # tensor, and ``w.resize_(...)`` is marked on the first pass as on a second one over the output)
        self.tensor_method_calls: set[int] = set()

    # -- scopes ---------------------------------------------------------------------------------------
    @property
    def scope(self) -> Scope:
        return self.scopes[-1]

    def push(self, scope: Scope) -> None:
        self.scopes.append(scope)

    def pop(self) -> Scope:
        return self.scopes.pop()

    def enclosing_class(self) -> Scope | None:
        """The class scope a method being walked belongs to (the scope just outside the current function)."""
        for i in range(len(self.scopes) - 1, 0, -1):
            if self.scopes[i].kind == "function":
                return self.scopes[i - 1] if self.scopes[i - 1].kind == "class" else None
        return None

    def bind(self, name: str, binding: Binding) -> None:
        current = self.scope.names.get(name)
        if current is not None and current.is_global:
            self.scopes[0].names[name] = binding
        else:
            self.scope.names[name] = binding

    def lookup(self, name: str) -> Binding | None:
        for i in range(len(self.scopes) - 1, -1, -1):
            scope = self.scopes[i]
            if scope.kind == "class" and i != len(self.scopes) - 1:
                continue
            b = scope.names.get(name)
            if b is not None:
                return self.scopes[0].names.get(name) if b.is_global else b
        return None

    def binds_anywhere(self, name: str) -> bool:
        return any(name in s.names for s in self.scopes)

    # -- names ----------------------------------------------------------------------------------------
    def qualify(self, node: cst.BaseExpression) -> str | None:
        """The qualified name of a Name/Attribute chain whose root is an imported (or defined) object."""
        path = dotted(node)
        if path is None:
            return None
        first, _, rest = path.partition(".")
        b = self.lookup(first)
        if b is None or b.qualname is None:
            return None
        return f"{b.qualname}.{rest}" if rest else b.qualname

    def uses_torch(self) -> bool:
        """Some name visible at module level stands for a torch object."""
        return any(is_torch(b.qualname) for b in self.scopes[0].names.values())

    # -- imports --------------------------------------------------------------------------------------
    def record_import(self, node: cst.Import | cst.ImportFrom) -> list[tuple[str, str]]:
        """Bind the names of an import statement; return (local name, qualified name) for each."""
        bound: list[tuple[str, str]] = []
        if isinstance(node, cst.Import):
            for alias in node.names:
                full = dotted(alias.name) or ""
                if alias.asname is not None:
                    local, q = alias.asname.name.value, full
                else:  # `import torch.nn` binds `torch`
                    local = q = full.split(".")[0]
                bound.append((local, q))
        else:
            module = dotted(node.module) if node.module is not None else ""
            level = len(node.relative)
            if isinstance(node.names, cst.ImportStar):
                for local, b in self._star(module, level).items():
                    self.bind(local, b)
                return []
            base = self._module_qualname(module, level)
            for alias in node.names:
                name = alias.name.value if isinstance(alias.name, cst.Name) else dotted(alias.name)
                local = alias.asname.name.value if alias.asname is not None else name
                exported = self._exported(module, level, name)
                if exported is not None:
                    self.bind(local, exported)
                    continue
                bound.append((local, f"{base}.{name}" if base else name))
        for local, q in bound:
            self.bind(local, Binding(qualname=q, tensor=NO))
        return bound

    def _module_qualname(self, module: str, level: int) -> str:
        if not level:
            return module
        return "." * level + module  # a local module: its names never resolve to torch by name alone

    def _exported(self, module: str, level: int, name: str) -> Binding | None:
        if self.project is None or self.path is None:
            return None
        return self.project.exports(self.path, module, level).get(name)

    def _star(self, module: str, level: int) -> dict[str, Binding]:
        if self.project is None or self.path is None:
            return {}
        return self.project.exports(self.path, module, level)

    # -- tensor-ness ----------------------------------------------------------------------------------
    def value(self, node: cst.BaseExpression | None) -> Binding:
        """The binding a name gets when ``node`` is assigned to it."""
        if node is None:
            return Binding()
        if isinstance(node, cst.Call) and self.is_module_class(node.func):
            q = _canonical(self.qualify(node.func))
            return Binding(tensor=NO, module=True, layer=q if is_torch(q) else None, ctor=node if is_torch(q) else None)
        if (isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute)  # ``net = net.to(device)``
                and node.func.attr.value in _RETURNS_MODULE and self.is_module_value(node.func.value)):
            return Binding(tensor=NO, module=True)
        if self.is_device(node):
            return Binding(tensor=NO, device=True)
        if isinstance(node, (cst.IfExp, cst.BooleanOperation)):
            sides = [node.body, node.orelse] if isinstance(node, cst.IfExp) else [node.left, node.right]
            values = [self.value(v) for v in sides if not (isinstance(v, cst.Name) and v.value == "None")]
            if values and all(v.module for v in values):
                return Binding(tensor=NO, module=True)
        if isinstance(node, cst.Name):
            b = self.lookup(node.value)
            if b is not None and b.module:
                return Binding(tensor=NO, module=True)
        if (isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value != "self"
                and self.is_module_value(node)):  # ``vgg = net.vgg``
            return Binding(tensor=NO, module=True)
        if isinstance(node, (cst.List, cst.Tuple)):
            items = {self.tensor(el.value) for el in node.elements if not isinstance(el, cst.StarredElement)}
            return Binding(tensor=NO, element=YES if items == {YES} else (NO if items == {NO} else UNKNOWN))
        return Binding(tensor=self.tensor(node), dtype=self.dtype(node))

    def is_device(self, node: cst.BaseExpression | None) -> bool:
        """``torch.device(...)``, a device string (``"cuda"``, ``"cpu:0"``), a conditional of those, or a name
        bound to one (``device = torch.device("cuda" if torch.cuda.is_available() else "cpu")``)."""
        if isinstance(node, cst.Call):
            return self.qualify(node.func) == "torch.device"
        if isinstance(node, cst.SimpleString):
            value = node.evaluated_value
            return isinstance(value, str) and _DEVICE_STRING.match(value) is not None
        if isinstance(node, cst.IfExp):
            return self.is_device(node.body) and self.is_device(node.orelse)
        if isinstance(node, cst.Name):
            b = self.lookup(node.value)
            return b is not None and b.device
        return False

    def element(self, node: cst.BaseExpression) -> str:
        """The tensor-ness of the items of ``node`` (a list or tuple name, a tensor)."""
        if isinstance(node, cst.Name):
            b = self.lookup(node.value)
            if b is not None and b.qualname is None and not b.module:
                return YES if b.tensor == YES else b.element
        if isinstance(node, cst.Subscript) and isinstance(node.slice[0].slice, cst.Slice):
            return self.element(node.value)
        return YES if self.tensor(node) == YES else UNKNOWN

    def appended(self, container: cst.BaseExpression, item: cst.BaseExpression) -> None:
        """``container.append(item)``: a list of tensors stays one; anything else makes its items unknown."""
        if isinstance(container, cst.Name):
            b = self.lookup(container.value)
            if b is not None and b.qualname is None and b.tensor == NO and not b.module:
                t = self.tensor(item)
                b.element = t if b.element in (t, UNKNOWN) and (b.element == t or not b.element_seen) else UNKNOWN
                b.element_seen = True

    def is_module_class(self, node: cst.BaseExpression) -> bool:
        """``node`` names a class whose instances are torch modules (``nn.Conv2d``, a user ``nn.Module``)."""
        q = self.qualify(node)
        if q is None:
            return False
        if torch_module_class(q) or q in self.local_module_classes:
            return True
        b = self.lookup((dotted(node) or "").split(".")[0])
        return b is not None and b.module_class and "." not in (dotted(node) or ".")

    def is_module_value(self, node: cst.BaseExpression) -> bool:
        """``node`` is a torch module instance (a layer attribute, a model variable)."""
        if isinstance(node, cst.Name):
            b = self.lookup(node.value)
            return b is not None and b.module
        if isinstance(node, cst.Attribute):
            b = self._self_attr(node)
            if b is None and isinstance(node.value, cst.Name):  # ``net.vgg``: a module-level instance of a
                m = self.lookup(node.value.value)                # project module imported as ``net``
                if m is not None and m.qualname is not None and not is_torch(m.qualname) and not m.module:
                    b = self._exported(m.qualname, 0, node.attr.value)
            return b is not None and b.module
        if isinstance(node, cst.Call):  # ``Net().to(device)``; ``super()`` in a module's method
            if isinstance(node.func, cst.Name) and node.func.value == "super" and self.lookup("super") is None:
                cls = self.enclosing_class()
                return cls is not None and cls.module_class
            return self.is_module_class(node.func)
        return False

    def layer_binding(self, node: cst.BaseExpression) -> Binding | None:
        """The binding of a name or ``self.attr`` that holds a torch layer this file built, else None."""
        if isinstance(node, cst.Name):
            b = self.lookup(node.value)
        elif isinstance(node, cst.Attribute):
            b = self._self_attr(node)
        else:
            return None
        return b if b is not None and b.layer else None

    def layer_of(self, node: cst.BaseExpression) -> str | None:
        """The torch layer class ``node`` holds when this file built it (``self.bn`` after ``self.bn =
        nn.BatchNorm2d(c)``, a local ``bn = nn.BatchNorm2d(c)``), else None."""
        b = self._layer_binding(node)
        return b.layer if b is not None else None

    def layer_ctor(self, node: cst.BaseExpression) -> cst.Call | None:
        """The constructor call, as written, of the torch layer ``node`` holds when this file built it, else None."""
        b = self._layer_binding(node)
        return b.ctor if b is not None and isinstance(b.ctor, cst.Call) else None

    def _layer_binding(self, node: cst.BaseExpression) -> Binding | None:
        if isinstance(node, cst.Name):
            return self.lookup(node.value)
        if isinstance(node, cst.Attribute):
            return self._self_attr(node)
        return None

    def _self_attr(self, node: cst.Attribute) -> Binding | None:
        """The binding of ``self.attr`` inside a method."""
        if not isinstance(node.value, cst.Name):
            return None
        fn = next((s for s in reversed(self.scopes) if s.kind == "function"), None)
        cls = self.enclosing_class()
        if fn is None or cls is None or fn.self_name != node.value.value:
            return None
        return cls.attrs.get(node.attr.value)

    def tensor(self, node: cst.BaseExpression) -> str:
        if isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString, cst.Integer,
                             cst.Float, cst.Imaginary, cst.List, cst.Dict, cst.Set, cst.Tuple, cst.ListComp,
                             cst.DictComp, cst.SetComp, cst.GeneratorExp, cst.Lambda)):
            return NO
        if isinstance(node, cst.Name):
            if node.value in ("None", "True", "False"):
                return NO
            b = self.lookup(node.value)
            if b is None:
                return UNKNOWN
            return NO if (b.qualname is not None or b.module) else b.tensor
        if isinstance(node, cst.Attribute):
            if self.qualify(node) is not None:
                return NO  # a module attribute (torch.float32, np.pi, os.sep)
            attr = node.attr.value
            b = self._self_attr(node)
            if b is not None:
                return NO if b.module else b.tensor
            if attr in NON_TENSOR_ATTRS:
                return NO
            if attr in TENSOR_ATTRS and self.tensor(node.value) == YES:
                return YES
            return UNKNOWN
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.Subscript):
            if self.tensor(node.value) == YES:
                return YES
            if isinstance(node.slice[0].slice, cst.Index) and self.element(node.value) == YES:
                return YES  # an item of a list of tensors
            return UNKNOWN
        if isinstance(node, cst.BinaryOperation):
            sides = {self.tensor(node.left), self.tensor(node.right)}
            return YES if YES in sides else (NO if sides == {NO} else UNKNOWN)
        if isinstance(node, cst.UnaryOperation):
            if isinstance(node.operator, cst.Not):
                return NO if self.tensor(node.expression) != YES else UNKNOWN
            return self.tensor(node.expression)
        if isinstance(node, cst.Comparison):
            parts = {self.tensor(node.left), *(self.tensor(c.comparator) for c in node.comparisons)}
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
                return NO
            return YES if YES in parts else (NO if parts == {NO} else UNKNOWN)
        if isinstance(node, cst.IfExp):
            sides = {self.tensor(node.body), self.tensor(node.orelse)}
            return sides.pop() if len(sides) == 1 else UNKNOWN
        if isinstance(node, cst.BooleanOperation):
            sides = {self.tensor(node.left), self.tensor(node.right)}
            return sides.pop() if len(sides) == 1 else UNKNOWN
        return UNKNOWN

    def _call(self, node: cst.Call) -> str:
        func = node.func
        q = self.qualify(func)
        if q is not None:
            if is_torch(q):
                if torch_module_class(q) or q.startswith(_TORCH_NON_TENSOR):
                    return NO
                last = q.rsplit(".", 1)[1]
                if last[:1].isupper() and q != "torch.Tensor":
                    return UNKNOWN  # some other torch class
                return YES
            if is_numpy(q):
                return NO
            if q.startswith("mindspore.ops.") or q in ("mindspore.Tensor", "mindspore.tensor"):
                return YES  # converted code reads as its source did
            if self.is_module_class(func):
                return NO
            b = self.lookup((dotted(func) or "").split(".")[0])
            if b is not None and b.qualname is not None and "." not in (dotted(func) or "."):
                return NO if b.qualname[:1] != "." and b.qualname.rsplit(".", 1)[-1][:1].isupper() else UNKNOWN
            return UNKNOWN
        if isinstance(func, cst.Name):
            b = self.lookup(func.value)
            if b is None:
                if func.value in ("sum", "max", "min") and node.args and self.element(node.args[0].value) == YES:
                    return YES  # sum(feats) of a list of tensors
                return NO if func.value in NON_TENSOR_BUILTINS else UNKNOWN
            if b.module:
                return YES  # calling a module gives its output
            return UNKNOWN
        if isinstance(func, cst.Attribute):
            if self.is_module_value(func):
                return YES  # self.conv(x)
            recv = self.tensor(func.value)
            if recv == YES or id(node) in self.tensor_method_calls:
                return NO if func.attr.value in NON_TENSOR_METHODS else YES
            if isinstance(func.value, cst.Name):
                b = self.lookup(func.value.value)
                if b is not None and b.module and func.attr.value in ("forward", "construct"):
                    return YES
        return UNKNOWN

    # -- dtype evidence -------------------------------------------------------------------------------
    def dtype(self, node: cst.BaseExpression | None) -> str:
        """The kind of numbers ``node`` holds when the source says so: FLOATING, INTEGER, BOOL, else UNKNOWN.

        Evidence, never a guess: float literals; the outputs of torch layers that compute in floating point
        (conv, linear, norms, pools that average, float activations, losses); torch functions and tensor methods
        whose result kind is fixed (``sigmoid``/``softmax``/``mean``/``randn`` floating, ``argmax``/``long()``/
        ``randint`` integer, comparisons and ``isnan`` bool); casts (``.float()``, ``.to(torch.int64)``); ops that
        keep their input's kind (``view``, ``permute``, indexing, ``-x``) carry it; ``a / b`` of tensors is
        floating, ``+ - *`` floating when one side is. A forward's parameters, a user module's output, a plain
        function's result are UNKNOWN: the code may feed them integers. Passes keep a guard or a helper only where
        the evidence allows the case it guards (migrate/mapping/rules_tensor.py)."""
        if node is None:
            return UNKNOWN
        if isinstance(node, cst.Float):
            return FLOATING
        if isinstance(node, cst.Integer):
            return INTEGER
        if isinstance(node, cst.Name):
            if node.value in ("True", "False"):
                return BOOL
            b = self.lookup(node.value)
            return b.dtype if b is not None and b.qualname is None and not b.module else UNKNOWN
        if isinstance(node, cst.Attribute):
            b = self._self_attr(node)
            if b is not None:
                return UNKNOWN if b.module else b.dtype
            if node.attr.value in ("T", "mT", "data", "grad", "real") and self.tensor(node.value) == YES:
                return self.dtype(node.value)
            return UNKNOWN
        if isinstance(node, cst.Subscript):
            return self.dtype(node.value) if self.tensor(node.value) == YES else UNKNOWN
        if isinstance(node, cst.UnaryOperation):
            return UNKNOWN if isinstance(node.operator, cst.Not) else self.dtype(node.expression)
        if isinstance(node, cst.BinaryOperation):
            if YES not in (self.tensor(node.left), self.tensor(node.right)):
                return UNKNOWN
            kinds = {self.dtype(node.left), self.dtype(node.right)}
            if isinstance(node.operator, cst.Divide) or (
                    FLOATING in kinds and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply))):
                return FLOATING  # true division of tensors is floating in torch; a float operand makes it so
            if kinds == {INTEGER} and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply,
                                                                  cst.FloorDivide, cst.Modulo)):
                return INTEGER
            return UNKNOWN
        if isinstance(node, cst.Comparison):
            if any(isinstance(c.operator, (cst.Is, cst.IsNot, cst.In, cst.NotIn)) for c in node.comparisons):
                return UNKNOWN
            return BOOL  # a tensor comparison is a bool tensor, any other a Python bool
        if isinstance(node, cst.IfExp):
            sides = {self.dtype(node.body), self.dtype(node.orelse)}
            return sides.pop() if len(sides) == 1 else UNKNOWN
        if isinstance(node, cst.Call):
            return self._call_dtype(node)
        return UNKNOWN

    def _call_dtype(self, node: cst.Call) -> str:
        func = node.func
        q = self.qualify(func)
        kw = {a.keyword.value: a.value for a in node.args if a.keyword is not None}
        if q is not None and is_torch(q) and "dtype" in kw:
            return _dtype_literal(self.qualify(kw["dtype"]))
        if q is not None and is_torch(q):
            q = _canonical(q) or q
            last = q.rsplit(".", 1)[1]
            if torch_module_class(q):
                return UNKNOWN  # a module, not a tensor
            if q in ("torch.tensor", "torch.as_tensor") and node.args and node.args[0].keyword is None:
                return _literal_data_dtype(node.args[0].value)  # torch.tensor([4, 10]) is int64
            return _FUNC_DTYPE.get(last, UNKNOWN) if q.startswith(("torch.", "torch.nn.functional.")) else UNKNOWN
        if isinstance(func, cst.Attribute) and not self.is_module_value(func):
            name = func.attr.value
            if self.tensor(func.value) != YES and id(node) not in self.tensor_method_calls:
                return UNKNOWN
            if "dtype" in kw:
                return _dtype_literal(self.qualify(kw["dtype"]))
            if name in ("to", "type") and node.args and node.args[0].keyword is None:
                return _dtype_literal(self.qualify(node.args[0].value)) if self.qualify(
                    node.args[0].value) else UNKNOWN
            if name in _KEEPS_DTYPE:
                return self.dtype(func.value)
            return _METHOD_DTYPE.get(name, _FUNC_DTYPE.get(name, UNKNOWN))
        layer = self.layer_of(func) if isinstance(func, (cst.Name, cst.Attribute)) else None
        if layer is not None:  # a torch layer this file built: ``self.conv(x)``
            return FLOATING if layer.rsplit(".", 1)[1] in _FLOAT_LAYERS else UNKNOWN
        return UNKNOWN

    # -- facts the walk records -----------------------------------------------------------------------
    def bind_target(self, target: cst.BaseExpression, value: cst.BaseExpression | None) -> None:
        """Bind an assignment target (a name, a tuple of names, ``self.attr`` in a method)."""
        if isinstance(target, cst.Name):
            self.bind(target.value, self.value(value))
        elif isinstance(target, (cst.Tuple, cst.List)):
            values = value.elements if isinstance(value, (cst.Tuple, cst.List)) else None
            for i, el in enumerate(target.elements):
                inner = el.value.value if isinstance(el, cst.StarredElement) else el.value
                v = values[i].value if values is not None and i < len(values) and not isinstance(
                    values[i], cst.StarredElement) else None
                self.bind_target(inner, v)
        elif isinstance(target, cst.Attribute) and isinstance(target.value, cst.Name):
            fn = next((s for s in reversed(self.scopes) if s.kind == "function"), None)
            cls = self.enclosing_class()
            if fn is not None and cls is not None and fn.self_name == target.value.value:
                b = self.value(value)
                if isinstance(value, cst.Call):
                    q = self.qualify(value.func)
                    if q in ("torch.nn.Parameter", "torch.nn.parameter.Parameter"):
                        b = Binding(tensor=YES)
                old = cls.attrs.get(target.attr.value)
                if old is not None and (old.module != b.module or old.tensor != b.tensor):
                    b = Binding(tensor=UNKNOWN, module=old.module and b.module)
                elif old is not None and old.dtype != b.dtype:  # set twice with different kinds of numbers
                    b.dtype = UNKNOWN
                cls.attrs[target.attr.value] = b
        elif isinstance(target, cst.StarredElement):
            self.bind_target(target.value, None)

    def bind_buffer(self, name: str) -> None:
        """``self.register_buffer('name', t)`` / ``register_parameter``: ``self.name`` is a tensor."""
        cls = self.enclosing_class()
        if cls is not None:
            cls.attrs[name] = Binding(tensor=YES)

    def class_is_module(self, bases) -> bool:
        for base in bases:
            if self.is_module_class(base.value):
                return True
        return False

    def function_scope(self, node: cst.FunctionDef) -> Scope:
        """A scope for ``node`` with its parameters bound (``self`` and forward's inputs typed)."""
        cls = self.scope if self.scope.kind == "class" else None
        params = [*node.params.posonly_params, *node.params.params]
        is_method = cls is not None and params and not any(
            dotted(d.decorator) == "staticmethod" for d in node.decorators)
        forward = bool(cls is not None and cls.module_class and node.name.value in ("forward", "construct"))
        scope = Scope("function", forward=forward,
                      self_name=params[0].name.value if is_method else None)
        for p in [*params, *node.params.kwonly_params]:
            scope.names[p.name.value] = Binding(tensor=(NO if _not_tensor_annotation(p.annotation) else YES)
                                                if forward else UNKNOWN)
        for star in (node.params.star_arg, node.params.star_kwarg):
            if isinstance(star, cst.Param):
                scope.names[star.name.value] = Binding(tensor=NO)
        if is_method:
            scope.names[params[0].name.value] = Binding(tensor=NO, module=cls.module_class)
        if forward:  # defaults that are not tensors: `def forward(self, x, mask=None, scale=2.0)`
            for p in params[1:]:
                if p.default is not None and self.tensor(p.default) == NO:
                    scope.names[p.name.value] = Binding(tensor=UNKNOWN)
        return scope


# annotations that say a forward argument is not a tensor (torchvision's ``features: dict[str, Tensor]``)
_NOT_TENSOR_TYPES = frozenset({"dict", "Dict", "OrderedDict", "Mapping", "MutableMapping", "list", "List", "tuple",
                               "Tuple", "Sequence", "Iterable", "set", "Set", "int", "float", "str", "bool"})


def _not_tensor_annotation(annotation) -> bool:
    """``x: dict[str, Tensor]``, ``x: List[Tensor]``, ``n: int``: the argument is a container or a scalar (an
    ``Optional[...]`` / ``Union[...]`` or an unknown name may still be a tensor)."""
    if annotation is None:
        return False
    node = annotation.annotation
    if isinstance(node, cst.Subscript):
        node = node.value
    name = node.attr.value if isinstance(node, cst.Attribute) else node.value if isinstance(node, cst.Name) else None
    return name in _NOT_TENSOR_TYPES


# -- the project: what sibling modules export -----------------------------------------------------------
@dataclass
class _ModuleInfo:
    exports: dict[str, Binding]


class Project:
    """Sibling modules of the files being converted, read with ``ast`` on demand (cached)."""

    def __init__(self, root: Path | None = None) -> None:
        self.root = root.resolve() if root is not None else None
        self._cache: dict[Path, _ModuleInfo | None] = {}
        self._imported: dict[Path, set[str]] | None = None

    def find(self, importer: Path, module: str, level: int) -> Path | None:
        """The file a ``from <level dots><module> import ...`` in ``importer`` refers to, if it is local."""
        base = importer.resolve().parent
        if level:
            for _ in range(level - 1):
                base = base.parent
            candidates = [base]
        else:  # an absolute import of a local module: beside the importer, under the project root, or of the
            # package the root is (``from torchvision.models import x`` inside torchvision/)
            candidates = [base] + ([r for r in (self.root, self.root.parent) if r != base]
                                   if self.root is not None else [])
        parts = module.split(".") if module else []
        for c in candidates:
            target = c.joinpath(*parts) if parts else c
            for path in (target.with_suffix(".py") if parts else None, target / "__init__.py"):
                if path is not None and path.is_file():
                    return path
        return None

    def imported_from(self, path: Path) -> set[str]:
        """The names other files of the project import from ``path`` (``from .utils import name``): what the
        module re-exports. Every file is read once with ``ast``, on the first question."""
        if self._imported is None:
            self._imported = {}
            for file in sorted(self.root.rglob("*.py")) if self.root is not None else []:
                try:
                    tree = ast.parse(file.read_text(encoding="utf-8"))
                except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
                    continue
                for node in ast.walk(tree):
                    if isinstance(node, ast.ImportFrom) and (node.level or node.module):
                        target = self.find(file, node.module or "", node.level)
                        if target is not None and target.resolve() != file.resolve():
                            names = self._imported.setdefault(target.resolve(), set())
                            names.update(a.name for a in node.names)
        return self._imported.get(path.resolve(), set())

    def exports(self, importer: Path, module: str, level: int) -> dict[str, Binding]:
        path = self.find(importer, module, level)
        if path is None:
            return {}
        info = self._info(path)
        return info.exports if info is not None else {}

    def _info(self, path: Path) -> _ModuleInfo | None:
        path = path.resolve()
        if path in self._cache:
            return self._cache[path]
        self._cache[path] = None  # import cycles: a module being read exports nothing yet
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            return None
        exports: dict[str, Binding] = {}
        modname = path.stem
        public = _literal_all(tree)
        for stmt in tree.body:
            for s in _flatten_try(stmt):
                if isinstance(s, ast.Import):
                    for a in s.names:
                        local = a.asname or a.name.split(".")[0]
                        exports[local] = Binding(qualname=a.name if a.asname else local, tensor=NO)
                elif isinstance(s, ast.ImportFrom):
                    mod = s.module or ""
                    if s.level or self.find(path, mod, 0) is not None:
                        sub = self.exports(path, mod, s.level)
                        if any(a.name == "*" for a in s.names):
                            exports.update(sub)
                        else:
                            for a in s.names:
                                if a.name in sub:
                                    exports[a.asname or a.name] = sub[a.name]
                        continue
                    for a in s.names:
                        if a.name != "*":
                            exports[a.asname or a.name] = Binding(qualname=f"{mod}.{a.name}", tensor=NO)
                elif isinstance(s, ast.ClassDef):
                    exports[s.name] = Binding(qualname=f"{modname}.{s.name}", tensor=NO,
                                              module_class=self._ast_is_module(s, exports), origin=str(path))
                elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    exports[s.name] = Binding(qualname=f"{modname}.{s.name}", tensor=NO)
        for s in tree.body:  # module-level instances (``vgg = nn.Sequential(...)``, read as ``net.vgg`` elsewhere)
            if (isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name)
                    and s.targets[0].id not in exports and _ast_builds(s.value, exports)):
                exports[s.targets[0].id] = Binding(tensor=NO, module=True)
        for s in tree.body:  # factories: functions returning a module they build (after every class is known)
            if isinstance(s, ast.FunctionDef) and s.name in exports and _ast_factory(s, exports):
                exports[s.name].factory = True
        if public is not None:
            exports = {k: v for k, v in exports.items() if k in public}
        else:
            exports = {k: v for k, v in exports.items() if not k.startswith("_")}
        info = _ModuleInfo(exports)
        self._cache[path] = info
        return info

    @staticmethod
    def _ast_is_module(cls: ast.ClassDef, names: dict[str, Binding]) -> bool:
        for base in cls.bases:
            path = _ast_dotted(base)
            if path is None:
                continue
            first, _, rest = path.partition(".")
            b = names.get(first)
            if b is None:
                continue
            if b.module_class:
                return True
            q = f"{b.qualname}.{rest}" if rest and b.qualname else b.qualname
            if torch_module_class(_canonical(q)):
                return True
        return False


def _ast_builds(call, names: dict[str, Binding]) -> bool:
    """``call`` builds a module: ``Net(...)`` (a module class of the file) or ``nn.Sequential(...)``."""
    if not isinstance(call, ast.Call):
        return False
    path = _ast_dotted(call.func)
    first, _, rest = (path or "").partition(".")
    b = names.get(first)
    if b is None:
        return False
    if not rest:
        return b.module_class
    return torch_module_class(_canonical(f"{b.qualname}.{rest}" if b.qualname else None))


def _ast_factory(fn: ast.FunctionDef, names: dict[str, Binding]) -> bool:
    """``fn`` returns a module it builds: ``return Net(...)``, or ``model = Net(...)`` ... ``return model``."""
    def builds(call) -> bool:
        return _ast_builds(call, names)

    built = {t.id for n in ast.walk(fn) if isinstance(n, ast.Assign) and builds(n.value)
             for t in n.targets if isinstance(t, ast.Name)}
    return any(isinstance(n, ast.Return) and (builds(n.value) or (isinstance(n.value, ast.Name) and n.value.id in built))
               for n in ast.walk(fn))


def _canonical(q: str | None) -> str | None:
    from ..names import canonical

    return canonical(q) if q else q


def _ast_dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def _flatten_try(stmt: ast.stmt):
    """A module-level statement, or the statements of a ``try`` / ``if`` block at module level."""
    if isinstance(stmt, ast.Try):
        for s in stmt.body:
            yield s
    elif isinstance(stmt, ast.If):
        for s in stmt.body:
            yield s
    else:
        yield stmt


def _literal_all(tree: ast.Module) -> set[str] | None:
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in stmt.targets):
            try:
                return set(ast.literal_eval(stmt.value))
            except ValueError:
                return None
    return None


# -- dtype evidence tables (what torch returns, whatever the inputs' kind) ---------------------------------------------
_FLOATING_DTYPES = {"float", "float16", "float32", "float64", "double", "half", "bfloat16"}
_INTEGER_DTYPES = {"int", "int8", "int16", "int32", "int64", "long", "short", "uint8"}


def _dtype_literal(q: str | None) -> str:
    """``torch.float32`` -> FLOATING, ``torch.long`` -> INTEGER, ``torch.bool`` -> BOOL."""
    if not q or not (q.startswith("torch.") or q.startswith("mindspore.")):
        return UNKNOWN
    last = q.rsplit(".", 1)[1].rstrip("_")
    return FLOATING if last in _FLOATING_DTYPES else INTEGER if last in _INTEGER_DTYPES else (
        BOOL if last == "bool" else UNKNOWN)


_FLOAT_FUNCS = ("sigmoid", "softmax", "log_softmax", "softmin", "tanh", "exp", "expm1", "log", "log2", "log10",
                "log1p", "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh",
                "erf", "erfc", "erfinv", "gelu", "silu", "mish", "elu", "selu", "celu", "softplus", "logsigmoid",
                "mean", "std", "var", "norm", "rand", "randn", "rand_like", "randn_like", "linspace", "logspace",
                "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "linear",
                "bilinear", "batch_norm", "layer_norm", "group_norm", "instance_norm", "avg_pool1d", "avg_pool2d",
                "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "normalize",
                "dropout", "dropout2d", "cosine_similarity", "zeros", "ones", "empty", "binary_cross_entropy",
                "binary_cross_entropy_with_logits", "cross_entropy", "nll_loss", "mse_loss", "smooth_l1_loss",
                "kl_div", "logsumexp", "sigmoid_", "hardsigmoid", "hardswish", "logit", "sinc")
_INT_FUNCS = ("argmax", "argmin", "argsort", "randint", "randint_like", "randperm", "nonzero", "bucketize",
              "searchsorted", "count_nonzero", "bincount")
_BOOL_FUNCS = ("eq", "ne", "lt", "le", "gt", "ge", "greater", "less", "isnan", "isinf", "isfinite", "isclose",
               "logical_and", "logical_or", "logical_not", "logical_xor", "isin", "signbit", "isneginf", "isposinf")
_FUNC_DTYPE = {**{n: FLOATING for n in _FLOAT_FUNCS}, **{n: INTEGER for n in _INT_FUNCS},
               **{n: BOOL for n in _BOOL_FUNCS}}
_METHOD_DTYPE = {"float": FLOATING, "double": FLOATING, "half": FLOATING, "bfloat16": FLOATING, "long": INTEGER,
                 "int": INTEGER, "short": INTEGER, "byte": INTEGER, "char": INTEGER, "bool": BOOL}
#: methods whose result holds the receiver's kind of numbers
_KEEPS_DTYPE = frozenset({"view", "reshape", "permute", "transpose", "contiguous", "clone", "detach", "flatten",
                          "squeeze", "unsqueeze", "expand", "expand_as", "repeat", "narrow", "flip", "roll",
                          "view_as", "reshape_as", "t", "neg", "abs", "clamp", "clip", "relu", "cpu", "cuda",
                          "requires_grad_", "index_select", "masked_fill", "unfold", "tile"})
#: torch layers whose output is floating whatever the input (their weights are)
_FLOAT_LAYERS = frozenset({
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Linear", "Bilinear",
    "LazyLinear", "LazyConv2d", "BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm", "LayerNorm",
    "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d", "LocalResponseNorm", "RMSNorm", "Embedding",
    "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
    "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Softmax2d", "GELU", "SiLU", "Mish", "ELU", "SELU", "CELU",
    "Softplus", "LogSigmoid", "Hardsigmoid", "Hardswish", "BCELoss", "BCEWithLogitsLoss", "CrossEntropyLoss",
    "MSELoss", "L1Loss", "NLLLoss", "SmoothL1Loss", "HuberLoss", "KLDivLoss"})
