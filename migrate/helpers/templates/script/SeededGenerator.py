# apis: torch.Generator, torch.utils.data.DataLoader, torch.utils.data.random_split, torch.utils.data.RandomSampler, torch.utils.data.SubsetRandomSampler, torch.utils.data.distributed.DistributedSampler, torch.utils.data.DistributedSampler
class SeededGenerator:
    """A random stream drawn like PyTorch's CPU Generator (written by msmigrate): the same Mersenne Twister
    (MT19937 seeded with the low 32 bits of the seed, numpy's RandomState) and the same Fisher-Yates permutation,
    so randperm(n), random_split and the data loaders shuffle exactly as the original script did."""

    def __init__(self, device=None):
        self.manual_seed(67280421310721)  # PyTorch's default seed

    def manual_seed(self, seed):
        import numpy as np

        self.seed_value = int(seed)
        self.state = np.random.RandomState(self.seed_value & 0xFFFFFFFF)
        return self

    def seed(self):
        import random

        return self.manual_seed(random.getrandbits(63)).seed_value

    def initial_seed(self):
        return self.seed_value

    def draw(self, count):
        """The next ``count`` raw 32-bit outputs of the stream."""
        import numpy as np

        return self.state.randint(0, 2 ** 32, size=count, dtype=np.uint64).tolist() if count > 0 else []

    def randperm(self, n):
        """A permutation of range(n) (a list), as PyTorch's CPU randperm draws it."""
        order = list(range(n))
        for i, z in enumerate(self.draw(n - 1)):
            j = i + z % (n - i)
            order[i], order[j] = order[j], order[i]
        return order
