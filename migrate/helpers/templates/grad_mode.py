class _MsmigrateGradMode:
    """torch.enable_grad / torch.set_grad_enabled (written by msmigrate): gradient recording on (or set to `mode`)
    inside a `with` block or a decorated function, the previous state restored after, through MindSpore's PyNative
    executor as its own ms._no_grad does. `now`: set_grad_enabled(mode) sets the state when it is called (a plain
    statement keeps it), as torch's does."""

    def __init__(self, mode=True, orig_func=None, now=False):
        from mindspore.common.api import _pynative_executor

        self.mode = bool(mode)
        self.prev = bool(_pynative_executor.enable_grad())
        self.orig_func = orig_func
        self.now = now
        if now:
            _pynative_executor.set_enable_grad(self.mode)

    def __enter__(self):
        from mindspore.common.api import _pynative_executor

        _pynative_executor.set_enable_grad(self.mode)

    def __exit__(self, exc_type, exc_value, traceback):
        from mindspore.common.api import _pynative_executor

        _pynative_executor.set_enable_grad(self.prev)
        return False

    def __call__(self, *args, **kwargs):
        import functools

        if self.orig_func is not None:  # @torch.enable_grad (bare): this object is the decorated function
            with _MsmigrateGradMode(self.mode):
                return self.orig_func(*args, **kwargs)
        if self.now:  # @torch.set_grad_enabled(mode): the state applies inside the function only
            from mindspore.common.api import _pynative_executor

            _pynative_executor.set_enable_grad(self.prev)
        func, mode = args[0], self.mode

        @functools.wraps(func)
        def wrapper(*a, **k):
            with _MsmigrateGradMode(mode):
                return func(*a, **k)

        return wrapper


def _msmigrate_enable_grad(orig_func=None):
    """torch.enable_grad (written by msmigrate): `with torch.enable_grad():`, `@torch.enable_grad()` or bare."""
    return _MsmigrateGradMode(True, orig_func)


def _msmigrate_set_grad_enabled(mode):
    """torch.set_grad_enabled (written by msmigrate): sets the state now; as a context or decorator, restores it."""
    return _MsmigrateGradMode(mode, None, now=True)



def _msmigrate_value_inference_mode(mode=True):
    """torch.inference_mode used as a value (written by msmigrate): called with torch's argument when the code runs;
    inference_mode() is MindSpore's no_grad context (ms.grad refuses inside it, as torch records no graph)."""
    if not mode:
        raise NotImplementedError("inference_mode(False) is not converted")
    return ms._no_grad()


def _msmigrate_value_no_grad(orig_func=None):
    """torch.no_grad used as a value (written by msmigrate): called when the code runs, MindSpore's no_grad context
    (ms.grad refuses inside it, as torch records no graph)."""
    if orig_func is not None:
        raise NotImplementedError("torch.no_grad(func) is not converted")
    return ms._no_grad()
