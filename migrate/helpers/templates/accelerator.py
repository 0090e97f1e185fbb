def _msmigrate_current_device():
    """torch.cuda.current_device (written by msmigrate): the index of the accelerator MindSpore runs on (its
    device_id on GPU or Ascend); on CPU an AssertionError, as torch raises on a machine without CUDA."""
    if ms.get_context("device_target") == "CPU":
        raise AssertionError("Torch not compiled with CUDA enabled (MindSpore runs on CPU: no accelerator)")
    return ms.get_context("device_id")
