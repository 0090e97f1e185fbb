"""Notebooks: `msmigrate convert/scan/lint` on .ipynb files as a user runs them, and the join/mask/split pieces."""
import json

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from examples.notebook.make_tutorial import notebook as tutorial
from migrate.cli import main
from migrate.notebook import Joined, convert_notebook, join, json_line, mask_cell


def _write(path, nb):
    nbformat.write(nb, path)
    return path


def _cells(path):
    return nbformat.read(path, as_version=4).cells


@pytest.fixture
def tut(tmp_path):
    return _write(tmp_path / "tutorial.ipynb", tutorial())


# ---- the tutorial notebook, through the CLI ---------------------------------------------------------------------

def test_tutorial_converts_cell_by_cell(tut, tmp_path, capsys):
    out = tmp_path / "ms"
    before = tut.read_bytes()
    assert main(["convert", str(tut), "-o", str(out), "--report", str(tmp_path / "r.json")]) == 3
    stdout = capsys.readouterr().out
    assert tut.read_bytes() == before  # the source is never touched
    # report lines name the cell and the line within it (cell 9 starts with %%time, then optimizer, criterion)
    assert f"{tut}:cell 11:line 1: unsupported torch.fmin" in stdout
    report = json.loads((tmp_path / "r.json").read_text())
    assert {(u["cell"], u["line"], u["api"]) for u in report["unsupported"]} == {(11, 1, "torch.fmin")}

    nb = nbformat.read(out / "tutorial.ipynb", as_version=4)
    nbformat.validate(nb)
    orig = tutorial()
    assert [c.id for c in nb.cells] == [c.id for c in orig.cells]
    assert nb.metadata == orig.metadata
    for new, old in zip(nb.cells, orig.cells):
        assert new.cell_type == old.cell_type
        if old.cell_type != "code":  # markdown and raw cells are kept as written
            assert new.source == old.source and new.metadata == old.metadata
        else:  # outputs came from torch: cleared
            assert new.outputs == [] and new.execution_count is None
    src = [c.source for c in nb.cells]
    # IPython syntax kept exactly as written
    assert src[1] == orig.cells[1].source
    assert src[9] == orig.cells[9].source  # %%bash cell untouched
    assert src[8].startswith("%%time\n")
    assert "model?" in src[5].splitlines()
    assert "files = !ls" in src[10].splitlines() and "%timeit model(x)" in src[10].splitlines()
    # the imports of cell 3 apply to cell 5 and cell 9: one module
    assert "class Net(nn.Cell):" in src[4] and "def construct(self, x):" in src[4]
    assert "nn.Dense(16 * 7 * 7, classes)" in src[4]
    assert "from mindspore import nn, ops" in src[2]
    # the training loop of the %%time cell became the functional step, and the marker is a comment in its cell
    assert "grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)" in src[8]
    assert "# msmigrate: unsupported torch.fmin:" in src[10].splitlines()[0]


def test_keep_outputs(tut, tmp_path):
    out = tmp_path / "ms"
    main(["convert", str(tut), "-o", str(out), "--keep-outputs"])
    cells = _cells(out / "tutorial.ipynb")
    assert cells[5].outputs[0]["text"] == "torch.Size([4, 10])\n"
    assert cells[2].execution_count == 2


def test_directory_with_notebooks_and_checkpoints(tmp_path, capsys):
    src = tmp_path / "proj"
    (src / ".ipynb_checkpoints").mkdir(parents=True)
    _write(src / "tutorial.ipynb", tutorial())
    _write(src / ".ipynb_checkpoints" / "tutorial-checkpoint.ipynb", tutorial())
    (src / "model.py").write_text("import torch\nx = torch.zeros(3)\n")
    out = tmp_path / "ms"
    assert main(["convert", str(src), "-o", str(out), "--jobs", "2"]) == 3
    assert "files: 2 " in capsys.readouterr().out
    # converted, not overwritten by the copy of the directory's other files
    assert "class Net(nn.Cell):" in _cells(out / "tutorial.ipynb")[4].source
    assert (out / "model.py").read_text() == "from mindspore import ops\nx = ops.zeros(3)\n"
    assert not (out / ".ipynb_checkpoints").exists()


def test_output_file_named(tut, tmp_path):
    assert main(["convert", str(tut), "-o", str(tmp_path / "ported.ipynb")]) == 3
    nbformat.validate(nbformat.read(tmp_path / "ported.ipynb", as_version=4))


