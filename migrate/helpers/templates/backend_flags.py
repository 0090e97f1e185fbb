class _MsmigrateBackendFlags:
    """torch.backends flags that choose kernels without changing what they compute (written by msmigrate): kept
    here so that code reading a flag gets what it set (torch's defaults otherwise). MindSpore picks its kernels
    itself; nothing else reads them."""

    cudnn_benchmark = False
