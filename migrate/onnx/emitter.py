"""Code-building context shared by the op emitters.

An emitter is ``fn(ctx, node) -> None``; it reads inputs with ``ctx.x`` / ``ctx.const`` /
``ctx.shape``, creates sub-Cells with ``ctx.layer`` and writes construct lines with ``ctx.assign``.
An emitter that cannot convert a node faithfully raises ``NotConvertible(reason)``; the node then
becomes a stub method that raises NotImplementedError, and the report lists it.
"""
from __future__ import annotations

import builtins
import keyword
import re

import numpy as np

from .graph import Graph, Node, sanitize


class NotConvertible(Exception):
    """This node cannot be expressed faithfully; the message says why."""


# Attribute names a Cell already uses.
_RESERVED = {"self", "training", "cells", "construct", "parameters", "trainable_params", "phase",
             "cls_name", "bprop", "param_prefix", "ms", "nn", "ops", "np", "Tensor", "Parameter"}

ONNX_TO_MS_DTYPE = {1: "float32", 2: "uint8", 3: "int8", 5: "int16", 6: "int32", 7: "int64",
                    9: "bool_", 10: "float16", 11: "float64", 16: "bfloat16"}


def snake(op: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", op).lower()


def f32(value) -> float:
    """The shortest float that reads back as the same float32 (1e-05, not 9.999999747378752e-06)."""
    return float(np.format_float_positional(np.float32(value), unique=True, trim="-"))


def literal(value) -> str:
    """Python source for a scalar / small array constant (shapes, axes, scalars)."""
    arr = np.asarray(value)
    if arr.ndim == 0:
        v = arr.item()
        if isinstance(v, float):
            return repr(f32(v)) if arr.dtype == np.float32 else repr(v)
        return repr(v)
    return repr(tuple(arr.reshape(-1).tolist())) if arr.ndim == 1 else repr(arr.tolist())


class Context:
    def __init__(self, graph: Graph):
        self.graph = graph
        self.init_lines: list[str] = []
        self.lines: list[str] = []
        self.params: dict[str, np.ndarray] = {}  # checkpoint name -> value
        self.stubs: list[str] = []  # method sources
        self.unsupported: list[dict] = []
        self.vars: dict[str, str] = {}  # onnx value name -> python expression
        self.taken: set[str] = set(_RESERVED) | set(dir(builtins))  # local variable names
        self.attrs_taken: set[str] = set(_RESERVED)  # self.<attr> names
        self.const_attrs: dict[str, str] = {}
        self.stateless: dict[tuple, str] = {}  # (path, ctor) -> attr, to reuse e.g. one nn.MaxPool2d

    # ---- names
    def fresh(self, base: str, attr: bool = False) -> str:
        """An unused local variable name (or ``self.`` attribute name) built from ``base``."""
        taken = self.attrs_taken if attr else self.taken
        base = sanitize(base)
        if keyword.iskeyword(base):
            base += "_"
        name, i = base, 1
        while name in taken:
            name, i = f"{base}_{i}", i + 1
        taken.add(name)
        return name

    def bind(self, onnx_name: str, expr: str) -> None:
        self.vars[onnx_name] = expr

    # ---- reading inputs
    def const(self, name: str) -> np.ndarray | None:
        return self.graph.consts.get(name) if name else None

    def need_const(self, node: Node, i: int, what: str) -> np.ndarray:
        value = self.const(node.inputs[i]) if i < len(node.inputs) else None
        if value is None:
            raise NotConvertible(f"{what} is computed at run time")
        return value

    def shape(self, name: str) -> tuple | None:
        return self.graph.shapes.get(name)

    def need_shape(self, name: str) -> tuple:
        shape = self.shape(name)
        if shape is None:
            raise NotConvertible(f"the shape of {name!r} is not static")
        return shape

    def x(self, name: str) -> str:
        """Expression for an input: a variable, a literal scalar, or a constant attribute."""
        if name in self.vars:
            return self.vars[name]
        value = self.const(name)
        if value is None:
            raise NotConvertible(f"input {name!r} is undefined")
        if value.size == 1 and value.ndim <= 1:
            return literal(value.reshape(()))
        return self.const_attr(name)

    def const_attr(self, name: str) -> str:
        """Register a constant tensor as a Parameter of the Cell (its value goes to the checkpoint)."""
        if name not in self.const_attrs:
            attr = self.fresh(name.replace("onnx::", "const_"), attr=True)
            value = self.graph.consts[name]
            dtype = ONNX_TO_MS_DTYPE.get(_np_to_onnx(value.dtype), "float32")
            grad = "" if value.dtype.kind == "f" else ", requires_grad=False"
            self.init_lines.append(
                f"self.{attr} = Parameter(ops.zeros({tuple(value.shape)!r}, ms.{dtype}), name={attr!r}{grad})")
            self.params[attr] = value
            self.const_attrs[name] = f"self.{attr}"
        return self.const_attrs[name]

    # ---- writing
    def var_for(self, node: Node, index: int = 0) -> str:
        scope = node.module_path
        base = f"{scope}_{snake(node.op)}" if scope else snake(node.op)
        return self.fresh(base if index == 0 else f"{base}_out{index}")

    def assign(self, node: Node, expr: str, var: str | None = None) -> str:
        var = var or self.var_for(node)
        self.lines.append(f"{var} = {expr}")
        self.bind(node.outputs[0], var)
        return var

    def assign_many(self, node: Node, expr: str) -> None:
        names = [self.var_for(node, i) for i in range(len(node.outputs))]
        self.lines.append(f"{', '.join(names)} = {expr}")
        for out, var in zip(node.outputs, names):
            self.bind(out, var)

    def alias(self, node: Node, source: str) -> None:
        self.bind(node.outputs[0], self.x(source))

    def layer(self, node: Node, path: str, ctor: str, params: dict[str, np.ndarray]) -> str:
        """Create ``self.<path> = ctor`` with its parameters; return the attribute name.

        A layer without parameters used twice under the same module path (``self.pool`` called
        on two tensors in torch) is created once and reused.
        """
        stateless = not any(v is not None for v in params.values())
        # the exporter names the second call of module ``pool`` scope ``pool_1``
        key = (re.sub(r"_\d+$", "", path), ctor)
        if stateless and key in self.stateless:
            return self.stateless[key]
        attr = self.fresh(path.replace(".", "_") if path else snake(node.op), attr=True)
        self.init_lines.append(f"self.{attr} = {ctor}")
        if stateless:
            self.stateless[key] = attr
        for pname, value in params.items():
            if value is not None:
                self.params[f"{attr}.{pname}"] = np.asarray(value)
        return attr

    def call_layer(self, node: Node, attr: str, args: str) -> None:
        self.assign(node, f"self.{attr}({args})", var=self.fresh(attr))


    def stub(self, node: Node, reason: str) -> None:
        method = self.fresh(f"unsupported_{snake(node.op)}", attr=True)
        message = f"ONNX op {node.op} (node {node.name}) has no MindSpore port: {reason}"
        self.stubs.append(
            f"def {method}(self, *inputs):\n"
            f"    \"\"\"Stub for ONNX node {node.name!r} ({node.op}); port it by hand.\"\"\"\n"
            f"    raise NotImplementedError({message!r})")
        args = ", ".join(self.vars.get(n, "None") for n in node.inputs if n)
        if len(node.outputs) == 1:
            self.assign(node, f"self.{method}({args})")
        else:
            self.assign_many(node, f"self.{method}({args})")
        self.unsupported.append({"node": node.name, "op_type": node.op, "reason": reason})


def _np_to_onnx(dtype) -> int:
    from onnx import helper

    try:
        return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))
    except Exception:
        return 1
