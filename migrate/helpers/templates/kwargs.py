def _msmigrate_kwargs(api, options, keep=None, drop=(), unset=(), defaults=None):
    """Keyword arguments a torch call received as ``**options`` (written by msmigrate): their keys are known only
    when it runs. Names in ``keep`` are passed on under their MindSpore names; names in ``drop`` are discarded (a
    device: MindSpore places tensors by its context); names in ``unset`` are discarded only when they hold the
    default (a dtype of None or float32); ``defaults`` (MindSpore names) are what torch's defaults become, given
    unless a kept key sets them. Any other key raises: msmigrate never guesses its conversion."""
    out = dict(defaults or {})
    for key, value in options.items():
        if keep and key in keep:
            out[keep[key]] = value
        elif key in drop:
            continue
        elif key in unset and (value is None or value == ms.float32):
            continue
        else:
            raise TypeError(f"{api}(**...): msmigrate did not convert the argument {key}={value!r} passed through "
                            "**; pass it by name and convert again")
    return out
