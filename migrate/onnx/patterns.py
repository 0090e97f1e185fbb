"""Recognise layers the TorchScript exporter splits into several ONNX nodes.

Each pattern is a function ``(graph, node, users) -> Node | None`` that looks at the chain
starting at ``node``; when it matches, the chain's nodes are replaced by one fused node
(placed where the chain's last node was, so topological order holds).  Fused ops:

- ``Dense``     MatMul(x, W) [+ Add(b)] with constant W / b, or Gemm with a constant B  (nn.Linear)
- ``GroupNorm`` Reshape(x, [0, G, -1]) -> InstanceNormalization -> Reshape(x.shape) [-> Mul(g) -> Add(b)]
- ``Gelu``      Div(x, sqrt 2) -> Erf -> Add(1) -> Mul(x) -> Mul(0.5)   (exact GELU before opset 20)
"""
from __future__ import annotations

import numpy as np

from .graph import Graph, Node


def _only_user(users, name: str, op: str) -> Node | None:
    """The single consumer of ``name`` if it exists and has type ``op``."""
    found = users.get(name, [])
    if len(found) == 1 and found[0] is not None and found[0].op == op:
        return found[0]
    return None


def _other(node: Node, name: str) -> str:
    a, b = node.inputs
    return b if a == name else a


def _scalar(graph: Graph, name: str) -> float | None:
    arr = graph.consts.get(name)
    return float(arr.reshape(-1)[0]) if arr is not None and arr.size == 1 else None


def _layer_name(graph: Graph, node: Node, weight: str, bias: str | None) -> str:
    """Module path for a fused layer: a real initializer name wins over the node scope.

    ``fc.weight`` -> ``fc``; a transposed weight has no name, but ``attn.in_proj_bias``
    still gives ``attn.in_proj``.
    """
    for name, suffix in ((weight, "weight"), (bias, "bias")):
        if name in graph.initializer_names and not name.startswith("onnx::") and "." in name:
            path, last = name.rsplit(".", 1)
            return path if last == suffix else f"{path}.{last.removesuffix('_' + suffix)}"
    return node.module_path


def dense(graph: Graph, node: Node, users) -> tuple[Node, list[Node]] | None:
    c = graph.consts
    if node.op == "Gemm":
        x, w = node.inputs[0], node.inputs[1]
        bias = node.inputs[2] if len(node.inputs) > 2 and node.inputs[2] else None
        if (x in c or w not in c or c[w].ndim != 2 or node.attr("transA", 0)
                or node.attr("alpha", 1.0) != 1.0 or (bias and node.attr("beta", 1.0) != 1.0)):
            return None
        if bias and (bias not in c or c[bias].ndim != 1):
            return None
        weight = c[w] if node.attr("transB", 0) else c[w].T
        chain, out, b, bias_name = [node], node.outputs[0], (c[bias] if bias else None), bias
    elif node.op == "MatMul":
        x, w = node.inputs
        if x in c or w not in c or c[w].ndim != 2:
            return None
        weight, chain, out, b, bias_name = c[w].T, [node], node.outputs[0], None, None
        add = _only_user(users, out, "Add")
        if add is not None:
            other = _other(add, out)
            if other in c and c[other].shape == (weight.shape[0],):
                chain, out, b, bias_name = [node, add], add.outputs[0], c[other], other
    else:
        return None
    fused = Node("Dense", node.name, [x], [out],
                 {"weight": np.ascontiguousarray(weight), "bias": b,
                  "path": _layer_name(graph, node, w, bias_name)})
    return fused, chain


def group_norm(graph: Graph, node: Node, users) -> tuple[Node, list[Node]] | None:
    c = graph.consts
    if node.op != "Reshape" or node.inputs[1] not in c:
        return None
    target = c[node.inputs[1]].reshape(-1)
    x = node.inputs[0]
    shape = graph.shapes.get(x)
    if shape is None or len(target) != 3 or target[0] not in (0, shape[0]) or target[2] != -1:
        return None
    inorm = _only_user(users, node.outputs[0], "InstanceNormalization")
    if inorm is None or not all(n in c for n in inorm.inputs[1:]):
        return None
    if not (np.all(c[inorm.inputs[1]] == 1) and np.all(c[inorm.inputs[2]] == 0)):
        return None
    back = _only_user(users, inorm.outputs[0], "Reshape")
    if back is None or back.inputs[1] not in c or tuple(c[back.inputs[1]]) != tuple(shape):
        return None
    chain, out = [node, inorm, back], back.outputs[0]
    channels = shape[1]
    attrs = {"groups": int(target[1]), "channels": channels, "eps": inorm.attr("epsilon", 1e-5),
             "gamma": None, "beta": None, "path": inorm.module_path}
    mul = _only_user(users, out, "Mul")
    if mul is not None and _other(mul, out) in c and c[_other(mul, out)].size == channels:
        add = _only_user(users, mul.outputs[0], "Add")
        other = add and _other(add, mul.outputs[0])
        if add is not None and other in c and c[other].size == channels:
            attrs["gamma"] = c[_other(mul, out)].reshape(-1)
            attrs["beta"] = c[other].reshape(-1)
            chain, out = chain + [mul, add], add.outputs[0]
    return Node("GroupNorm", inorm.name, [x], [out], attrs), chain


def gelu_erf(graph: Graph, node: Node, users) -> tuple[Node, list[Node]] | None:
    if node.op != "Div" or node.inputs[1] not in graph.consts:
        return None
    if not np.isclose(_scalar(graph, node.inputs[1]) or 0.0, np.sqrt(2.0), rtol=1e-4):
        return None
    x = node.inputs[0]
    erf = _only_user(users, node.outputs[0], "Erf")
    add = erf and _only_user(users, erf.outputs[0], "Add")
    if add is None or _scalar(graph, _other(add, erf.outputs[0])) != 1.0:
        return None
    mul = _only_user(users, add.outputs[0], "Mul")
    if mul is None or _other(mul, add.outputs[0]) != x:
        return None
    half = _only_user(users, mul.outputs[0], "Mul")
    if half is None or _scalar(graph, _other(half, mul.outputs[0])) != 0.5:
        return None
    return Node("Gelu", node.name, [x], [half.outputs[0]], {"approximate": "none"}), [node, erf, add, mul, half]


PATTERNS = [dense, group_norm, gelu_erf]


def fuse(graph: Graph) -> None:
    """Apply every pattern until none matches; replaces chains in ``graph.nodes`` in place."""
    changed = True
    while changed:
        changed = False
        users = graph.consumers()
        for node in graph.nodes:
            for pattern in PATTERNS:
                match = pattern(graph, node, users)
                if match is None:
                    continue
                fused, chain = match
                # intermediate results of the chain must not be used outside it
                inner = {o for n in chain[:-1] for o in n.outputs}
                if any(u not in chain for o in inner for u in users.get(o, [])):
                    continue
                last = max(graph.nodes.index(n) for n in chain)
                graph.nodes[last] = fused
                gone = {id(n) for n in chain}
                graph.nodes = [n for n in graph.nodes if n is fused or id(n) not in gone]
                changed = True
                break
            if changed:
                break
