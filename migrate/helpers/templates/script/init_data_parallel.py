# apis: torch.distributed.init_process_group
def init_data_parallel():
    """PyTorch's init_process_group -> MindSpore data parallel under msrun (written by msmigrate): joins the
    processes msrun started (communication.init) and sets DATA_PARALLEL with averaged gradients; in PyNative mode
    the training step averages them itself (all_reduce_gradients)."""
    ms.communication.init()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
