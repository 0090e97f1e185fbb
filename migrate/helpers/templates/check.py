def _msmigrate_assert(condition, message):
    """torch._assert (written by msmigrate): an AssertionError with the message when the condition is false."""
    if not condition:
        raise AssertionError(message)


def _msmigrate_check(cond, message=None):
    """torch._check (written by msmigrate): a RuntimeError when cond is false; message is a callable giving it."""
    if not cond:
        raise RuntimeError(message() if message is not None else "Expected cond to be True, but got False.")
