"""Write tutorial.ipynb: a PyTorch tutorial-style notebook (markdown, magics, shell escapes, outputs) used by
tests/notebook/ and by the README's notebook example. Run: python examples/notebook/make_tutorial.py"""
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output, new_raw_cell

CELLS = [
    new_markdown_cell("# Training a small classifier\n\nA PyTorch tutorial notebook: data, model, training loop."),
    new_code_cell("%matplotlib inline\n!pip install -q torchvision\n%load_ext autoreload\n%autoreload 2"),
    new_code_cell("import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
                  "\ntorch.manual_seed(0)",
                  outputs=[new_output("execute_result", data={"text/plain": "<torch._C.Generator at 0x7f>"},
                                      execution_count=2)], execution_count=2),
    new_markdown_cell("## The model\n\nTwo convolutions and a linear head. `forward` becomes `construct`."),
    new_code_cell('class Net(nn.Module):\n'
                  '    """A tiny CNN."""\n'
                  '\n'
                  '    def __init__(self, classes=10):\n'
                  '        super().__init__()\n'
                  '        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)\n'
                  '        self.bn1 = nn.BatchNorm2d(8, momentum=0.1)\n'
                  '        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)\n'
                  '        self.pool = nn.MaxPool2d(2)\n'
                  '        self.fc = nn.Linear(16 * 7 * 7, classes)\n'
                  '\n'
                  '    def forward(self, x):\n'
                  '        x = self.pool(F.relu(self.bn1(self.conv1(x))))\n'
                  '        x = self.pool(F.relu(self.conv2(x)))\n'
                  '        return self.fc(torch.flatten(x, 1))', execution_count=3),
    new_code_cell("model = Net()\nx = torch.randn(4, 1, 28, 28)\nprint(model(x).shape)\nmodel?",
                  outputs=[new_output("stream", name="stdout", text="torch.Size([4, 10])\n")], execution_count=4),
    new_raw_cell("raw cell: kept as written"),
    new_markdown_cell("## Training\n\nThe loop below is the usual zero_grad / backward / step."),
    new_code_cell("%%time\n"
                  "optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)\n"
                  "criterion = nn.CrossEntropyLoss()\n"
                  "labels = torch.randint(0, 10, (4,))\n"
                  "for epoch in range(3):\n"
                  "    optimizer.zero_grad()\n"
                  "    loss = criterion(model(x), labels)\n"
                  "    loss.backward()\n"
                  "    optimizer.step()\n"
                  "    print(epoch, loss.item())", execution_count=5),
    new_code_cell("%%bash\necho 'not python: kept as written'\nls -l | head -3"),
    new_code_cell("gram = torch.einsum('bi,bj->ij', x.flatten(1), x.flatten(1))\n"
                  "files = !ls\n"
                  "%timeit model(x)\n"
                  "print(gram.shape)"),
]


def notebook():
    nb = new_notebook(cells=CELLS, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python", "version": "3.11"}})
    for i, cell in enumerate(nb.cells):
        cell.id = f"cell-{i + 1}"
    nbformat.validate(nb)
    return nb


if __name__ == "__main__":
    out = Path(__file__).with_name("tutorial.ipynb")
    nbformat.write(notebook(), out)
    print(f"wrote {out}")
