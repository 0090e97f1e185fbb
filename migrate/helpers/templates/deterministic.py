def _msmigrate_use_deterministic_algorithms(mode, warn_only=False):
    """torch.use_deterministic_algorithms (written by msmigrate): MindSpore's deterministic kernels, which it lets a
    process set once: asking again for the state already set is a no-op, asking for the other one raises (torch
    could switch back and forth). warn_only has no MindSpore counterpart."""
    wanted = "ON" if mode else "OFF"
    if ms.get_context("deterministic") == wanted:
        return
    try:
        ms.set_deterministic(bool(mode))
    except RuntimeError as exc:
        raise RuntimeError(f"torch.use_deterministic_algorithms({bool(mode)}): MindSpore sets deterministic kernels "
                           f"once per process ({exc})") from None
