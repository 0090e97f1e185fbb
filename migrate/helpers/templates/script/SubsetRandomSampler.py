# apis: torch.utils.data.SubsetRandomSampler, torch.utils.data.sampler.SubsetRandomSampler
class SubsetRandomSampler:
    """PyTorch's SubsetRandomSampler (written by msmigrate): ``indices`` in a random order, PyTorch's with a seeded
    generator (a stream seeded by ms.get_seed() without one)."""

    def __init__(self, indices, generator=None):
        import random

        self.indices, self.generator = indices, generator
        seed = ms.get_seed()
        self.own_stream = SeededGenerator().manual_seed(random.getrandbits(63) if seed is None else seed)

    def __iter__(self):
        for i in (self.generator or self.own_stream).randperm(len(self.indices)):
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)
