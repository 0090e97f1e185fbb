"""Failure classes found by benchmarks/training_scripts.py on real training entry scripts (issue 28), each run in
torch and converted from the same initial weights, per-step losses compared:

- a weights_init chosen by class-name string (``classname = m.__class__.__name__``;
  ``classname.find("BatchNorm") != -1``, applied with ``net.apply``; seanXYZ/SegDecNet, DRAEM, stargan-style
  repositories): in that branch ``m.weight`` / ``m.bias`` are the MindSpore layer's ``gamma`` / ``beta`` when every
  torch.nn class the file builds that passes the test names them alike;
- ``torch.nn.init.normal_(m.weight.data, ...)`` (the ``.data`` of a Parameter, DCGAN's weights_init_normal):
  initialises the Parameter itself; MindSpore's ``p.data`` is another Tensor whose ``assign_value`` left ``p``
  unchanged, so the converted init silently did nothing before;
- a DataLoader whose dataset is built in the call and returns dicts (SegDecNet's ``DataLoader(KolektorDataset(...),
  ...)`` and ``batchData["img"]``): MapDataLoader, which builds it once and collates dicts like torch."""
import numpy as np

from tests.training.trainrun import convert, run_both

rng = np.random.default_rng(5)
DATA = {"X": rng.standard_normal((16, 2, 4, 4)).astype(np.float32),
        "Y": rng.standard_normal((16, 1)).astype(np.float32)}

CLASS_NAME_INIT = """
import torch
import torch.nn as nn


def weights_init_normal(m):
    classname = m.__class__.__name__
    if classname.find("BatchNorm2d") != -1:
        m.weight.data.fill_(1.5)
        m.bias.data.fill_(0.25)


def weights_init_in(m):
    if "Norm" in type(m).__name__:
        m.bias.data.fill_(-0.5)


net = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.Flatten(), nn.Linear(64, 1))
opt = torch.optim.SGD(net.parameters(), lr=0.05)
batches = [(torch.from_numpy(X[i:i + 4]), torch.from_numpy(Y[i:i + 4])) for i in range(0, 16, 4)]
losses = []
# @run
net.apply(weights_init_normal)
net.apply(weights_init_in)
for x, y in batches * 2:
    loss = ((net(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
"""


def test_init_by_class_name_string_renames_the_norm_parameters():
    result, _, _ = run_both(CLASS_NAME_INIT, DATA)
    assert "m.gamma" in result.code and "m.beta" in result.code and "m.weight" not in result.code


def test_init_functions_on_the_data_of_a_parameter_write_the_parameter():
    src = CLASS_NAME_INIT.replace("m.weight.data.fill_(1.5)", "torch.nn.init.constant_(m.weight.data, 1.5)").replace(
        "m.bias.data.fill_(0.25)", "torch.nn.init.zeros_(m.bias.data)")
    result, _, _ = run_both(src, DATA)
    assert "m.gamma.set_data(" in result.code and "assign_value" not in result.code


def test_class_name_test_matching_no_built_layer_is_left_alone():
    code = convert("""
import torch.nn as nn
def init(m):
    classname = m.__class__.__name__
    if classname.find("BatchNorm") != -1:
        nn.init.constant_(m.weight, 1.0)
net = nn.Sequential(nn.Linear(2, 2))
""").code
    assert "m.weight" in code and "gamma" not in code


DICT_LOADER = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset


class Records(Dataset):
    def __init__(self, n, scale=1.0):
        self.n, self.scale = n, scale

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"img": X[i] * self.scale, "mask": Y[i]}


net = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(64, 1))
opt = torch.optim.Adam(net.parameters(), lr=0.01)
loader = DataLoader(Records(16, scale=0.5), batch_size=4, shuffle=False, num_workers=0)
criterion = torch.nn.MSELoss()
losses = []
# @run
for epoch in range(2):
    it = loader.__iter__()
    for i in range(len(loader)):
        batch = it.__next__()
        opt.zero_grad()
        loss = criterion(net(batch["img"]), batch["mask"])
        loss.backward()
        opt.step()
        losses.append(loss.item())
"""


def test_a_dataset_built_in_the_loader_call_returning_dicts():
    result, _, _ = run_both(DICT_LOADER, DATA)
    assert "MapDataLoader(Records(16, scale=0.5)" in result.code and "GeneratorDataset" not in result.code


NET = """
import torch.nn as nn

vgg = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 4, 3, padding=1), nn.ReLU())
decoder = nn.Sequential(nn.Conv2d(4, 2, 3, padding=1))
"""

TRAIN = """
import torch
import torch.nn as nn
import net

encoder = nn.Sequential(*list(net.vgg.children())[:2])
for p in net.vgg.parameters():
    p.requires_grad = False
optimizer = torch.optim.Adam(net.decoder.parameters(), lr=0.01)
losses = []
for i in range(0, 16, 4):
    x = torch.from_numpy(X[i:i + 4])
    loss = ((net.decoder(encoder(x)) - x) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
"""


def test_module_level_instances_of_a_project_module(tmp_path):
    """pytorch-AdaIN's train.py: ``net.vgg`` / ``net.decoder`` are nn.Sequential objects built at the top of
    net.py; their ``children()`` / ``parameters()`` / ``load_state_dict`` are a Module's (a Cell's after
    conversion: cells(), trainable parameters), not an unknown object's left as they were."""
    import importlib
    import sys

    import mindspore as ms
    import torch

    from migrate import convert_path
    from migrate.weights import torch_to_mindspore

    src, out = tmp_path / "src", tmp_path / "ms"
    src.mkdir()
    (src / "net.py").write_text(NET)
    (src / "train.py").write_text(TRAIN)
    convert_path(str(src), str(out))
    code = (out / "train.py").read_text()
    assert "net.vgg.cells()" in code and "net.decoder.trainable_params()" in code, code

    def run(folder, before=None):
        sys.modules.pop("net", None)
        sys.path.insert(0, str(folder))
        try:
            net = importlib.import_module("net")
            if before:
                before(net)
            ns = {"X": DATA["X"], "__name__": "train"}
            exec(compile((folder / "train.py").read_text(), str(folder / "train.py"), "exec"), ns)
            return net, ns["losses"]
        finally:
            sys.path.remove(str(folder))
            sys.modules.pop("net", None)

    torch.manual_seed(0)
    tnet = importlib.import_module  # placeholder for the torch modules' weights
    sys.modules.pop("net", None)
    sys.path.insert(0, str(src))
    try:
        tnet = importlib.import_module("net")
        weights = {k: getattr(tnet, k).state_dict() for k in ("vgg", "decoder")}
    finally:
        sys.path.remove(str(src))
    _, t_losses = run(src, lambda n: [getattr(n, k).load_state_dict(weights[k]) for k in weights])
    _, m_losses = run(out, lambda n: [torch_to_mindspore(weights[k], getattr(n, k)) for k in weights])
    np.testing.assert_allclose(m_losses, t_losses, rtol=1e-4)
    assert ms is not None
