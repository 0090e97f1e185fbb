"""A converted notebook runs under MindSpore and computes what the torch notebook computed (its code cells executed
in one namespace, in order, the IPython lines skipped, as a kernel would run them)."""
import numpy as np
import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from migrate.notebook import convert_notebook, join

CELLS = [
    new_markdown_cell("# A regression notebook"),
    new_code_cell("%matplotlib inline\n!pip list | grep torch"),
    new_code_cell("import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F"),
    new_markdown_cell("The model"),
    new_code_cell("class Net(nn.Module):\n"
                  "    def __init__(self):\n"
                  "        super().__init__()\n"
                  "        self.conv = nn.Conv2d(1, 4, 3, padding=1)\n"
                  "        self.bn = nn.BatchNorm2d(4)\n"
                  "        self.fc = nn.Linear(4 * 8 * 8, 3)\n"
                  "\n"
                  "    def forward(self, x):\n"
                  "        x = F.relu(self.bn(self.conv(x)))\n"
                  "        return self.fc(torch.flatten(x, 1))"),
    new_code_cell("model = Net()\nmodel?"),
    new_code_cell("%%time\n"
                  "opt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
                  "losses = []\n"
                  "for step in range(3):\n"
                  "    opt.zero_grad()\n"
                  "    loss = F.mse_loss(model(x), y)\n"
                  "    loss.backward()\n"
                  "    opt.step()\n"
                  "    losses.append(loss.item())"),
]


def _run(nb, namespace):
    """Execute the code cells as one module; the masked IPython lines are no-ops."""
    joined = join(nb)
    namespace.update({f"__msmigrate_magic_{k}__": None for k in range(len(joined.magics))})
    namespace.update({f"__msmigrate_cell_{i}__": None for i in range(len(nb.cells))})
    namespace.setdefault("__name__", "__main__")  # as in a kernel (MindSpore reads a Cell class's module)
    exec(compile(joined.source, "<notebook>", "exec"), namespace)
    return namespace


@pytest.mark.slow
def test_converted_notebook_trains_like_torch():
    import mindspore as ms
    import torch

    from migrate.weights import torch_to_mindspore

    nb = new_notebook(cells=CELLS)
    result = convert_notebook(nbformat.writes(nb), "reg.ipynb")
    assert not result.errors and not result.unsupported and result.converted == result.api_calls
    ms_nb = nbformat.reads(result.code, as_version=4)

    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((2, 1, 8, 8)).astype(np.float32), rng.standard_normal((2, 3)).astype(np.float32)
    # run up to the model cell, give MindSpore torch's initial weights, then run the training cell on both sides
    head = lambda book: new_notebook(cells=book.cells[:6])  # noqa: E731
    tail = lambda book: new_notebook(cells=book.cells[6:])  # noqa: E731
    t_ns = _run(head(nb), {})
    m_ns = _run(head(ms_nb), {})
    torch_to_mindspore(t_ns["model"].state_dict(), m_ns["model"])
    t_ns.update(x=torch.from_numpy(x), y=torch.from_numpy(y))
    m_ns.update(x=ms.Tensor(x), y=ms.Tensor(y))
    _run(tail(nb), t_ns)
    _run(tail(ms_nb), m_ns)
    np.testing.assert_allclose(m_ns["losses"], t_ns["losses"], rtol=1e-4, atol=1e-6)
    t_w = t_ns["model"].fc.weight.detach().numpy()
    m_w = m_ns["model"].fc.weight.asnumpy()
    np.testing.assert_allclose(m_w, t_w, rtol=1e-4, atol=1e-6)
