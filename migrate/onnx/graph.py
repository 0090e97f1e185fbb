"""Load an ONNX model into a small editable graph, with static shapes and constants folded.

The exporter's graph is full of bookkeeping: ``Constant`` nodes, ``Shape -> Gather -> Unsqueeze ->
Concat -> Reshape`` chains that compute shapes which are static for the exported input, and
``Identity`` nodes aliasing de-duplicated initializers.  ``load_graph`` runs ONNX shape inference,
then evaluates every node whose inputs are all known (``Shape`` of a statically shaped tensor is
known) with ``onnx.reference.ReferenceEvaluator``, so only the nodes that really compute on the
model inputs are left for code generation.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import helper, numpy_helper, shape_inference


class OnnxInputError(ValueError):
    """The ONNX file cannot be read or is not a model this converter can take."""


@dataclass
class Node:
    """One operation: ``op`` (ONNX op type or a fused pattern), attributes as Python values."""

    op: str
    name: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict = field(default_factory=dict)
    proto: onnx.NodeProto | None = None  # the original node, for folding

    def attr(self, key, default=None):
        return self.attrs.get(key, default)

    @property
    def module_path(self) -> str:
        """Torch module path recorded by the exporter: ``/stem/stem.0/Conv`` -> ``stem.0``.

        Scope parts name a child relative to its parent, and container children carry the
        container's name: ``/encoders.0/block/block.2/Relu`` -> ``encoders.0.block.2``.
        """
        parts = self.name.split("/")[1:-1] if self.name.startswith("/") else []
        path = ""
        for part in parts:
            head, _, tail = part.rpartition(".")
            if not path:
                path = part
            elif head and (path == head or path.endswith("." + head)):
                path = f"{path}.{tail}"
            else:
                path = f"{path}.{part}"
        return path


@dataclass
class Graph:
    """The model after folding: live nodes in topological order plus everything known statically."""

    nodes: list[Node]
    inputs: list[str]
    outputs: list[str]
    consts: dict[str, np.ndarray]
    shapes: dict[str, tuple | None]
    dtypes: dict[str, int]
    initializer_names: set[str]
    opset: int

    def consumers(self) -> dict[str, list[Node]]:
        users: dict[str, list[Node]] = {}
        for node in self.nodes:
            for name in node.inputs:
                users.setdefault(name, []).append(node)
        for name in self.outputs:
            users.setdefault(name, []).append(None)  # a graph output counts as a use
        return users


def _attrs(node: onnx.NodeProto) -> dict:
    out = {}
    for a in node.attribute:
        value = helper.get_attribute_value(a)
        if isinstance(value, onnx.TensorProto):
            value = numpy_helper.to_array(value)
        elif isinstance(value, bytes):
            value = value.decode()
        elif isinstance(value, list) and value and isinstance(value[0], bytes):
            value = [v.decode() for v in value]
        out[a.name] = value
    return out


def _shape_of(value_info: onnx.ValueInfoProto) -> tuple | None:
    tt = value_info.type.tensor_type
    if not tt.HasField("shape"):
        return None
    dims = []
    for d in tt.shape.dim:
        if not d.HasField("dim_value"):
            return None
        dims.append(d.dim_value)
    return tuple(dims)


def _evaluate(node: onnx.NodeProto, feeds: dict, opset: int) -> list[np.ndarray] | None:
    from onnx.reference import ReferenceEvaluator

    try:
        ref = ReferenceEvaluator(node, opsets={"": opset})
        return [np.asarray(v) for v in ref.run(None, feeds)]
    except Exception:  # an op the reference cannot fold stays in the graph
        return None


# Ops never folded even with constant inputs: random ops would freeze one sample.
_NO_FOLD = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial",
            "Bernoulli", "Dropout"}


def _read(path: str) -> onnx.ModelProto:
    try:
        model = onnx.load(path)
    except FileNotFoundError:
        raise OnnxInputError(f"{path}: no such file") from None
    except Exception as exc:
        raise OnnxInputError(f"{path}: not a readable ONNX model ({type(exc).__name__})") from None
    if not model.graph.node and not model.graph.output:
        raise OnnxInputError(f"{path}: the ONNX graph is empty")
    return model


def _infer_shapes(model: onnx.ModelProto, shapes: dict, dtypes: dict) -> None:
    try:
        model = shape_inference.infer_shapes(model, data_prop=True)
    except Exception:
        return  # shapes stay unknown where inference fails; emitters that need them say so
    g = model.graph
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        shape = _shape_of(vi)
        if shape is not None or vi.name not in shapes:
            shapes[vi.name] = shape
        dtypes[vi.name] = vi.type.tensor_type.elem_type


def _fold(protos: list, consts: dict, shapes: dict, opset: int) -> list:
    """Evaluate what is known; return the protos still to run."""
    live = []
    for proto in protos:
        inputs = [n for n in proto.input if n]
        if proto.domain not in ("", "ai.onnx"):
            live.append(proto)
        elif proto.op_type == "Constant":
            consts[proto.output[0]] = np.asarray(next(iter(_attrs(proto).values())))
        elif proto.op_type == "Shape" and shapes.get(proto.input[0]) is not None:
            attrs = _attrs(proto)
            full = np.array(shapes[proto.input[0]], dtype=np.int64)
            consts[proto.output[0]] = full[slice(attrs.get("start", 0), attrs.get("end"))]
        elif proto.op_type not in _NO_FOLD and all(n in consts for n in inputs):
            results = _evaluate(proto, {n: consts[n] for n in inputs}, opset)
            if results is None:
                live.append(proto)
            else:
                consts.update(zip(proto.output, results))
        else:
            live.append(proto)
    return live


def load_graph(path: str) -> Graph:
    """Read ``path``; alternate shape inference and constant folding until nothing more folds.

    Re-inferring after a fold matters: a Reshape whose target came out of a Shape chain only
    gets a static output shape once that chain is a constant.
    """
    model = _read(path)
    opset = next((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), 0)
    g = model.graph
    consts = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    initializers = set(consts)
    inputs = [i.name for i in g.input if i.name not in consts]
    shapes: dict[str, tuple | None] = {}
    dtypes: dict[str, int] = {}
    protos = list(g.node)
    for _ in range(10):
        current = helper.make_model(
            helper.make_graph(protos, g.name or "g", [i for i in g.input if i.name not in consts],
                              list(g.output),
                              [numpy_helper.from_array(np.asarray(v), k) for k, v in consts.items()
                               if any(k in p.input for p in protos)]),
            opset_imports=list(model.opset_import), ir_version=model.ir_version)
        _infer_shapes(current, shapes, dtypes)
        remaining = _fold(protos, consts, shapes, opset)
        if len(remaining) == len(protos):
            break
        protos = remaining
    for name, arr in consts.items():
        shapes[name] = tuple(arr.shape)
    nodes = [Node(p.op_type, p.name or f"{p.op_type}_{i}", list(p.input), list(p.output), _attrs(p), p)
             for i, p in enumerate(protos)]
    return Graph(nodes, inputs, [o.name for o in g.output], consts, shapes, dtypes, initializers, opset)


def prune(graph: Graph) -> None:
    """Drop nodes whose outputs nothing uses (after fusion some become dead)."""
    needed = set(graph.outputs)
    kept = []
    for node in reversed(graph.nodes):
        if any(o in needed for o in node.outputs):
            kept.append(node)
            needed.update(n for n in node.inputs if n)
    graph.nodes = kept[::-1]


def sanitize(name: str) -> str:
    """A Python identifier from an ONNX name (``stem.0`` -> ``stem_0``)."""
    ident = re.sub(r"\W+", "_", name).strip("_")
    if not ident:
        ident = "v"
    if ident[0].isdigit():
        ident = "v_" + ident
    return ident
