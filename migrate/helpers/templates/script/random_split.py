# apis: torch.utils.data.random_split
def random_split(dataset, lengths, generator=None):
    """PyTorch's random_split (written by msmigrate): lengths or fractions (the remainder is given out one by
    one from the first split); with a seeded generator the split is PyTorch's (same stream, same permutation).
    Without one the permutation is drawn from a stream seeded by ms.get_seed() (PyTorch's global stream is not
    reproduced)."""
    import math
    import random

    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = [math.floor(len(dataset) * frac) for frac in lengths]
        for i in range(len(dataset) - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    if generator is None:
        seed = ms.get_seed()
        generator = SeededGenerator().manual_seed(random.getrandbits(63) if seed is None else seed)
    indices = generator.randperm(sum(lengths))
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, indices[offset:offset + length]))
        offset += length
    return out
