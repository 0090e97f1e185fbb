# apis: torch.utils.data.TensorDataset
class TensorDataset:
    """PyTorch's TensorDataset (written by msmigrate): sample i is the tuple of row i of each tensor."""

    def __init__(self, *tensors):
        if any(len(t) != len(tensors[0]) for t in tensors):
            raise ValueError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return len(self.tensors[0])
