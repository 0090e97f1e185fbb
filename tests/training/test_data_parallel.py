"""Data parallel, end to end: a DistributedDataParallel script launched by torchrun (gloo, 2 CPU processes) and its
conversion (`msmigrate convert`, nothing edited by hand) launched by msrun (2 CPU workers) print the same per-step
losses on each rank and end with the same weights. Both start from the same weights (init.pt, and its MindSpore
checkpoint init.pt.ckpt written by msmigrate's weight conversion) and read the same numpy data; the script uses
what torchrun scripts use: LOCAL_RANK and WORLD_SIZE, init_process_group, get_rank / get_world_size, a seeded random_split,
DistributedSampler with shuffle and set_epoch, DDP over a network with BatchNorm, clip_grad_norm_, barrier, all_reduce,
saving model.module's state dict, is_initialized, destroy_process_group.

msrun starts `python` from PATH, so the interpreter's folder goes first on PATH."""
from __future__ import annotations

import json
import os
import re
import shutil
import socket
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.training.trainrun import torch_names

ROOT = Path(__file__).resolve().parents[2]

TRAIN = '''
import os

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset, random_split
from torch.utils.data.distributed import DistributedSampler

local_rank = int(os.environ["LOCAL_RANK"])
if "LOCAL_RANK" in os.environ:
    dist.init_process_group(backend="gloo")
rank, world_size = dist.get_rank(), dist.get_world_size()
data = np.load("data.npz")
model = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.Tanh(), nn.Linear(8, 2))
model.load_state_dict(torch.load("init.pt", weights_only=True))
model = DDP(model, device_ids=None)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
dataset = TensorDataset(torch.from_numpy(data["x"]), torch.from_numpy(data["y"]))
train_set, val_set = random_split(dataset, [0.85, 0.15], generator=torch.Generator().manual_seed(1))
sampler = DistributedSampler(train_set, shuffle=True, seed=7)
loader = DataLoader(train_set, batch_size=4, sampler=sampler, drop_last=True)
losses = []
for epoch in range(2):
    sampler.set_epoch(epoch)
    model.train()
    for x, y in loader:
        optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        losses.append(loss.item())
dist.barrier()
total = torch.tensor([sum(losses)], dtype=torch.float32)
dist.all_reduce(total, op=dist.ReduceOp.SUM)
np.save(f"losses{rank}.npy", np.array(losses + [total.item(), local_rank, world_size, int(os.getenv("WORLD_SIZE", "1")),
                                       len(val_set)]))
torch.save(model.module.state_dict(), f"final{rank}.pt")
if dist.is_initialized():
    dist.destroy_process_group()
'''


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(cmd, cwd, env, logs=None, limit=300):
    """Run a launcher in its own process group, its output in a file: torchrun and msrun start workers (and msrun
    `tail -f` its logs) that would hold captured pipes open after a stopped launcher, so a stuck run must end by
    killing the whole group (it takes 35 s on 2 cores; one stuck in a rendezvous fails at ``limit``)."""
    out = Path(cwd) / f"{Path(cmd[0]).name}.out"
    with out.open("w") as fh:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT, start_new_session=True)
        try:
            code = proc.wait(timeout=limit)
        except subprocess.TimeoutExpired:
            code = f"stopped after {limit} s"
        finally:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the workers and tails left behind, also after a clean exit
            except ProcessLookupError:
                pass
            proc.wait()
    if code:
        text = out.read_text(errors="replace")[-3000:]
        for log in sorted(Path(logs).glob("*.log")) if logs else []:
            text += f"\n--- {log.name}\n" + log.read_text(errors="replace")[-3000:]
        raise AssertionError(f"{cmd[0]} failed ({code}):\n{text}")


