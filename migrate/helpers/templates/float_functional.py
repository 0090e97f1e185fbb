class _MsmigrateFloatFunctional(nn.Cell):
    """torch.ao.nn.quantized.FloatFunctional (written by msmigrate): the float (not yet quantized) module that
    quantization-ready models call for tensor arithmetic (self.skip_add.add(x, y)); its methods compute what torch's
    float module does. Quantization itself is not converted."""

    def construct(self, x):
        raise RuntimeError("FloatFunctional is not intended to use the 'forward'. Please use the underlying operation")

    def add(self, x, y):
        return ops.add(x, y)

    def add_scalar(self, x, y):
        return ops.add(x, y)

    def mul(self, x, y):
        return ops.mul(x, y)

    def mul_scalar(self, x, y):
        return ops.mul(x, y)

    def cat(self, x, dim=0):
        return ops.cat(tuple(x), dim)

    def add_relu(self, x, y):
        return ops.relu(ops.add(x, y))

    def matmul(self, x, y):
        return ops.matmul(x, y)
