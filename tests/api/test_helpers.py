"""Composed ops (migrate/helpers): torch APIs with no MindSpore 2.10 CPU kernel, written into the converted file as
plain MindSpore code. Each is proven against torch on CPU, in the call styles people write; the emission itself
(placement, idempotence, packages) is tested below."""
import ast
import subprocess
import sys
import textwrap

import pytest

from migrate import convert_source, helpers
from tests.api.cases import HEADER, call_cases, layer_cases
from tests.harness import rng_array, run_case

IMG = {"x": rng_array(2, 3, 8, 8)}
SEQ = {"x": rng_array(2, 3, 10)}
QKV = {"q": rng_array(2, 2, 5, 4), "k": rng_array(2, 2, 6, 4, seed=1), "v": rng_array(2, 2, 6, 3, seed=2)}
EIN = {"a": rng_array(2, 3, 4), "b": rng_array(2, 4, 5, seed=1), "m": rng_array(3, 4, seed=2),
       "v": rng_array(4, seed=3)}
MATMUL = dict(rtol=1e-5, atol=1e-5, why_tolerance="matmul / softmax reductions in another order (float32 rounding)")

CASES = [
    *call_cases("torch.roll", ["torch.roll(x, 1, 2)", "torch.roll(x, shifts=-2, dims=3)", "torch.roll(x, 3)",
                               "torch.roll(x, (1, 2), (2, 3))", "torch.roll(dims=(0, -1), input=x, shifts=(1, -5))",
                               "torch.roll(x, s, d)"], IMG, prelude="s, d = 2, -2"),
    *call_cases("torch.corrcoef", ["torch.corrcoef(x)", "torch.corrcoef(input=x)", "torch.corrcoef(x[0])"],
                {"x": rng_array(3, 6)}, **MATMUL),
    *call_cases("Tensor.corrcoef", ["x.corrcoef()", "x.t().corrcoef()"], {"x": rng_array(4, 5, dtype="float64")}),
    *call_cases("Tensor.roll", ["x.roll(1, 0)", "x.roll(shifts=2, dims=-1)", "x.roll(5)", "x.roll((1, 1), (1, 2))"],
                IMG),
    *call_cases("torch.einsum", ["torch.einsum('bij,bjk->bik', a, b)", "torch.einsum('ij,bjk->bik', m, b)",
                                 "torch.einsum('bij->bji', a)", "torch.einsum('bij,j->bi', a, v)",
                                 "torch.einsum('...ij,...jk->...ik', a, b)", "torch.einsum('bij,bjk', a, b)",
                                 "torch.einsum('ij,ij->', m, m)", "torch.einsum('i,j->ij', v, v)",
                                 "torch.einsum('bij,bjk,kl->bil', a, b, torch.ones(5, 2))",
                                 "torch.einsum('bij,bjk->bik', [a, b])", "torch.einsum(eq, a, b)"],
                EIN, prelude="eq = 'bij,bjk->bik'", **MATMUL),
    *call_cases("torch.nn.functional.scaled_dot_product_attention", [
        "F.scaled_dot_product_attention(q, k, v)", "F.scaled_dot_product_attention(q, k, v, scale=0.5)",
        "F.scaled_dot_product_attention(query=q, key=k, value=v, attn_mask=mask)",
        "F.scaled_dot_product_attention(q, k, v, fmask)",
        "F.scaled_dot_product_attention(q, k[:, :, :5], v[:, :, :5], is_causal=True)",
        "F.scaled_dot_product_attention(q, k, v, None, 0.0, False)"],
        QKV, prelude="mask = torch.ones(5, 6).tril().bool()\nfmask = torch.linspace(-1, 1, 30).reshape(5, 6)",
        **MATMUL),
    *call_cases("torch.nn.functional.layer_norm", ["F.layer_norm(x, shape)", "F.layer_norm(x, x.shape[-2:])",
                                                   "F.layer_norm(x, shape, w, b, 1e-3)",
                                                   "F.layer_norm(input=x, normalized_shape=shape, eps=1e-6)"],
                IMG, prelude="shape = (8,)\nw = torch.linspace(0.5, 1.5, 8)\nb = torch.linspace(-1, 1, 8)",
                rtol=1e-5, atol=1e-5, why_tolerance="variance accumulated in another order (float32 rounding)"),
    *call_cases("torch.nn.functional.instance_norm", ["F.instance_norm(x)", "F.instance_norm(x, eps=1e-3)",
                                                      "F.instance_norm(x, None, None, w, b)",
                                                      "F.instance_norm(input=x, weight=w, bias=b, eps=1e-5)"],
                IMG, prelude="w = torch.linspace(0.5, 1.5, 3)\nb = torch.linspace(-1, 1, 3)",
                rtol=1e-5, atol=1e-5, why_tolerance="variance accumulated in another order (float32 rounding)"),
    *layer_cases("torch.nn.InstanceNorm2d", ["nn.InstanceNorm2d(3)", "nn.InstanceNorm2d(3, affine=True)",
                                             "nn.InstanceNorm2d(num_features=3, eps=1e-3, affine=True)",
                                             "nn.InstanceNorm2d(c, 1e-5, 0.1, True, False)"],
                 prelude="c = 3", inputs=IMG, rtol=1e-5, atol=1e-5,
                 why_tolerance="variance accumulated in another order (float32 rounding)"),
    *layer_cases("torch.nn.InstanceNorm1d", ["nn.InstanceNorm1d(3)", "nn.InstanceNorm1d(3, affine=True)",
                                             "nn.InstanceNorm1d(affine=True, num_features=3)"],
                 inputs=SEQ, rtol=1e-5, atol=1e-5, why_tolerance="variance accumulated in another order"),
    # track_running_stats: a training call updates the running statistics as torch does, inference uses them
    *layer_cases("torch.nn.InstanceNorm2d", ["nn.InstanceNorm2d(3, track_running_stats=True, momentum=0.3)"],
                 inputs=IMG, run="m.train()\nm(x)\nm(x * 2 + 1)\nm.eval()\nout = m(x)", rtol=1e-5, atol=1e-5,
                 why_tolerance="variance accumulated in another order"),
    *layer_cases("torch.nn.ConvTranspose2d", ["nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)",
                                              "nn.ConvTranspose2d(3, 4, 3, 2, 1, 1)",
                                              "nn.ConvTranspose2d(3, 6, (3, 2), stride=(2, 3), output_padding=(1, 2), groups=3, bias=False)",
                                              "nn.ConvTranspose2d(in_channels=3, out_channels=2, kernel_size=2, stride=2, output_padding=op, dilation=2)"],
                 prelude="op = 1", inputs=IMG, **MATMUL),
    *layer_cases("torch.nn.ConvTranspose2d", ["nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)"],
                 inputs=IMG, run="out = m(x, output_size=(16, 16))", **MATMUL),
    *call_cases("torch.nn.functional.conv_transpose2d", [
        "F.conv_transpose2d(x, w)", "F.conv_transpose2d(x, w, b, 2, 1, 1)",
        "F.conv_transpose2d(x, w, stride=2, padding=1, output_padding=1, bias=b)",
        "F.conv_transpose2d(input=x, weight=wg, groups=3, stride=(2, 1))"],
        IMG, prelude="w = torch.linspace(-1, 1, 108).reshape(3, 4, 3, 3)\nb = torch.linspace(0, 1, 4)\n"
                     "wg = torch.linspace(-1, 1, 54).reshape(3, 2, 3, 3)", **MATMUL),
    *call_cases("torch.nn.functional.conv3d", [
        "F.conv3d(v, w)", "F.conv3d(v, w, b, 2, 1)", "F.conv3d(input=v, weight=w, padding='same')",
        "F.conv3d(v, w, stride=(1, 2, 1), padding=(1, 0, 1), dilation=1)"],
        {"v": rng_array(1, 2, 5, 6, 5)},
        prelude="w = torch.linspace(-1, 1, 108).reshape(2, 2, 3, 3, 3)\nb = torch.linspace(0, 1, 2)", **MATMUL),
    *layer_cases("torch.nn.MaxPool2d", ["nn.MaxPool2d(2, return_indices=True)",
                                        "nn.MaxPool2d(kernel_size=3, stride=2, padding=1, return_indices=True)",
                                        "nn.MaxPool2d(3, 2, 1, return_indices=True, ceil_mode=True)"],
                 inputs=IMG, run="out, idx = m(x)", names=("out", "idx")),
    *layer_cases("torch.nn.MaxUnpool2d", ["nn.MaxUnpool2d(2)", "nn.MaxUnpool2d(kernel_size=2, stride=2)",
                                          "nn.MaxUnpool2d(2, 2, 0)"],
                 prelude="pool = nn.MaxPool2d(2, return_indices=True)", inputs=IMG,
                 run="y, idx = pool(x)\nout = m(y, idx)\nout2 = m(y, idx, output_size=x.size())",
                 names=("out", "out2")),
    *call_cases("torch.nn.functional.max_unpool2d", ["F.max_unpool2d(y, idx, 2)", "F.max_unpool2d(y, idx, 2, 2, 0)",
                                                     "F.max_unpool2d(y, idx, kernel_size=2, output_size=(9, 9))"],
                {"x": rng_array(2, 3, 9, 9)}, prelude="y, idx = F.max_pool2d(x[:, :, :8, :8], 2, return_indices=True)"),
    *layer_cases("torch.nn.Unfold", ["nn.Unfold(3)", "nn.Unfold(kernel_size=(2, 3), stride=2)",
                                     "nn.Unfold(3, 2, 1, 2)", "nn.Unfold(kernel_size=k, padding=1)"],
                 prelude="k = 3", inputs=IMG),
    *layer_cases("torch.nn.Fold", ["nn.Fold((8, 8), 3)", "nn.Fold(output_size=(8, 8), kernel_size=3, padding=1)",
                                   "nn.Fold(8, 2, stride=2)"],
                 prelude="unf = nn.Unfold(3)", inputs=IMG,
                 run="cols = unf(x) if m.kernel_size == 3 and m.padding == 0 else nn.Unfold(m.kernel_size, "
                     "padding=m.padding, stride=m.stride)(x)\nout = m(cols)"),
    *call_cases("torch.nn.functional.fold", ["F.fold(cols, (8, 8), 3)", "F.fold(cols, output_size=(8, 8), kernel_size=3)"],
                IMG, prelude="cols = F.unfold(x, 3)"),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_helper(case):
    code = run_case(case)
    assert "msmigrate" not in "".join(ln for ln in code.splitlines() if ln.startswith(("import", "from")))
    from migrate.mapping import load_table

    entry = load_table().lookup(case.apis[0]) or load_table().methods.get(case.apis[0].rsplit(".", 1)[-1])
    if entry.helper:  # every case here takes the helper's branch
        assert helpers.BANNER in code  # the composition is in the file itself


def test_composed_layers_pass_parity_forward_and_backward():
    """A SegNet-style block (InstanceNorm, MaxPool indices + MaxUnpool, roll, einsum, layer_norm of a run-time
    shape, a transposed conv with output_padding), converted, weights copied, compared layer by layer and in
    every gradient by migrate.parity."""
    import torch

    from migrate.parity import compare

    src = HEADER + textwrap.dedent("""
        class Block(nn.Module):
            def __init__(self):
                super().__init__()
                self.inorm = nn.InstanceNorm2d(3, affine=True)
                self.pool = nn.MaxPool2d(2, return_indices=True)
                self.unpool = nn.MaxUnpool2d(2)
                self.up = nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1)

            def forward(self, x):
                y, idx = self.pool(self.inorm(x))
                x = self.unpool(y, idx, output_size=x.shape)
                x = F.layer_norm(x, x.shape[-1:])
                x = torch.roll(x, 1, 2) + torch.einsum("bchw,c->bchw", x, torch.ones(3))
                return self.up(x)
        """)
    result = convert_source(src)
    assert not result.unsupported, result.unsupported
    t_ns, m_ns = {}, {}
    exec(compile(src, "<torch>", "exec"), t_ns)
    exec(compile(result.code, "<ms>", "exec"), m_ns)
    torch.manual_seed(0)
    tm = t_ns["Block"]()
    with torch.no_grad():
        tm.inorm.weight.uniform_(0.5, 1.5)
        tm.inorm.bias.uniform_(-0.5, 0.5)
    report = compare(tm, m_ns["Block"](), rng_array(2, 3, 8, 8))
    assert report.passed, report.table(color=False)
    assert {"inorm.gamma", "up.weight"} <= {g["ms_name"] for g in report.to_dict()["grads"]}


# ------------------------------------------------------------------------------ emission
def test_helpers_go_after_the_imports_once_and_converting_again_adds_nothing():
    src = '"""doc."""\nfrom __future__ import annotations\nimport os\nimport torch\n\nX = 1\n\n\ndef f(x):\n' \
          '    return torch.roll(x, 1) + torch.roll(x, 2)\n'
    code = convert_source(src).code
    tree = ast.parse(code)
    names = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert names == ["_msmigrate_roll", "f"]
    assert code.index("from __future__") < code.index(helpers.BANNER) < code.index("X = 1")
    assert code.count("def _msmigrate_roll(") == 1
    assert convert_source(code).code == code
    assert helpers.emit(code) == code


def test_helper_bodies_are_not_converted_again_where_torch_stays_imported():
    """A helper's body is MindSpore code: converting the output again (torch still imported for a marked name)
    leaves it alone (``spec.type(children)`` in the pytree helper is no Tensor.type; torch's flex_attention.py)."""
    src = ("import torch\nfrom torch.utils._pytree import tree_flatten, tree_unflatten, GetAttrKey\n\n\n"
           "def f(x):\n    leaves, spec = tree_flatten((x, [x]))\n    return tree_unflatten(leaves, spec), GetAttrKey\n")
    code = convert_source(src).code
    assert "def _msmigrate_tree_unflatten(" in code and "from torch.utils._pytree import GetAttrKey" in code
    assert convert_source(code).code == code


def test_a_file_that_uses_no_helper_is_unchanged_by_emit():
    code = convert_source(HEADER + "y = torch.flip(x, [0])\n").code
    assert helpers.BANNER not in code and helpers.emit(code) == code


def test_helpers_pull_in_what_they_require():
    code = convert_source(HEADER + "m = nn.ConvTranspose2d(3, 4, 3, 2, 1, 1)\n").code
    assert "class _MsmigrateConvTranspose2d(nn.Cell)" in code and "def _msmigrate_conv_transpose2d(" in code
    ast.parse(code)


def test_every_template_is_valid_and_names_its_definitions():
    reg = helpers.registry()
    assert {"roll", "einsum", "instance_norm", "conv_transpose2d", "scaled_dot_product_attention", "unfold",
            "max_pool2d_indices", "layer_norm"} <= set(reg)
    for h in reg.values():
        tree = ast.parse(h.source)
        assert all(n.name.startswith(("_msmigrate_", "_Msmigrate")) for n in tree.body
                   if isinstance(n, (ast.FunctionDef, ast.ClassDef)))
        assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) and "torch" in ast.dump(n) for n in ast.walk(tree))


def test_table_entries_name_known_helpers():
    from migrate.mapping import load_table

    with_helper = [e for e in load_table().entries if e.helper]
    assert len(with_helper) >= 12
    assert all(e.helper in helpers.registry() for e in with_helper)


def test_a_converted_package_runs_with_relative_imports(tmp_path):
    """Each converted file carries the helpers it uses: a package with relative imports runs as is."""
    pkg = tmp_path / "src" / "pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("from .ops import shift\n")
    (pkg / "ops.py").write_text("import torch\nfrom .inner import twice\n\n\ndef shift(x):\n"
                                "    return twice(torch.roll(x, 1, 0))\n")
    (pkg / "inner.py").write_text("import torch\n\n\ndef twice(x):\n    return torch.einsum('i,i->i', x, x) * 0 + 2 * x\n")
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "migrate.cli", "convert", str(tmp_path / "src"), "-o", str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr + r.stdout
    run = subprocess.run([sys.executable, "-c", "import numpy as np, mindspore as ms, pkg\n"
                          "print(pkg.shift(ms.Tensor(np.arange(4, dtype=np.float32))).asnumpy().tolist())"],
                         capture_output=True, text=True, cwd=out)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[6.0, 0.0, 2.0, 4.0]"
    for f in ("ops.py", "inner.py"):
        assert "msmigrate" not in "".join(ln for ln in (out / "pkg" / f).read_text().splitlines()
                                          if ln.startswith(("import", "from")))


def test_crlf_input_gives_the_crlf_form_of_the_lf_output():
    src = "import torch\n\n\ndef f(x):\n    return torch.roll(x, 1)\n"
    lf = convert_source(src).code
    crlf = convert_source(src.replace("\n", "\r\n")).code
    assert crlf == lf.replace("\n", "\r\n")


def test_a_file_binding_nn_itself_keeps_it_and_the_helpers_use_a_private_name():
    src = HEADER + "import numpy\nnn_like = 1\nnp = numpy\n\n\nclass M(nn.Module):\n    def __init__(self):\n" \
          "        super().__init__()\n        self.u = nn.Unfold(3)\n"
    code = helpers.emit("import mindspore as ms\nops = 3\n\n\ndef f(x):\n    return _msmigrate_roll(x, 1)\n")
    assert "from mindspore import ops as _msmigrate_ops" in code and "_msmigrate_ops.cat(" in code
    assert "\nops = 3\n" in code
    assert convert_source(src).code.count("def _msmigrate") == 0  # Unfold is a Cell: no function helper
