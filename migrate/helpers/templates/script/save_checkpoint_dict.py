# apis: torch.save
def save_checkpoint_dict(obj, path):
    """Saves a checkpoint dict as one MindSpore checkpoint (written by msmigrate): state dicts (dicts of
    Parameters) as '<key>/<name>', int / float / bool / str values as ':<key>'; load_checkpoint_dict reads it."""
    entries, values = [], {}
    for key, value in obj.items():
        if isinstance(value, dict):
            entries += [{"name": f"{key}/{name}", "data": data} for name, data in value.items()]
        elif isinstance(value, ms.Tensor):
            entries.append({"name": key, "data": value})
        elif isinstance(value, bool):
            values[f":{key}"] = ms.Tensor(value, ms.bool_)
        elif isinstance(value, (int, float)):
            values[f":{key}"] = ms.Tensor(value, ms.int64 if isinstance(value, int) else ms.float64)
        elif isinstance(value, str):
            values[f":{key}"] = value
        else:
            raise TypeError(f"checkpoint entry {key!r}: a {type(value).__name__} is not a state dict, a Tensor or an "
                            "int, float, bool or str")
    ms.save_checkpoint(entries, str(path), append_dict=values)
