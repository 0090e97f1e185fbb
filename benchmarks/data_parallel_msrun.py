"""Data parallel on two CPU processes: torchrun + gloo DistributedDataParallel vs MindSpore under msrun.

Writes a torch script (init_process_group('gloo'), DDP, DistributedSampler, set_epoch) to a temporary folder,
converts it with msmigrate (`convert_source`, nothing edited by hand) and also writes the hand-written MindSpore
data-parallel script it corresponds to (communication.init(), DATA_PARALLEL context, GeneratorDataset sharded with
num_shards/shard_id, nn.DistributedGradReducer on the gradients). Launches the torch one with torchrun and the two
MindSpore ones with msrun, 2 CPU processes each, and prints the largest difference of the per-step losses and final
weights of each rank against torch's, and the wall time of each launch.

    .venv/bin/python benchmarks/data_parallel_msrun.py

msrun starts `python` from PATH: the script puts this interpreter's folder first.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DATA = '''
import numpy as np
rng = np.random.default_rng(0)
X = rng.standard_normal((16, 6)).astype(np.float32)
Y = rng.standard_normal((16, 2)).astype(np.float32)
W0 = rng.standard_normal((2, 6)).astype(np.float32) * 0.3
B0 = np.zeros(2, np.float32)
'''

TORCH = '''
import sys, numpy as np, torch, torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
sys.path.insert(0, "."); from data import X, Y, W0, B0
dist.init_process_group("gloo")
rank = dist.get_rank()
model = torch.nn.Linear(6, 2)
model.weight.data, model.bias.data = torch.tensor(W0), torch.tensor(B0)
model = DDP(model)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
data = TensorDataset(torch.tensor(X), torch.tensor(Y))
sampler = DistributedSampler(data, shuffle=False)
loader = DataLoader(data, batch_size=4, sampler=sampler)
losses = []
for epoch in range(2):
    sampler.set_epoch(epoch)
    for x, y in loader:
        optimizer.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
np.save(f"torch_rank{rank}.npy", np.concatenate([losses, model.module.weight.detach().numpy().ravel()]))
dist.destroy_process_group()
'''

MINDSPORE = '''
import sys, numpy as np, mindspore as ms
from mindspore import nn
from mindspore.communication import init, get_rank, get_group_size, release
from mindspore.experimental import optim
import mindspore.dataset as ds
sys.path.insert(0, "."); from data import X, Y, W0, B0
init()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
rank = get_rank()
model = nn.Dense(6, 2)
model.weight.set_data(ms.Tensor(W0)); model.bias.set_data(ms.Tensor(B0))
optimizer = optim.SGD(model.trainable_params(), lr=0.1, momentum=0.9)
class Pairs:
    def __len__(self):
        return len(X)
    def __getitem__(self, i):
        return X[i], Y[i]
loader = ds.GeneratorDataset(Pairs(), column_names=["x", "y"], shuffle=False, num_shards=get_group_size(),
                             shard_id=rank).batch(4)
grad_reducer = nn.DistributedGradReducer(optimizer.parameters, mean=True, degree=get_group_size())
criterion = nn.MSELoss()
def forward_fn(x, y):
    return criterion(model(x), y)
grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters)
losses = []
for epoch in range(2):
    for x, y in loader:
        loss, grads = grad_fn(x, y)
        optimizer(grad_reducer(grads))
        losses.append(float(loss))
np.save(f"ms_rank{rank}.npy", np.concatenate([losses, model.weight.asnumpy().ravel()]))
release()
'''


def main() -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from migrate import convert_source

    converted = convert_source(TORCH)
    if converted.unsupported or converted.errors:
        print("conversion left markers:", [(u.line, u.api, u.reason) for u in converted.unsupported], converted.errors)
        return 1
    bindir = Path(sys.executable).parent
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA", "AVX2")}
    env.pop("PYTHONPATH", None)  # converted code never imports msmigrate
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "conv").mkdir()
        for folder, name, text in ((tmp, "data.py", DATA), (tmp, "t.py", TORCH), (tmp, "m.py", MINDSPORE),
                                   (tmp / "conv", "data.py", DATA), (tmp / "conv", "t.py", converted.code)):
            (folder / name).write_text(text)
        msrun = [str(bindir / "msrun"), "--worker_num=2", "--local_worker_num=2", "--log_dir=mslog", "--join=True",
                 "--cluster_time_out=120"]
        runs = [("torchrun (torch script)", tmp, [str(bindir / "torchrun"), "--nproc_per_node=2",
                                                   "--master_port=29631", "t.py"]),
                ("msrun (msmigrate's conversion)", tmp / "conv", [*msrun, "--master_port=29633", "t.py"]),
                ("msrun (hand-written)", tmp, [*msrun, "--master_port=29632", "m.py"])]
        for label, cwd, cmd in runs:
            start = time.perf_counter()
            proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
            print(f"{label}: exit {proc.returncode}, {time.perf_counter() - start:.1f} s")
            if proc.returncode:
                print(proc.stdout[-2000:], proc.stderr[-2000:])
                for log in sorted((cwd / "mslog").glob("*.log")):
                    print(log.name, log.read_text()[-1500:])
                return 1
        worst = {}
        for rank in (0, 1):
            t = np.load(tmp / f"torch_rank{rank}.npy")
            for label, path in (("conversion", tmp / "conv" / f"torch_rank{rank}.npy"),
                                ("hand-written", tmp / f"ms_rank{rank}.npy")):
                diff = float(np.abs(t - np.load(path)).max())
                worst[label] = max(worst.get(label, 0.0), diff)
                print(f"rank {rank}: {len(t) - 12} steps, max |torch - {label}| over losses and weights {diff:.2e}")
        for label, diff in worst.items():
            print(f"largest difference, {label}: {diff:.2e}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