def test_syntax_error_names_cell_and_line(tmp_path, capsys):
    nb = new_notebook(cells=[new_markdown_cell("# x"), new_code_cell("import torch"),
                             new_code_cell("x = torch.zeros(2)\ny = (x +\n")])
    path = _write(tmp_path / "bad.ipynb", nb)
    assert main(["convert", str(path), "-o", str(tmp_path / "out")]) == 1
    assert f"{path}:cell 3:line 2: error: syntax error" in capsys.readouterr().out
    # the notebook is left as it was (nothing half-converted), under a first raw cell saying why
    cells = _cells(tmp_path / "out" / "bad.ipynb")
    assert cells[0].cell_type == "raw" and cells[0].source.startswith("# msmigrate: not converted: ")
    assert "cell 3:line 2: syntax error" in cells[0].source
    assert [c.source for c in cells[1:]] == [c.source for c in nb.cells]


def test_not_a_notebook(tmp_path, capsys):
    path = tmp_path / "broken.ipynb"
    path.write_text('{"cells": [')
    assert main(["convert", str(path)]) == 1
    line = [ln for ln in capsys.readouterr().out.splitlines() if "broken.ipynb" in ln]
    assert line and "not a readable notebook" in line[0]
    path.write_text(json.dumps({"cells": [{"cell_type": "code"}], "metadata": {}, "nbformat": 4,
                                "nbformat_minor": 5}))
    assert main(["convert", str(path)]) == 1
    assert "invalid notebook" in capsys.readouterr().out


def test_scan_reads_notebooks(tut, capsys):
    assert main(["scan", str(tut), "--format", "json"]) == 3
    s = json.loads(capsys.readouterr().out)
    assert s["files"] == 1
    assert {(u["cell"], u["line"]) for u in s["unsupported"]} == {(11, 1)}
    assert main(["scan", str(tut)]) == 3
    assert f"{tut}:cell 11:line 1: torch.fmin:" in capsys.readouterr().out


# ---- lint --------------------------------------------------------------------------------------------------------

MS_NB = [
    new_markdown_cell("# A MindSpore notebook"),
    new_code_cell("%matplotlib inline\nfrom mindspore import nn, ops, ms_function"),
    new_code_cell("class Net(nn.Cell):\n    def construct(self, x):\n        !echo inside\n"
                  "        print(x.shape)\n        return x"),
    new_code_cell("@ms_function\ndef step(x):\n    return x"),
]


