# apis: torch.utils.data.distributed.DistributedSampler, torch.utils.data.DistributedSampler
class DistributedSampler:
    """PyTorch's DistributedSampler (written by msmigrate): this process's share of the dataset's
    indices exactly as PyTorch's: shuffled per epoch (set_epoch) from seed + epoch, padded by repetition (or cut when
    drop_last) to a multiple of the number of processes, then every num_replicas-th index from rank. The process
    group is MindSpore's (msrun): get_group_size() processes, this one get_rank()."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        import math

        if num_replicas is None:
            num_replicas = ms.communication.get_group_size()
        if rank is None:
            rank = ms.communication.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank, self.epoch = dataset, num_replicas, rank, 0
        self.shuffle, self.seed, self.drop_last = shuffle, seed, drop_last
        if drop_last and len(dataset) % num_replicas:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        import math

        n = len(self.dataset)
        indices = SeededGenerator().manual_seed(self.seed + self.epoch).randperm(n) if self.shuffle else list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            indices += indices[:pad] if pad <= len(indices) else (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch
