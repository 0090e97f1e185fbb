# apis: Module.load_state_dict, torch.optim.Optimizer.load_state_dict
def load_params(cell, state_dict, strict=True):
    """Module.load_state_dict (written by msmigrate): copies the values into the Cell's (or optimizer's) Parameters
    in place; after ms.load_param_into_net an optimizer holding them no longer moves them (MindSpore 2.10)."""
    own = cell.parameters_dict()
    missing = [name for name in own if name not in state_dict]
    unexpected = [name for name in state_dict if name not in own]
    if strict and (missing or unexpected):
        raise RuntimeError(f"Error(s) in loading state_dict: missing keys {missing}, unexpected keys {unexpected}")
    for name, value in state_dict.items():
        if name in own:
            if tuple(value.shape) != tuple(own[name].shape):
                raise RuntimeError(f"size mismatch for {name}: {tuple(value.shape)} in the checkpoint, "
                                   f"{tuple(own[name].shape)} in the model")
            own[name].copy_(value)
    return missing, unexpected
