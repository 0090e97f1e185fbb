# apis: torch.distributed.barrier
def data_parallel_barrier():
    """PyTorch's distributed barrier (written by msmigrate): MindSpore has no CPU Barrier kernel (measured); an
    AllReduce returns only once every process has reached it."""
    ops.AllReduce()(ms.Tensor([0.0], ms.float32)).asnumpy()
