class _MsmigrateTreeSpec:
    """torch.utils._pytree.TreeSpec (written by msmigrate): the container structure tree_flatten found (the node
    type, its context -- dict keys, a namedtuple's class, a deque's maxlen, a defaultdict's factory -- and the
    children's specs); a leaf is _MsmigrateTreeSpec(None, None, [])."""

    def __init__(self, type, context, children_specs):
        self.type, self.context, self.children_specs = type, context, list(children_specs)
        self.num_leaves = 1 if type is None else sum(s.num_leaves for s in self.children_specs)
        self.num_nodes = 1 + sum(s.num_nodes for s in self.children_specs)
        self.num_children = len(self.children_specs)

    def is_leaf(self):
        return self.type is None

    def __eq__(self, other):
        return (isinstance(other, _MsmigrateTreeSpec) and (self.type, self.context, self.children_specs)
                == (other.type, other.context, other.children_specs))

    def __repr__(self):
        return "*" if self.type is None else f"TreeSpec({self.type.__name__}, {self.context!r}, {self.children_specs})"


def _msmigrate_tree_children(tree):
    """(children, node type, context) for the containers torch's pytree knows by exact type, else None (a leaf)."""
    import collections

    t = type(tree)
    if t is tuple or t is list:
        return list(tree), t, None
    if isinstance(tree, tuple) and hasattr(t, "_fields"):  # a namedtuple
        return list(tree), "namedtuple", t
    if t is dict:
        return list(tree.values()), dict, list(tree.keys())
    if t is collections.OrderedDict:
        return list(tree.values()), t, list(tree.keys())
    if t is collections.defaultdict:
        return list(tree.values()), t, (tree.default_factory, list(tree.keys()))
    if t is collections.deque:
        return list(tree), t, tree.maxlen
    return None


def _msmigrate_tree_flatten(tree, is_leaf=None):
    """torch.utils._pytree.tree_flatten (written by msmigrate): the leaves in torch's order (lists, tuples,
    namedtuples, dicts in insertion order, OrderedDicts, defaultdicts, deques are containers; everything else,
    None and tensors included, is a leaf) and the spec that rebuilds the structure."""
    leaves = []

    def walk(node):
        found = None if (is_leaf is not None and is_leaf(node)) else _msmigrate_tree_children(node)
        if found is None:
            leaves.append(node)
            return _MsmigrateTreeSpec(None, None, [])
        children, kind, context = found
        spec = _MsmigrateTreeSpec(tuple if kind == "namedtuple" else kind, context, [walk(c) for c in children])
        spec.namedtuple = kind == "namedtuple"
        return spec

    return leaves, walk(tree)


def _msmigrate_tree_unflatten(leaves, treespec):
    """torch.utils._pytree.tree_unflatten (written by msmigrate): the structure of ``treespec`` with these leaves."""
    import collections

    leaves = list(leaves)
    if len(leaves) != treespec.num_leaves:
        raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers to a "
                         f"pytree that holds {treespec.num_leaves} items ({treespec}).")
    it = iter(leaves)

    def build(spec):
        if spec.type is None:
            return next(it)
        children = [build(s) for s in spec.children_specs]
        if getattr(spec, "namedtuple", False):
            return spec.context(*children)
        if spec.type in (tuple, list):
            return spec.type(children)
        if spec.type is collections.defaultdict:
            factory, keys = spec.context
            return collections.defaultdict(factory, zip(keys, children))
        if spec.type is collections.deque:
            return collections.deque(children, maxlen=spec.context)
        return spec.type(zip(spec.context, children))

    return build(treespec)
