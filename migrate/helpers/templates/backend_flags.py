class _MsmigrateBackendFlags:
    """torch.backends flags that choose kernels without changing what they compute (written by msmigrate): kept
    here so that code reading a flag gets what it set (torch's defaults otherwise). MindSpore picks its kernels
    itself; nothing else reads them."""

    cudnn_benchmark = False

    jit_profiling_executor = True
    jit_profiling_mode = True


def _msmigrate_jit_set_profiling_executor(flag):
    """torch._C._jit_set_profiling_executor (written by msmigrate): TorchScript's executor choice; converted code
    runs no TorchScript, so the setting is only kept, and the previous one returned, as torch does."""
    previous, _MsmigrateBackendFlags.jit_profiling_executor = _MsmigrateBackendFlags.jit_profiling_executor, bool(flag)
    return previous


def _msmigrate_jit_set_profiling_mode(flag):
    """torch._C._jit_set_profiling_mode (written by msmigrate): kept, the previous setting returned, as torch does."""
    previous, _MsmigrateBackendFlags.jit_profiling_mode = _MsmigrateBackendFlags.jit_profiling_mode, bool(flag)
    return previous
