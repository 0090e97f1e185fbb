# apis: torch.nn.parallel.DistributedDataParallel, torch.nn.parallel.distributed.DistributedDataParallel
def all_reduce_gradients(parameters, grads):
    """DistributedDataParallel's gradient averaging (written by msmigrate): the gradients of the parameters of
    DistributedDataParallel cells are divided by the number of processes and summed over them (ops.AllReduce), as
    PyTorch's DDP does in backward(); other gradients are left as they are."""
    ids = DistributedDataParallel.parameter_ids
    if not ids:
        return grads
    allreduce, size = ops.AllReduce(), ms.communication.get_group_size()
    return tuple(allreduce(g / size) if id(p) in ids else g for p, g in zip(parameters, grads))
