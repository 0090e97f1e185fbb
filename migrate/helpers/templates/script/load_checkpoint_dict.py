# apis: torch.load
def load_checkpoint_dict(path):
    """Loads what save_checkpoint_dict or ms.save_checkpoint wrote (written by msmigrate) as a dict: state dicts
    under their keys, plain values as Python values, or the Parameters of a plain checkpoint. MindSpore adds
    '.ckpt' to a file name without it."""
    import os

    path = str(path)
    if not path.endswith(".ckpt") and os.path.exists(path + ".ckpt"):
        path += ".ckpt"
    out = {}
    for name, value in ms.load_checkpoint(path).items():
        key, sep, rest = name.partition("/")
        if name.startswith(":"):
            out[name[1:]] = value if isinstance(value, str) else value.asnumpy().item()
        elif sep:
            out.setdefault(key, {})[rest] = value
        else:
            out[name] = value
    return out
