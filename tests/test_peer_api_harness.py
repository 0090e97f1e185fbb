"""benchmarks/peer_api_tests.py reads a peer's test file as written and classes a comparison as it says (issue 30).
No framework runs here: the extractor and the comparison are plain Python and numpy."""
import importlib.util
from pathlib import Path

import numpy as np

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "peer_api_tests.py"
_spec = importlib.util.spec_from_file_location("peer_api_tests", _PATH)
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)

SOURCE = '''
import textwrap
from apibase import APIBase
from optimizer_helper import generate_optimizer_test_code

obj = APIBase("torch.abs")


def test_case_1():
    pytorch_code = textwrap.dedent(
        """
        import torch
        result = torch.abs(torch.tensor([-1, -2, 3]))
        """
    )
    obj.run(pytorch_code, ["result"], rtol=1.0e-5, check_dtype=False)


def test_case_2():
    pytorch_code = textwrap.dedent(generate_optimizer_test_code("torch.optim.SGD(conv.parameters(), lr=0.1)"))
    obj.run(pytorch_code, ["result"])


def test_case_3():
    pytorch_code = textwrap.dedent("""import torch""")
    obj.run(pytorch_code, expect_paddle_code="x")
'''


def test_extract_reads_snippets_names_options_and_generated_code(tmp_path):
    (tmp_path / "optimizer_helper.py").write_text(
        "def generate_optimizer_test_code(init):\n    return f'''\n    import torch\n    opt = {init}\n    '''\n")
    cases = peer.extract(SOURCE, "test_abs.py", tmp_path)
    assert [c["id"] for c in cases] == ["test_abs.py::test_case_1", "test_abs.py::test_case_2"]
    first, second = cases
    assert first["api"] == "torch.abs" and first["names"] == ["result"]
    assert first["code"].startswith("\nimport torch\nresult = torch.abs(")
    assert first["rtol"] == 1e-5 and first["check_dtype"] is False and first["check_value"] is True
    assert "opt = torch.optim.SGD(conv.parameters(), lr=0.1)" in second["code"]


def test_forms_subset_is_call_forms_not_names_that_end_in_out():
    cases = [{"code": c} for c in ("y = torch.abs(x, out=o)", "F.relu(x, inplace=True)", "torch._foreach_abs_(xs)",
                                   "layout=torch.strided", "nn.Dropout(p=0.5)", "out = torch.abs(x)")]
    assert [c["code"] for c in peer.select(cases, "forms", [])] == [c["code"] for c in cases[:3]]


CASE = {"rtol": 1e-6, "atol": 0.0, "check_value": True, "check_dtype": True, "check_shape": True}


def _a(values, dtype="float32"):
    return ("array", np.asarray(values, dtype=dtype), dtype)


def test_compare_classes():
    assert peer.compare(_a([1.0, 2.0]), _a([1.0, 2.0]), CASE)[0] == "pass"
    assert peer.compare(_a([1.0, 2.0]), _a([1.0, 2.00005]), CASE)[0] == "precision"
    assert peer.compare(_a([1.0, 2.0]), _a([1.0, 2.1]), CASE)[0] == "wrong"
    assert peer.compare(_a([1.0, 2.0]), _a([[1.0, 2.0]]), CASE)[0] == "wrong"  # another shape
    assert peer.compare(_a([1, 2], "int64"), _a([1, 2], "int32"), CASE)[0] == "dtype"
    assert peer.compare(_a([1, 2], "int64"), _a([1, 2], "int32"), {**CASE, "check_dtype": False})[0] == "pass"
    assert peer.compare(("seq", [_a([1.0]), _a([2.0])]), ("seq", [_a([1.0])]), CASE)[0] == "wrong"
    assert peer.compare(_a([1.0]), ("other", "builtin_function_or_method"), CASE)[0] == "wrong"
    assert peer.compare(("device", "cuda"), ("scalar", "GPU"), CASE)[0] == "pass"
    assert peer.compare(("scalar", 3), _a(3, "int64"), CASE)[0] == "pass"