@pytest.mark.slow
def test_torchrun_ddp_script_and_its_conversion_under_msrun(tmp_path):
    import torch

    from migrate.weights import load_ms_checkpoint, ms_arrays_to_state_dict, save_ms_checkpoint, state_dict_to_ms_arrays

    bindir = Path(sys.executable).parent
    if not (bindir / "torchrun").exists() or not (bindir / "msrun").exists():
        pytest.skip("torchrun / msrun are not installed beside this interpreter")
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "data.npz", x=rng.standard_normal((40, 6)).astype(np.float32),
             y=rng.standard_normal((40, 2)).astype(np.float32))
    torch.manual_seed(0)
    ref = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.BatchNorm1d(8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
    torch.save(ref.state_dict(), tmp_path / "init.pt")
    arrays, _ = state_dict_to_ms_arrays(ref.state_dict(), ref)
    save_ms_checkpoint(arrays, tmp_path / "init.pt.ckpt")  # what `msmigrate weights init.pt` writes
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "train.py").write_text(TRAIN)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT), "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA", "AVX2")}
    _run([sys.executable, "-m", "migrate.cli", "convert", "torch/train.py", "-o", "ms"], tmp_path, env)
    converted = (tmp_path / "ms" / "train.py").read_text()
    assert not torch_names(converted), converted
    assert "msmigrate: unsupported" not in converted, converted
    for ws in ("torch", "ms"):
        for name in ("data.npz", "init.pt", "init.pt.ckpt"):
            shutil.copy(tmp_path / name, tmp_path / ws / name)
    _run([str(bindir / "torchrun"), "--nproc_per_node=2", f"--master_port={_port()}", "train.py"],
         tmp_path / "torch", env)
    env.pop("PYTHONPATH")  # the converted script never imports msmigrate
    _run([str(bindir / "msrun"), "--worker_num=2", "--local_worker_num=2", f"--master_port={_port()}",
          "--log_dir=msrun_log", "--join=True", "--cluster_time_out=120", "train.py"], tmp_path / "ms", env, logs=tmp_path / "ms" / "msrun_log")
    totals = []
    for rank in (0, 1):
        t = np.load(tmp_path / "torch" / f"losses{rank}.npy")
        m = np.load(tmp_path / "ms" / f"losses{rank}.npy")
        assert len(t) == 8 + 5 and t[-4:].tolist() == [rank, 2, 2, 6], t  # 34 training samples: 17 per rank, 4 batches of 4 per epoch
        np.testing.assert_allclose(m, t, rtol=1e-4, atol=1e-6, err_msg=f"rank {rank} per-step losses")
        totals.append(t[8])
        want = torch.load(tmp_path / "torch" / f"final{rank}.pt", weights_only=True)
        got, _ = ms_arrays_to_state_dict(load_ms_checkpoint(tmp_path / "ms" / f"final{rank}.pt.ckpt"), ref)
        compared = [k for k in want if not k.endswith("num_batches_tracked")]  # MindSpore's BatchNorm has none
        assert len(compared) == 8, sorted(want)  # 2 Linear x 2, BatchNorm weight/bias/mean/var
        for k in compared:
            np.testing.assert_allclose(np.asarray(got[k]), want[k].numpy(), rtol=1e-4, atol=1e-6,
                                       err_msg=f"rank {rank} {k}")
    assert totals[0] == totals[1]  # all_reduce summed the two ranks' losses


def test_mixed_import_line_keeps_the_other_modules_and_the_benchmark_script_converts():
    """`import sys, numpy as np, torch, torch.distributed as dist` (benchmarks/data_parallel_msrun.py's torch script):
    the torch names go, sys and numpy stay imported."""
    from benchmarks.data_parallel_msrun import TORCH
    from migrate import convert_source

    result = convert_source(TORCH)
    assert not result.unsupported and not result.errors, result.unsupported
    assert "import sys, numpy as np\n" in result.code and "import torch" not in result.code
    compile(result.code, "converted", "exec")


