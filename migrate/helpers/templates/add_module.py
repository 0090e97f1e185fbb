def _msmigrate_add_module(parent, name, module):
    """torch's Module.add_module / register_module (written by msmigrate): the child under that name, as
    ``parent.name = module`` does (MindSpore names its parameters by that path; insert_child_to_cell leaves a
    top-level cell's unprefixed). A SequentialCell also runs it, in order, as torch's Sequential does (its
    construct reads ``cell_list``, which setting an attribute does not update)."""
    setattr(parent, name, module)
    if isinstance(parent, nn.SequentialCell):
        parent.cell_list = list(parent._cells.values())
