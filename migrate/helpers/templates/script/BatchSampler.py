# apis: torch.utils.data.BatchSampler, torch.utils.data.sampler.BatchSampler
class BatchSampler:
    """PyTorch's BatchSampler (written by msmigrate): lists of batch_size indices of ``sampler``, the last one shorter
    unless drop_last."""

    def __init__(self, sampler, batch_size, drop_last):
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        return len(self.sampler) // self.batch_size if self.drop_last else -(-len(self.sampler) // self.batch_size)
