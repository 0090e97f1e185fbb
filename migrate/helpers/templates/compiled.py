class _MsmigrateOptimizedModule:
    """torch._dynamo.OptimizedModule (written by msmigrate): the wrapper torch.compile returns. torch.compile
    converts to the module itself, so no converted object is one: `isinstance(m, OptimizedModule)` is False and
    code that unwraps `m._orig_mod` keeps the module, which is what the wrapper held."""
