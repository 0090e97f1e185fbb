def _msmigrate_instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                             use_input_stats=True, momentum=0.1, eps=1e-05):
    """F.instance_norm (no CPU kernel in MindSpore 2.10): per-(sample, channel) statistics over the spatial
    axes; with use_input_stats=False the given running statistics are used. Running statistics are not updated
    (a functional call has nowhere to write them back); pass use_input_stats=True without them, as torch's
    default does."""
    axes = tuple(range(2, input.ndim))
    view = (1, -1) + (1,) * (input.ndim - 2)
    if use_input_stats:
        mean = input.mean(axis=axes, keep_dims=True)
        var = ((input - mean) ** 2).mean(axis=axes, keep_dims=True)
    else:
        mean, var = running_mean.reshape(view), running_var.reshape(view)
    out = (input - mean) / ops.sqrt(var + eps)
    if weight is not None:
        out = out * weight.reshape(view)
    if bias is not None:
        out = out + bias.reshape(view)
    return out
