"""The mapping table: ``mappings/*.toml`` loaded and validated into typed :class:`Entry` rules.

One TOML file per API family. Each ``[[api]]`` table describes one torch API::

    [[api]]
    torch = "torch.nn.Conv2d"          # qualified name; tensor methods are written "Tensor.view"
    kind = "class"                     # class | function | method | attribute | dtype
    ms = "mindspore.nn.Conv2d"         # MindSpore target (qualified); or use `forms` with templates
    args = ["in_channels", "out_channels", "kernel_size", "stride", "padding"]  # torch signature order
    keep_positional = 4                # leading positional args that keep their place in the MindSpore call
    rename = { groups = "group", bias = "has_bias" }
    fill = { bias = "True" }           # torch defaults MindSpore does not share, filled in when omitted
    transform = { momentum = "1 - {momentum}" }
    inject = { pad_mode = "'pad'" }    # MindSpore arguments always added
    drop = ["device", "dtype"]         # torch arguments with no MindSpore meaning (dropped)
    unsupported = { padding_mode = "..." }   # present => unsupported with this reason...
    allow = { padding_mode = ["'zeros'"] }   # ...unless its source text is one of these
    unsupported = { subclass = "..." }       # (key "subclass") refused where a class statement derives from it
    rule = "conv_padding"              # a named Python rule (migrate/mapping/rules.py) for what tables cannot say
    forms = [{ when = ["dim"], template = "{self}.shape[{dim}]" }, { template = "{self}.shape" }]
    notes = "..."
    train_mode = true                  # the layer's result depends on the mode: built as ms(...).set_train(True)
    value_class = true                 # used as a value (not called), the name is the class `ms` itself: a type in
                                       # annotations, casts and tuples of types (torch.Tensor), though calls are adapted

In-place methods name the out-of-place entry that computes the new value (or "forms": the entry's own forms)::

    [[api]]
    torch = "Tensor.add_"
    kind = "method"
    inplace = "Tensor.add"             # a whole statement x.add_(y) becomes x.copy_(<conversion of x.add(y)>)
    rebind = true                      # optional: x = <conversion> instead (the shape changes: unsqueeze_, t_)

Values in ``fill``, ``inject`` and ``allow`` are Python source text. Templates use ``{name}`` for bound torch
arguments, ``{self}`` for a method's receiver and ``{*}`` for the extra positional arguments of a ``*args``
signature. ``load_table`` raises :class:`MappingError` naming the file and entry of any invalid one.
"""
from __future__ import annotations

from .table import Entry, Form, MappingError, Table, load_table

__all__ = ["Entry", "Form", "MappingError", "Table", "load_table"]
