"""A progress bar on stderr for long runs (tqdm), shown only to a person watching a terminal.

Shown when stderr is a terminal, stdout is not piped (a terminal or a file: ``> report.txt`` keeps the bar,
``| less`` does not), the environment variable CI is not set (any value but "" / "0" / "false" counts as set)
and ``--quiet`` was not given; otherwise every call is a no-op, so pipes, logs and CI stay clean. The bar is
removed when it closes (``leave=False``): the command's own summary follows.
"""
from __future__ import annotations

import io
import os
import stat
import sys


def wanted(quiet: bool = False, stderr=None, stdout=None) -> bool:
    """Whether a bar should be drawn (see the module docstring)."""
    if quiet:
        return False
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false"):
        return False
    stderr = stderr if stderr is not None else sys.stderr
    stdout = stdout if stdout is not None else sys.stdout
    try:
        return bool(stderr.isatty()) and not _piped(stdout)
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def _piped(stream) -> bool:
    """stdout goes into a pipe or socket (``| less``, ``| tee``), not a terminal or a file."""
    if stream.isatty():
        return False
    try:
        mode = os.fstat(stream.fileno()).st_mode
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return True  # not a real file (captured, replaced): treat as piped
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


class Progress:
    """``Progress(desc, unit)``; call it with an int to set the total, with None to advance by one
    (the ``progress`` callback of :func:`migrate.api.convert_path`), or use ``update(n)`` / ``describe(text)``.
    A context manager; closing it removes the bar."""

    def __init__(self, desc: str, unit: str = "file", total: int | None = None, quiet: bool = False):
        self.bar = None
        self.desc, self.unit = desc, unit
        self.enabled = wanted(quiet)
        if total is not None:
            self(total)

    def __call__(self, n: int | None) -> None:
        if not self.enabled:
            return
        if n is None:
            self.update(1)
        elif self.bar is None:
            from tqdm import tqdm

            self.bar = tqdm(total=n, desc=self.desc, unit=self.unit, file=sys.stderr, leave=False,
                            dynamic_ncols=True)
        else:
            self.bar.total = n
            self.bar.refresh()

    def update(self, n: int = 1) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def describe(self, text: str) -> None:
        if self.bar is not None:
            self.bar.set_description_str(text)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
