def _msmigrate_einops_mindspore():
    """einops on MindSpore tensors (written by msmigrate). einops ships no MindSpore backend; it takes one from the
    subclasses of its AbstractBackend whose framework is imported, so defining one (once per process) is enough for
    ``rearrange`` / ``reduce`` / ``repeat`` / ``einsum`` to accept MindSpore tensors, with their gradients."""
    import einops._backends as backends

    if any(b.framework_name == "mindspore" for b in backends.AbstractBackend.__subclasses__()):
        return

    class MindSporeBackend(backends.AbstractBackend):
        framework_name = "mindspore"

        def is_appropriate_type(self, tensor):
            return isinstance(tensor, ms.Tensor)

        def from_numpy(self, x):
            return ms.Tensor(x)

        def to_numpy(self, x):
            return x.asnumpy()

        def arange(self, start, stop):
            return ops.arange(start, stop, dtype=ms.int64)

        def shape(self, x):
            return tuple(x.shape)

        def reshape(self, x, shape):
            return ops.reshape(x, tuple(shape))

        def transpose(self, x, axes):
            return ops.transpose(x, tuple(axes))

        def reduce(self, x, operation, axes):
            axes = tuple(axes)
            if operation in ("min", "max", "sum", "mean"):
                return {"min": ops.amin, "max": ops.amax, "sum": ops.sum, "mean": ops.mean}[operation](x, axes)
            if operation in ("any", "all", "prod"):  # one axis at a time, as einops does for torch
                for a in sorted(axes, reverse=True):
                    x = getattr(ops, operation)(x, a)
                return x
            raise NotImplementedError(f"Unknown reduction {operation}")

        def stack_on_zeroth_dimension(self, tensors):
            return ops.stack(list(tensors))

        def add_axis(self, x, new_position):
            return ops.expand_dims(x, new_position)

        def add_axes(self, x, n_axes, pos2len):
            repeats = [-1] * n_axes
            for position, length in pos2len.items():
                x = self.add_axis(x, position)
                repeats[position] = length
            return x.broadcast_to(tuple(repeats))

        def tile(self, x, repeats):
            return ops.tile(x, tuple(repeats))

        def concat(self, tensors, axis):
            return ops.cat(list(tensors), axis)

        def is_float_type(self, x):
            return x.dtype in (ms.float16, ms.float32, ms.float64, ms.bfloat16)

        def einsum(self, pattern, *x):
            return ops.einsum(pattern, *x)

    backends._msmigrate_mindspore = MindSporeBackend


class _MsmigrateEinopsRearrange(nn.Cell):
    """einops.layers.torch.Rearrange as a Cell (written by msmigrate): ``einops.rearrange`` in construct."""

    def __init__(self, pattern, **axes_lengths):
        super().__init__()
        _msmigrate_einops_mindspore()
        self.pattern, self.axes_lengths = pattern, axes_lengths

    def construct(self, x):
        import einops

        return einops.rearrange(x, self.pattern, **self.axes_lengths)


class _MsmigrateEinopsReduce(nn.Cell):
    """einops.layers.torch.Reduce as a Cell (written by msmigrate): ``einops.reduce`` in construct."""

    def __init__(self, pattern, reduction, **axes_lengths):
        super().__init__()
        _msmigrate_einops_mindspore()
        self.pattern, self.reduction, self.axes_lengths = pattern, reduction, axes_lengths

    def construct(self, x):
        import einops

        return einops.reduce(x, self.pattern, self.reduction, **self.axes_lengths)
