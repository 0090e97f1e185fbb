def _msmigrate_default_collate(batch):
    """torch.utils.data.default_collate (written by msmigrate): a list of samples stacked into MindSpore tensors
    the way torch's collates them (tensors stacked, numbers to float64 / int64 / bool tensors, str kept, mappings
    and sequences collated field by field)."""
    import collections.abc

    import numpy as np

    elem = batch[0]
    if isinstance(elem, ms.Tensor):
        return ops.stack(batch)
    if isinstance(elem, (np.ndarray, np.generic)) and elem.dtype.kind not in "USO":
        return ms.Tensor(np.stack([np.asarray(b) for b in batch]))
    if isinstance(elem, float):
        return ms.Tensor(np.array(batch, np.float64))
    if isinstance(elem, int):
        return ms.Tensor(np.array(batch, np.bool_ if all(isinstance(b, bool) for b in batch) else np.int64))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return {key: _msmigrate_default_collate([d[key] for d in batch]) for key in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(_msmigrate_default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [_msmigrate_default_collate(list(s)) for s in zip(*batch)]
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(elem)}")


class _MsmigrateConcatDataset:
    """torch.utils.data.ConcatDataset (written by msmigrate): the datasets one after another, indexed as torch's
    (cumulative sizes, negative indices from the end)."""

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        self.cumulative_sizes, total = [], 0
        for d in self.datasets:
            total += len(d)
            self.cumulative_sizes.append(total)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        import bisect

        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]
