"""Each ONNX op in the table, proven against onnx.reference.ReferenceEvaluator.

A case is a tiny ONNX graph (one node, sometimes two) with runtime inputs and initializers;
the converted MindSpore Cell must reproduce the reference output to rel 1e-4 (1e-5 abs floor).
"""
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from conftest import load_cell, run_ms
from migrate.onnx import convert_onnx

R = np.random.default_rng(0)


def rnd(*shape):
    return R.standard_normal(shape).astype(np.float32)


def i64(*values):
    return np.array(values, dtype=np.int64)


_DTYPES = {np.float32: TensorProto.FLOAT, np.int64: TensorProto.INT64, np.bool_: TensorProto.BOOL,
           np.int32: TensorProto.INT32}


def make_model(nodes, inputs, inits, outputs, opset):
    vi = lambda name, arr: helper.make_tensor_value_info(name, _DTYPES[arr.dtype.type], arr.shape)
    graph = helper.make_graph(
        nodes, "case", [vi(k, v) for k, v in inputs.items()],
        [helper.make_empty_tensor_value_info(o) for o in outputs],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def node(op, inputs, outputs=("y",), **attrs):
    return helper.make_node(op, list(inputs), list(outputs), name=f"/block/{op}", **attrs)


# (id, nodes, runtime inputs, initializers, opset)
CASES = [
    ("Conv", [node("Conv", ["x", "w", "b"], kernel_shape=[3, 3], pads=[1, 0, 2, 1], strides=[2, 1],
                   dilations=[1, 2])], {"x": rnd(2, 4, 9, 9)}, {"w": rnd(6, 4, 3, 3), "b": rnd(6)}, 17),
    ("Conv_group", [node("Conv", ["x", "w"], group=2)], {"x": rnd(1, 4, 5, 5)}, {"w": rnd(6, 2, 3, 3)}, 17),
    ("ConvTranspose", [node("ConvTranspose", ["x", "w", "b"], strides=[2, 2], pads=[1, 1, 1, 1],
                            output_padding=[1, 1], kernel_shape=[3, 3])],
     {"x": rnd(1, 4, 5, 5)}, {"w": rnd(4, 3, 3, 3), "b": rnd(3)}, 17),
    ("BatchNormalization", [node("BatchNormalization", ["x", "g", "b", "m", "v"], epsilon=1e-3)],
     {"x": rnd(2, 3, 4, 4)}, {"g": rnd(3), "b": rnd(3), "m": rnd(3), "v": np.abs(rnd(3)) + 0.5}, 15),
    ("Gemm_linear", [node("Gemm", ["x", "w", "b"], transB=1)], {"x": rnd(3, 5)}, {"w": rnd(4, 5), "b": rnd(4)}, 17),
    ("Gemm_general", [node("Gemm", ["a", "b2", "c"], transA=1, alpha=0.5, beta=2.0)],
     {"a": rnd(5, 3), "b2": rnd(5, 4)}, {"c": rnd(4)}, 17),
    ("MatMul_add_linear", [node("MatMul", ["x", "w"], ["t"]), node("Add", ["b", "t"])],
     {"x": rnd(2, 3, 5)}, {"w": rnd(5, 4), "b": rnd(4)}, 17),
    ("MatMul", [node("MatMul", ["a", "b2"])], {"a": rnd(2, 3, 5), "b2": rnd(2, 5, 4)}, {}, 17),
    ("Relu", [node("Relu", ["x"])], {"x": rnd(3, 4)}, {}, 17),
    ("LeakyRelu", [node("LeakyRelu", ["x"], alpha=0.1)], {"x": rnd(3, 4)}, {}, 17),
    ("Sigmoid", [node("Sigmoid", ["x"])], {"x": rnd(3, 4)}, {}, 17),
    ("Tanh", [node("Tanh", ["x"])], {"x": rnd(3, 4)}, {}, 17),
    ("Erf", [node("Erf", ["x"])], {"x": rnd(3, 4)}, {}, 17),
    ("Gelu_tanh", [node("Gelu", ["x"], approximate="tanh")], {"x": rnd(3, 4)}, {}, 20),
    ("Softmax", [node("Softmax", ["x"], axis=1)], {"x": rnd(2, 3, 4)}, {}, 17),
    ("MaxPool", [node("MaxPool", ["x"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
     {"x": rnd(1, 2, 7, 7)}, {}, 17),
    ("MaxPool_ceil", [node("MaxPool", ["x"], kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)],
     {"x": rnd(1, 2, 7, 7)}, {}, 17),
    ("AveragePool", [node("AveragePool", ["x"], kernel_shape=[3, 3], strides=[1, 1], pads=[1, 1, 1, 1],
                          count_include_pad=1)], {"x": rnd(1, 2, 6, 6)}, {}, 17),
    ("AveragePool_excl", [node("AveragePool", ["x"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])],
     {"x": rnd(1, 2, 6, 6)}, {}, 17),
    ("GlobalAveragePool", [node("GlobalAveragePool", ["x"])], {"x": rnd(2, 3, 5, 4)}, {}, 17),
    ("Resize_nearest", [node("Resize", ["x", "", "s"], mode="nearest",
                             coordinate_transformation_mode="asymmetric", nearest_mode="floor")],
     {"x": rnd(1, 2, 3, 4)}, {"s": np.array([1, 1, 2, 2], np.float32)}, 17),
    ("Resize_bilinear", [node("Resize", ["x", "", "s"], mode="linear",
                              coordinate_transformation_mode="half_pixel")],
     {"x": rnd(1, 2, 3, 4)}, {"s": np.array([1, 1, 2, 2], np.float32)}, 17),
    ("Resize_align_corners", [node("Resize", ["x", "", "", "sz"], mode="linear",
                                   coordinate_transformation_mode="align_corners")],
     {"x": rnd(1, 2, 3, 4)}, {"sz": i64(1, 2, 7, 5)}, 17),
    ("Concat", [node("Concat", ["a", "b2"], axis=1)], {"a": rnd(2, 3), "b2": rnd(2, 2)}, {}, 17),
    ("Split", [node("Split", ["x", "s"], ["y", "z"], axis=1)], {"x": rnd(2, 5)}, {"s": i64(2, 3)}, 17),
    ("Split_even", [node("Split", ["x"], ["y", "z"], axis=0, num_outputs=2)], {"x": rnd(4, 3)}, {}, 18),
    ("Slice", [node("Slice", ["x", "st", "en", "ax", "sp"])], {"x": rnd(4, 6, 5)},
     {"st": i64(1, -4), "en": i64(9223372036854775807, -1), "ax": i64(1, 2), "sp": i64(2, 1)}, 17),
    ("Slice_reverse", [node("Slice", ["x", "st", "en", "ax", "sp"])], {"x": rnd(4, 6)},
     {"st": i64(-1), "en": i64(-9223372036854775807), "ax": i64(1), "sp": i64(-1)}, 17),
    ("Gather_scalar", [node("Gather", ["x", "i"], axis=1)], {"x": rnd(2, 3, 4)}, {"i": np.array(-1, np.int64)}, 17),
    ("Gather_list", [node("Gather", ["x", "i"], axis=2)], {"x": rnd(2, 3, 4)}, {"i": i64(3, 0, 0)}, 17),
    ("Gather_embedding", [node("Gather", ["w", "ids"])], {"ids": i64(1, 4, 4, 0).reshape(2, 2)},
     {"w": rnd(5, 3)}, 17),
    ("Reshape", [node("Reshape", ["x", "s"])], {"x": rnd(2, 3, 4)}, {"s": i64(0, -1, 2)}, 17),
    ("Transpose", [node("Transpose", ["x"], perm=[2, 0, 1])], {"x": rnd(2, 3, 4)}, {}, 17),
    ("Flatten", [node("Flatten", ["x"], axis=2)], {"x": rnd(2, 3, 4, 5)}, {}, 17),
    ("Squeeze", [node("Squeeze", ["x", "a"])], {"x": rnd(2, 1, 3, 1)}, {"a": i64(1, -1)}, 17),
    ("Unsqueeze", [node("Unsqueeze", ["x", "a"])], {"x": rnd(2, 3)}, {"a": i64(0, -1)}, 17),
    ("Add", [node("Add", ["a", "b2"])], {"a": rnd(2, 3), "b2": rnd(3)}, {}, 17),
    ("Sub_const", [node("Sub", ["a", "c"])], {"a": rnd(2, 3)}, {"c": rnd(2, 3)}, 17),
    ("Mul_scalar", [node("Mul", ["a", "c"])], {"a": rnd(2, 3)}, {"c": np.array(3.0, np.float32)}, 17),
    ("Div", [node("Div", ["a", "b2"])], {"a": rnd(2, 3), "b2": np.abs(rnd(2, 3)) + 1}, {}, 17),
    ("Pow", [node("Pow", ["a", "c"])], {"a": np.abs(rnd(2, 3))}, {"c": np.array(2.5, np.float32)}, 17),
    ("Sqrt", [node("Sqrt", ["a"])], {"a": np.abs(rnd(2, 3))}, {}, 17),
    ("ReduceMean", [node("ReduceMean", ["x", "a"], keepdims=1)], {"x": rnd(2, 3, 4)}, {"a": i64(-1, 1)}, 18),
    ("ReduceMean_attr", [node("ReduceMean", ["x"], axes=[1], keepdims=0)], {"x": rnd(2, 3, 4)}, {}, 17),
    ("ReduceSum", [node("ReduceSum", ["x", "a"], keepdims=0)], {"x": rnd(2, 3, 4)}, {"a": i64(0, 2)}, 17),
    ("Pad_constant", [node("Pad", ["x", "p", "v"])], {"x": rnd(1, 2, 3, 3)},
     {"p": i64(0, 0, 1, 2, 0, 0, 3, 0), "v": np.array(0.5, np.float32)}, 17),
    ("Pad_reflect", [node("Pad", ["x", "p"], mode="reflect")], {"x": rnd(1, 2, 4, 4)},
     {"p": i64(0, 0, 1, 2, 0, 0, 2, 1)}, 17),
    ("Clip", [node("Clip", ["x", "lo", "hi"])], {"x": rnd(3, 4) * 8},
     {"lo": np.array(0, np.float32), "hi": np.array(6, np.float32)}, 17),
    ("Where", [node("Greater", ["x", "z"], ["m"]), node("Where", ["m", "x", "f"])], {"x": rnd(3, 4)},
     {"z": np.array(0.0, np.float32), "f": np.array(-1.0, np.float32)}, 17),
    ("Expand", [node("Expand", ["x", "s"])], {"x": rnd(3, 1)}, {"s": i64(2, 3, 4)}, 17),
    ("Cast_Equal", [node("Equal", ["a", "b2"], ["e"]), node("Cast", ["e"], to=TensorProto.FLOAT)],
     {"a": i64(1, 2, 3), "b2": i64(1, 0, 3)}, {}, 17),
    ("LayerNormalization", [node("LayerNormalization", ["x", "g", "b"], axis=-1, epsilon=1e-5)],
     {"x": rnd(2, 3, 4)}, {"g": rnd(4), "b": rnd(4)}, 17),
    ("Identity", [node("Identity", ["x"], ["t"]), node("Relu", ["t"])], {"x": rnd(3)}, {}, 17),
    ("shape_chain", [node("Shape", ["x"], ["s"]), node("Gather", ["s", "zero"], ["n"], axis=0),
                     node("Unsqueeze", ["n", "zero1"], ["n1"]), node("Concat", ["n1", "m1"], ["shp"], axis=0),
                     node("Reshape", ["x", "shp"])],
     {"x": rnd(2, 3, 4)}, {"zero": np.array(0, np.int64), "zero1": i64(0), "m1": i64(-1)}, 17),
]


@pytest.mark.parametrize("nodes,inputs,inits,opset", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_op_matches_reference(tmp_path, nodes, inputs, inits, opset):
    outputs = [o for o in nodes[-1].output]
    model = make_model(nodes, inputs, inits, outputs, opset)
    want = ReferenceEvaluator(model).run(None, inputs)
    path = tmp_path / "case.onnx"
    onnx.save(model, str(path))
    report = convert_onnx(str(path), str(tmp_path / "out"))
    assert report.unsupported == []
    net, _ = load_cell(report)
    got = run_ms(net, list(inputs.values()))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-4, atol=1e-5)


def test_shape_chain_becomes_literal(tmp_path):
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape is resolved to one literal reshape."""
    nodes, inputs, inits, opset = next(c[1:] for c in CASES if c[0] == "shape_chain")
    path = tmp_path / "chain.onnx"
    onnx.save(make_model(nodes, inputs, inits, ["y"], opset), str(path))
    report = convert_onnx(str(path), str(tmp_path / "out"))
    code = open(report.code_path).read()
    assert "y = ops.reshape(x, (2, -1))" in code.replace("block_reshape", "y")
    assert report.ops_folded == 4 and report.ops_converted == {"Reshape": 1}
