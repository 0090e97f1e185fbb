# apis: torch.utils.data.RandomSampler, torch.utils.data.sampler.RandomSampler
class RandomSampler:
    """PyTorch's RandomSampler (written by msmigrate): with a seeded generator the same indices as PyTorch's
    (permutations of the dataset, or with replacement draws taken 32 at a time); without one they come from a stream
    seeded by ms.get_seed(), not PyTorch's global stream."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        import random

        self.data_source, self.replacement, self._num_samples, self.generator = (data_source, replacement,
                                                                                 num_samples, generator)
        seed = ms.get_seed()
        self.own_stream = SeededGenerator().manual_seed(random.getrandbits(63) if seed is None else seed)

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, stream = len(self.data_source), self.generator or self.own_stream
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from [z % n for z in stream.draw(32)]
            yield from [z % n for z in stream.draw(self.num_samples % 32)]
        else:
            for _ in range(self.num_samples // n):
                yield from stream.randperm(n)
            yield from stream.randperm(n)[:self.num_samples % n]

    def __len__(self):
        return self.num_samples
