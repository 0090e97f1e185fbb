def _msmigrate_ntuple(x, n):
    """torch.nn.modules.utils._single/_pair/_triple/_quadruple (written by msmigrate): an iterable as a tuple,
    anything else repeated n times."""
    import collections.abc

    if isinstance(x, collections.abc.Iterable):
        return tuple(x)
    return (x,) * n
