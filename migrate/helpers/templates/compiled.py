class _MsmigrateOptimizedModule:
    """torch._dynamo.OptimizedModule (written by msmigrate): the wrapper torch.compile returns. torch.compile
    converts to the module itself, so no converted object is one: `isinstance(m, OptimizedModule)` is False and
    code that unwraps `m._orig_mod` keeps the module, which is what the wrapper held."""


class _MsmigrateScriptModule:
    """torch.jit.ScriptModule (written by msmigrate): what torch.jit.script returns for a module. torch.jit.script
    converts to the module itself, so no converted object is one (isinstance is False)."""


class _MsmigrateScriptFunction:
    """torch.jit.ScriptFunction (written by msmigrate): what torch.jit.script returns for a function. torch.jit.script
    converts to the function itself, so no converted object is one (isinstance is False)."""
