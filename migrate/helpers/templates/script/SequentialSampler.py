# apis: torch.utils.data.SequentialSampler, torch.utils.data.sampler.SequentialSampler
class SequentialSampler:
    """PyTorch's SequentialSampler (written by msmigrate): 0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)