def test_lint_notebook_names_cells(tmp_path, capsys):
    path = _write(tmp_path / "ms.ipynb", new_notebook(cells=[c.copy() for c in MS_NB]))
    assert main(["lint", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith(f"{path}:cell 2:line 2:col 32: MS004 ")
    assert lines[1].startswith(f"{path}:cell 3:line 4:col 9: MS003 print in compiled code")
    assert lines[2].startswith(f"{path}:cell 4:line 1:col 2: MS004 ")
    assert main(["lint", str(path), "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert [(f["cell"], f["line"], f["rule"]) for f in found] == [(2, 2, "MS004"), (3, 4, "MS003"), (4, 1, "MS004")]


def test_lint_fix_notebook_keeps_outputs_and_magics(tmp_path, capsys):
    cells = [c.copy() for c in MS_NB]
    cells[3] = new_code_cell(cells[3].source, outputs=[new_output("stream", name="stdout", text="ok\n")],
                             execution_count=7)
    path = _write(tmp_path / "ms.ipynb", new_notebook(cells=cells))
    assert main(["lint", str(path), "--fix"]) == 1  # the print stays: no safe rewrite for it
    out = capsys.readouterr().out
    assert "MS004" not in out and "cell 3:line 4:col 9: MS003" in out
    fixed = _cells(path)
    assert fixed[1].source == "%matplotlib inline\nfrom mindspore import nn, ops, jit"
    assert fixed[3].source.startswith("@jit\n")
    assert "        !echo inside" in fixed[2].source.splitlines()
    assert fixed[3].outputs[0]["text"] == "ok\n" and fixed[3].execution_count == 7


def test_json_line_points_into_the_file(tmp_path):
    path = _write(tmp_path / "ms.ipynb", new_notebook(cells=[c.copy() for c in MS_NB]))
    text = path.read_text()
    n = json_line(text, 3, 4)
    assert json.loads(text.splitlines()[n - 1].strip().rstrip(",")) == "        print(x.shape)\n"
    assert json_line(json.dumps(json.loads(text)), 3, 4) is None  # one-line JSON: cannot be told


# ---- masking, joining, splitting ---------------------------------------------------------------------------------

@pytest.mark.parametrize("line", ["%matplotlib inline", "!pip install torch", "files = !ls", "a, b = %sx ls",
                                  "model?", "?model", "torch.nn.Conv2d??", "%time x = f(1)"])
def test_magic_lines_are_masked(line):
    magics = []
    masked, whole = mask_cell(f"x = 1\n{line}\ny = 2", magics)
    assert not whole and magics == [line]
    assert masked.splitlines()[1] == "__msmigrate_magic_0__"


@pytest.mark.parametrize("code", [
    's = """\n!not a magic\n%not one either\n"""',
    "xs = [1,\n     2]  # what?\n",
    "d = {\n  'a': 1,\n}\n",
    "x = 5 % 3\ny = x != 2",
    "call(a,\n     !b)",
])
def test_python_is_never_masked(code):
    magics = []
    assert mask_cell(code, magics) == (code, False) and magics == []


def test_indented_and_continued_magics():
    magics = []
    masked, _ = mask_cell("for i in range(2):\n    !echo \\\n       $i\n    y = i", magics)
    assert masked.splitlines() == ["for i in range(2):", "    __msmigrate_magic_0__", "       __msmigrate_magic_1__",
                                   "    y = i"]
    assert magics == ["    !echo \\", "       $i"]


def test_cell_magics():
    assert mask_cell("%%bash\nls", []) == (None, True)
    assert mask_cell("%%writefile model.py\nimport torch", []) == (None, True)
    magics = []
    assert mask_cell("%%time\nx = 1", magics) == ("__msmigrate_magic_0__\nx = 1", False)


def test_added_imports_go_to_the_first_cell_with_imports():
    nb = new_notebook(cells=[new_markdown_cell("m"), new_code_cell("%matplotlib inline"),
                             new_code_cell("import numpy as np"), new_code_cell("x = np.zeros(2)")])
    joined = join(nb)
    assert joined.import_cell == 2
    # a rewriter that adds imports at the top of the module: they land in cell 3, not before the magic in cell 2
    converted = "import mindspore as ms\n\n" + joined.source
    split = joined.split(converted, [c.source for c in nb.cells])
    assert split[1] == "%matplotlib inline"
    assert split[2] == "import mindspore as ms\nimport numpy as np"
    assert split[3] == "x = np.zeros(2)"


def test_first_code_cell_gets_imports_when_none_had_any():
    nb = new_notebook(cells=[new_markdown_cell("m"), new_code_cell("x = 1\n"), new_code_cell("y = 2")])
    joined = join(nb)
    assert joined.import_cell == 1
    assert joined.split("from mindspore import ops\n" + joined.source, [c.source for c in nb.cells]) == {
        1: "from mindspore import ops\nx = 1\n", 2: "y = 2"}


def test_lost_magic_is_an_error_not_a_silent_drop():
    nb = new_notebook(cells=[new_code_cell("!ls\nx = 1")])
    joined = join(nb)
    with pytest.raises(Exception, match="cell 1: the rewrite moved the IPython line '!ls'"):
        joined.split(joined.source.replace("__msmigrate_magic_0__\n", ""), [c.source for c in nb.cells])


def test_line_map():
    nb = new_notebook(cells=[new_markdown_cell("m"), new_code_cell("a = 1\nb = 2"), new_code_cell("%%bash\nls"),
                             new_code_cell("c = 3")])
    joined = join(nb)
    assert isinstance(joined, Joined)
    lines = joined.source.splitlines()
    assert joined.where(lines.index("b = 2") + 1) == (2, 2)
    assert joined.where(lines.index("c = 3") + 1) == (4, 1)
    assert joined.verbatim == {2}


def test_v4_4_notebook_without_ids_stays_so():
    nb = new_notebook(cells=[new_code_cell("import torch\nx = torch.ones(2)")])
    nb.nbformat_minor = 4
    for c in nb.cells:
        del c["id"]
    result = convert_notebook(nbformat.writes(nb), "old.ipynb")
    data = json.loads(result.code)
    assert data["nbformat_minor"] == 4 and "id" not in data["cells"][0]
    assert "".join(data["cells"][0]["source"]) == "from mindspore import ops\nx = ops.ones(2)"


def test_lint_bad_notebooks_exit_2(tmp_path, capsys):
    path = _write(tmp_path / "bad.ipynb", new_notebook(cells=[new_code_cell("x = 1"),
                                                              new_code_cell("!ls\ny = (")]))
    assert main(["lint", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"msmigrate lint: {path}:cell 2:line 2:") and "syntax error" in err
    (tmp_path / "junk.ipynb").write_text("not json")
    assert main(["lint", str(tmp_path / "junk.ipynb")]) == 2
    assert "not a readable notebook" in capsys.readouterr().err