COLLECTIVES = '''
import json
import os

import torch
import torch.distributed as dist

dist.init_process_group(backend="gloo")
rank, world = dist.get_rank(), dist.get_world_size()
t = torch.arange(3, dtype=torch.float32) + 10 * rank
dist.broadcast(t, 0)
u = torch.arange(4, dtype=torch.int64).reshape(2, 2) * (rank + 1) + 2 ** 40
dist.broadcast(u, src=1)
v = torch.tensor(1.5 + rank)
dist.broadcast(tensor=v, src=1, group=None)
shape = torch.tensor([rank + 2, 3])
shapes = [torch.zeros_like(shape) for _ in range(world)]
dist.all_gather(shapes, shape)
x = torch.ones(2, 3) * (rank + 0.5)
xs = [torch.empty(2, 3) for _ in range(world)]
dist.all_gather(xs, x, group=dist.group.WORLD, async_op=False)
objs = [None] * world
dist.all_gather_object(objs, {"rank": rank, "name": "r" * (rank + 1)})
blist = [rank, f"from {rank}", None] if rank == 1 else [None, None, None]
dist.broadcast_object_list(blist, src=1, group=dist.group.WORLD)
out = {"t": t.tolist(), "u": u.tolist(), "v": v.item(), "shapes": [s.tolist() for s in shapes],
       "xs": [a.tolist() for a in xs], "objs": objs, "blist": blist}
with open(f"coll{rank}.json", "w") as fh:
    json.dump(out, fh, sort_keys=True)
dist.destroy_process_group()
'''


@pytest.mark.slow
def test_torchrun_collectives_and_their_conversion_under_msrun(tmp_path):
    """broadcast (float32 from rank 0, int64 beyond 2**32 and a 0-d tensor from rank 1), all_gather (int64 shapes,
    float32), all_gather_object and broadcast_object_list under torchrun (gloo, 2 processes) write the same JSON on
    each rank as their conversion under msrun (2 CPU workers)."""
    bindir = Path(sys.executable).parent
    if not (bindir / "torchrun").exists() or not (bindir / "msrun").exists():
        pytest.skip("torchrun / msrun are not installed beside this interpreter")
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "coll.py").write_text(COLLECTIVES)
    env = {**os.environ, "PATH": f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
           "PYTHONPATH": str(ROOT), "ONEDNN_MAX_CPU_ISA": os.environ.get("ONEDNN_MAX_CPU_ISA", "AVX2")}
    _run([sys.executable, "-m", "migrate.cli", "convert", "torch/coll.py", "-o", "ms"], tmp_path, env)
    converted = (tmp_path / "ms" / "coll.py").read_text()
    assert "import torch" not in converted and not re.search(r"^\s*dist\.", converted, re.M), converted
    assert "msmigrate: unsupported" not in converted, converted
    _run([str(bindir / "torchrun"), "--nproc_per_node=2", f"--master_port={_port()}", "coll.py"],
         tmp_path / "torch", env)
    env.pop("PYTHONPATH")  # the converted script never imports msmigrate
    _run([str(bindir / "msrun"), "--worker_num=2", "--local_worker_num=2", f"--master_port={_port()}",
          "--log_dir=msrun_log", "--join=True", "--cluster_time_out=120", "coll.py"], tmp_path / "ms", env,
         logs=tmp_path / "ms" / "msrun_log")
    for rank in (0, 1):
        want = json.loads((tmp_path / "torch" / f"coll{rank}.json").read_text())
        got = json.loads((tmp_path / "ms" / f"coll{rank}.json").read_text())
        assert want["u"][0][0] == 2 ** 40 and want["objs"][1] == {"name": "rr", "rank": 1}, want  # what torch did
        assert got == want, (rank, got, want)


@pytest.mark.parametrize("line, api", [
    ("dist.broadcast(t, 0, group=g)", "torch.distributed.broadcast"),
    ("dist.broadcast(t, src=0, async_op=True)", "torch.distributed.broadcast"),
    ("dist.all_gather(out, t, group=g)", "torch.distributed.all_gather"),
    ("dist.all_gather_object(out, obj, group=g)", "torch.distributed.all_gather_object"),
    ("dist.broadcast_object_list(out, 0, group=g)", "torch.distributed.broadcast_object_list"),
])
def test_collectives_over_another_group_are_refused(line, api):
    from migrate import convert_source

    out = convert_source(f"import torch.distributed as dist\n{line}\n")
    assert [u.api for u in out.unsupported] == [api], out.unsupported
    assert "only the default (whole) group" in out.unsupported[0].reason or "not converted" in out.unsupported[0].reason
