# apis: torch.utils.data.DataLoader
class MapDataLoader:
    """PyTorch's DataLoader over a map-style dataset (written by msmigrate), read in this process: the same batches
    in the same order as PyTorch's (in order; shuffled from a seeded generator exactly like PyTorch's RandomSampler,
    which also draws a 64-bit worker seed from it each epoch; a sampler; a batch sampler), made by collate_fn or
    PyTorch's default collation (Tensors and arrays stacked into Tensors, Python numbers into int64 / float64 /
    bool Tensors, tuples / lists / dicts per field, strings as lists). Worker, pinning, prefetch and timeout options
    only affect speed and are ignored (worker_init_fn is not called: no workers are started). Shuffling without a
    generator draws from a stream seeded by ms.get_seed(), not PyTorch's."""

    SPEED = {"prefetch_factor", "persistent_workers", "pin_memory_device", "in_order"}

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, **options):
        import random

        if set(options) - self.SPEED:
            raise TypeError(f"DataLoader got unexpected keyword arguments {sorted(set(options) - self.SPEED)}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size = None
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with "
                             "drop_last")
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler, self.shuffle = sampler, batch_sampler, bool(shuffle)
        self.collate_fn, self.generator = collate_fn, generator
        seed = ms.get_seed()
        self.own_stream = SeededGenerator().manual_seed(random.getrandbits(63) if seed is None else seed)

    def indices(self):
        if self.sampler is not None:
            return iter(self.sampler)
        if not self.shuffle:
            return iter(range(len(self.dataset)))
        return self.shuffled(self.generator or self.own_stream, len(self.dataset))

    @staticmethod
    def shuffled(stream, n):
        yield from stream.randperm(n)
        stream.draw(n - 1)  # PyTorch's RandomSampler then draws the permutation of its last num_samples % n (none)

    def __iter__(self):
        if self.generator is not None:
            self.generator.draw(2)  # the workers' base seed PyTorch draws at each iteration
        if self.batch_sampler is not None:
            for batch in self.batch_sampler:
                yield (self.collate_fn or self.default_collate)([self.dataset[i] for i in batch])
            return
        if self.batch_size is None:
            for i in self.indices():
                yield self.collate_fn(self.dataset[i]) if self.collate_fn else self.default_convert(self.dataset[i])
            return
        batch = []
        for i in self.indices():
            batch.append(i)
            if len(batch) == self.batch_size:
                yield (self.collate_fn or self.default_collate)([self.dataset[j] for j in batch])
                batch = []
        if batch and not self.drop_last:
            yield (self.collate_fn or self.default_collate)([self.dataset[j] for j in batch])

    def __len__(self):
        if self.batch_sampler is not None:
            return len(self.batch_sampler)
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    @classmethod
    def default_convert(cls, data):
        import collections.abc

        import numpy as np

        if isinstance(data, np.ndarray) and data.dtype.kind not in "USO":
            return ms.Tensor(data)
        if type(data).__module__ == "torch" and hasattr(data, "numpy"):  # a kept torch pipeline's sample
            return ms.Tensor(data.detach().cpu().numpy())
        if isinstance(data, collections.abc.Mapping):
            return {key: cls.default_convert(data[key]) for key in data}
        if isinstance(data, tuple) and hasattr(data, "_fields"):
            return type(data)(*(cls.default_convert(d) for d in data))
        if isinstance(data, (list, tuple)):
            return type(data)(cls.default_convert(d) for d in data)
        return data

    @classmethod
    def default_collate(cls, batch):
        import collections.abc

        import numpy as np

        elem = batch[0]
        if isinstance(elem, ms.Tensor):
            return ops.stack(batch)
        if type(elem).__module__ == "torch" and hasattr(elem, "numpy"):  # a kept torch pipeline's sample
            return ms.Tensor(np.stack([b.detach().cpu().numpy() for b in batch]))
        if isinstance(elem, (np.ndarray, np.generic)) and elem.dtype.kind not in "USO":
            return ms.Tensor(np.stack([np.asarray(b) for b in batch]))
        if isinstance(elem, float):
            return ms.Tensor(np.array(batch, np.float64))
        if isinstance(elem, int):
            return ms.Tensor(np.array(batch, np.bool_ if all(isinstance(b, bool) for b in batch) else np.int64))
        if isinstance(elem, (str, bytes)):
            return batch
        if isinstance(elem, collections.abc.Mapping):
            return {key: cls.default_collate([d[key] for d in batch]) for key in elem}
        if isinstance(elem, tuple) and hasattr(elem, "_fields"):
            return type(elem)(*(cls.default_collate(list(s)) for s in zip(*batch)))
        if isinstance(elem, collections.abc.Sequence):
            if any(len(b) != len(elem) for b in batch):
                raise RuntimeError("each element in list of batch should be of equal size")
            return [cls.default_collate(list(s)) for s in zip(*batch)]
        raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                        f"found {type(elem)}")
