# apis: Module.load_state_dict, torch.optim.Optimizer.load_state_dict
def load_params(cell, state_dict, strict=True):
    """Module.load_state_dict (msmigrate): raises as torch does where ms.load_param_into_net only reports missing
    names, and copies in place (an optimizer keeps the Parameters it holds)."""
    params = cell.parameters_dict()
    missing, unexpected = [k for k in params if k not in state_dict], [k for k in state_dict if k not in params]
    if strict and (missing or unexpected):
        raise RuntimeError(f"Error(s) in loading state_dict: missing keys {missing}, unexpected keys {unexpected}")
    for name in (k for k in state_dict if k in params):
        if tuple(state_dict[name].shape) != params[name].shape:  # copy_ would broadcast
            raise RuntimeError(f"size mismatch for {name}: {tuple(state_dict[name].shape)} in the checkpoint, "
                               f"{params[name].shape} in the model")
        params[name].copy_(state_dict[name])
    return missing, unexpected
