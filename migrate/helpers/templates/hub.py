def _msmigrate_torch_home():
    """torch.hub._get_torch_home: $TORCH_HOME, else $XDG_CACHE_HOME/torch, else ~/.cache/torch (torch's rule)."""
    import os

    return os.path.expanduser(os.getenv("TORCH_HOME", os.path.join(os.getenv("XDG_CACHE_HOME", "~/.cache"), "torch")))


def _msmigrate_hub_dir():
    """torch.hub.get_dir: the hub cache under the torch home."""
    import os

    return os.path.join(_msmigrate_torch_home(), "hub")


def _msmigrate_load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                                        file_name=None, weights_only=False):
    """torch.hub.load_state_dict_from_url: a converted model downloads nothing. Convert a local torch checkpoint
    with `msmigrate weights` and load it with mindspore.load_checkpoint / load_param_into_net instead."""
    raise RuntimeError(f"cannot download {url}: the converted code loads no torch checkpoint from the network; "
                       "convert a local file with `msmigrate weights FILE.pth -o FILE.ckpt` and load that")
