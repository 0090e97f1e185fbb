# apis: torch.distributed.init_process_group
def launcher_env(name, *default):
    """os.environ[name] for a variable PyTorch's launcher sets, read under msrun (written by msmigrate): LOCAL_RANK ->
    DEVICE_ID, RANK -> RANK_ID, WORLD_SIZE -> MS_WORKER_NUM (msrun sets no LOCAL_RANK / RANK / WORLD_SIZE,
    measured). msrun also runs the script as its scheduler (MS_ROLE=MS_SCHED), which stops inside
    communication.init() and has no rank variables: a rank read before init_data_parallel() is "0" there."""
    import os

    key = {"LOCAL_RANK": "DEVICE_ID", "RANK": "RANK_ID", "WORLD_SIZE": "MS_WORKER_NUM"}[name]
    if os.environ.get("MS_ROLE") == "MS_SCHED" and key not in os.environ:
        return "0"
    return os.environ.get(key, *default) if default else os.environ[key]
