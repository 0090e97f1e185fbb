class _MsmigrateRemovableHandle:
    """torch.utils.hooks.RemovableHandle (written by msmigrate): a key into a dict of hooks that removes its entry
    (from the dict and any extra dicts) on remove() or at the end of a with block, as torch's does. Ids count
    from 0 in each converted file (torch counts over the process)."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        import weakref

        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = _MsmigrateRemovableHandle.next_id
        _MsmigrateRemovableHandle.next_id += 1
        self.extra_dict_ref = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra_dict = ref()
            if extra_dict is not None and self.id in extra_dict:
                del extra_dict[self.id]

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()
