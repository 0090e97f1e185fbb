"""Data loading that must reproduce torch's order (issue 13): random_split with a seeded generator, DataLoader with
shuffle=True and a seeded generator= (torch's RandomSampler order, the generator shared with the split), collate_fn,
DistributedSampler's per-rank indices (shuffle, set_epoch, padding, drop_last), forwarded **kwargs. Each script
trains on both sides from the same weights (tests/training/trainrun.py): a different split or order gives different
per-step losses; the indices themselves are appended to the compared list too."""
import numpy as np
import pytest

from tests.training.trainrun import convert, run_both

rng = np.random.default_rng(5)
DATA = {"X": rng.standard_normal((23, 6)).astype(np.float32), "Y": rng.standard_normal((23, 2)).astype(np.float32)}

SETUP = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset, random_split


class Pairs(Dataset):
    def __len__(self):
        return len(X)

    def __getitem__(self, i):
        return torch.from_numpy(X[i]), torch.from_numpy(Y[i])


model = nn.Sequential(nn.Linear(6, 16), nn.Tanh(), nn.Linear(16, 2))
criterion = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
losses = []
"""

LOOP = """
for epoch in range(3):
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
losses.append(len(loader))
"""


@pytest.mark.parametrize("lengths", ["[0.7, 0.3]", "[15, 8]", "[0.5, 0.25, 0.25]"])
def test_random_split_seeded_then_shuffled_loader_sharing_the_generator(lengths):
    src = SETUP + f"""
g = torch.Generator().manual_seed(3)
parts = random_split(Pairs(), {lengths}, generator=g)
loader = DataLoader(parts[0], batch_size=4, shuffle=True, generator=g)
# @run
""" + LOOP + """
for part in parts:
    losses += [len(part)] + list(part.indices)
losses.append(g.initial_seed())
"""
    result, tns, _ = run_both(src, DATA)
    assert "SeededGenerator().manual_seed(3)" in result.code and "MapDataLoader(" in result.code
    assert len(tns["parts"][0]) < 23  # a split was made


def test_random_split_lengths_that_do_not_add_up_raise_like_torch():
    src = SETUP + """
# @run
try:
    random_split(Pairs(), [10, 5], generator=torch.Generator().manual_seed(0))
except ValueError as exc:
    losses.append(float('does not equal' in str(exc)))
"""
    run_both(src, DATA)


def test_shuffle_with_generator_collate_fn_and_drop_last():
    src = SETUP + """
def collate(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs) * 0.5, torch.stack(ys) + 1.0


loader = DataLoader(Pairs(), batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(11),
                    collate_fn=collate, drop_last=True)
# @run
""" + LOOP
    result, _, _ = run_both(src, DATA)
    assert "collate_fn=collate" in result.code


def test_default_collate_of_dict_samples_and_numpy_arrays_sequential_sampler():
    src = SETUP + """
class Records(Dataset):
    def __len__(self):
        return len(X)

    def __getitem__(self, i):
        return {'x': X[i], 'y': Y[i], 'id': i}


loader = DataLoader(Records(), batch_size=6, sampler=range(22, -1, -2))
# @run
for epoch in range(2):
    for batch in loader:
        optimizer.zero_grad()
        loss = criterion(model(batch['x']), batch['y'])
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        losses += batch['id'].tolist()
losses.append(len(loader))
"""
    run_both(src, DATA)


@pytest.mark.parametrize("args", ["num_replicas=3, rank=1", "num_replicas=3, rank=2, shuffle=False",
                                  "num_replicas=4, rank=3, seed=5, drop_last=True", "num_replicas=2, rank=0, seed=1"])
def test_distributed_sampler_indices_per_rank_and_epoch(args):
    src = SETUP + f"""
from torch.utils.data.distributed import DistributedSampler

sampler = DistributedSampler(Pairs(), {args})
loader = DataLoader(Pairs(), batch_size=3, sampler=sampler)
# @run
for epoch in range(3):
    sampler.set_epoch(epoch)
    losses += list(sampler)
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
losses += [len(sampler), len(loader)]
"""
    result, _, _ = run_both(src, DATA)
    assert "class DistributedSampler:" in result.code


def test_forwarded_kwargs_with_seeded_generator_and_batch_sampler():
    src = SETUP + """
g = torch.Generator()
g.manual_seed(7)
loader_args = {'batch_size': 4, 'shuffle': True, 'generator': g}
loader_args.update({'num_workers': 0, 'pin_memory': False, 'persistent_workers': False})
loader = DataLoader(Pairs(), **loader_args)
blocks = DataLoader(Pairs(), batch_sampler=[[0, 1, 2], [5, 4], [22, 21, 20, 19]])
# @run
""" + LOOP + """
for x, y in blocks:
    losses += [float(x.sum()), float(y.sum()), len(x)]
"""
    result, _, _ = run_both(src, DATA)
    assert "loader = MapDataLoader(Pairs(), **loader_args)" in result.code


def test_plain_loader_stays_a_generator_dataset():
    code = convert(SETUP + "loader = DataLoader(Pairs(), batch_size=4, shuffle=True, num_workers=2)\n").code
    assert "ds.GeneratorDataset(Pairs()" in code and "MapDataLoader" not in code


def test_samplers_with_seeded_generators_and_a_user_sampler():
    src = SETUP + """
from torch.utils.data import BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler


class EveryOther(Sampler):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(0, self.n, 2))

    def __len__(self):
        return (self.n + 1) // 2


data = Pairs()
g = torch.Generator().manual_seed(21)
samplers = [RandomSampler(data, generator=g), RandomSampler(data, replacement=True, num_samples=40, generator=g),
            RandomSampler(data, num_samples=30, generator=g), SequentialSampler(data), EveryOther(len(data))]
loaders = [DataLoader(data, batch_size=4, sampler=s) for s in samplers]
loaders.append(DataLoader(data, batch_sampler=BatchSampler(
    SubsetRandomSampler(list(range(3, 20)), generator=torch.Generator().manual_seed(2)), 5, drop_last=False)))
# @run
for epoch in range(2):
    for loader in loaders:
        for x, y in loader:
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        losses.append(len(loader))
losses += [i for s in samplers for i in s]
"""
    result, _, _ = run_both(src, DATA)
    assert "class RandomSampler:" in result.code and "class EveryOther(object):" in result.code


def test_a_data_module_without_a_training_loop_gets_its_helpers():
    """data.py of a project: a seeded split of a TensorDataset, no loop (the training pass still writes the helpers)."""
    src = """
import torch
from torch.utils.data import TensorDataset, random_split

dataset = TensorDataset(torch.from_numpy(X), torch.from_numpy(Y))
losses = []
# @run
train_set, val_set = random_split(dataset, [0.6, 0.4], generator=torch.Generator().manual_seed(123))
losses += list(train_set.indices) + list(val_set.indices) + [float(train_set[0][0].sum()), len(val_set)]
"""
    run_both(src, DATA)
