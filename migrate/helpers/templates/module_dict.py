class _MsmigrateModuleDict(nn.Cell):
    """torch.nn.ModuleDict (written by msmigrate): MindSpore's CellDict refuses SequentialCell, CellList and CellDict
    values (torchvision's IntermediateLayerGetter, a GPT's ``ModuleDict(dict(h=ModuleList(...)))``). This Cell holds
    any cell under its key, in insertion order, with its parameters named ``key.name`` as torch names them."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        setattr(self, key, cell)

    def __delitem__(self, key):
        delattr(self, key)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __contains__(self, key):
        return key in self._cells

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def pop(self, key):
        cell = self._cells[key]
        del self[key]
        return cell

    def clear(self):
        for key in list(self._cells):
            del self[key]

    def update(self, modules):
        for key, cell in (modules.items() if hasattr(modules, "items") else modules):
            self[key] = cell
