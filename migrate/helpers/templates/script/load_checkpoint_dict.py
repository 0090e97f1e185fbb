# apis: torch.load
def load_checkpoint_dict(path):
    """torch.load (msmigrate): what save_checkpoint_dict or ms.save_checkpoint wrote, as a dict; ms.save_checkpoint
    writes 'a.pth' as 'a.pth.ckpt'."""
    import os

    path = f"{path}.ckpt" if not str(path).endswith(".ckpt") and os.path.exists(f"{path}.ckpt") else str(path)
    out = {}
    for name, value in ms.load_checkpoint(path).items():
        if name.startswith(":"):  # a plain value: ':epoch'
            out[name[1:]] = value if isinstance(value, str) else value.asnumpy().item()
        else:  # 'model/conv.weight' -> out['model']['conv.weight']; a plain checkpoint's names stay flat
            key, sep, rest = name.partition("/")
            (out.setdefault(key, {}) if sep else out)[rest if sep else name] = value
    return out
