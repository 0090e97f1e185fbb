# apis: torch.nn.parallel.DistributedDataParallel, torch.nn.parallel.distributed.DistributedDataParallel
class DistributedDataParallel(nn.Cell):
    """PyTorch's DistributedDataParallel (written by msmigrate): the network is ``module`` (its parameters
    keep their names); when built under data parallel (init_data_parallel) rank 0's parameters and buffers are
    broadcast to every process, and with broadcast_buffers rank 0's buffers (BatchNorm statistics) again before each
    forward in training mode (PyTorch: before each forward after one with gradients enabled); the training step
    averages the gradients of its parameters over the processes (all_reduce_gradients), as PyTorch's backward does."""

    parameter_ids = set()

    def __init__(self, module, broadcast_buffers=True, init_buffers=None):
        super().__init__(auto_prefix=False)
        self.module, self.broadcast_buffers = module, broadcast_buffers
        self.distributed = ms.get_auto_parallel_context("parallel_mode") == ms.ParallelMode.DATA_PARALLEL
        if self.distributed:
            sync_buffers = broadcast_buffers if init_buffers is None else init_buffers
            for p in module.get_parameters():
                if p.requires_grad or sync_buffers:
                    self.from_rank0(p)
            DistributedDataParallel.parameter_ids.update(id(p) for p in module.trainable_params())

    @staticmethod
    def from_rank0(p):
        p.set_data(ops.Broadcast(0)((p.value(),))[0])

    def construct(self, *args, **kwargs):
        if self.distributed and self.broadcast_buffers and self.training:
            for p in self.module.get_parameters():
                if not p.requires_grad:
                    self.from_rank0(p)
        return self.module(*args, **kwargs)
