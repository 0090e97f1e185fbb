"""Writing files for every command: atomically (a temporary file in the same folder, then ``os.replace``, so a
reader never sees half a file and an existing file is never left half-written) and with the mode a plain
``open()`` would give (0644 under umask 022), not ``mkstemp``'s 0600 or MindSpore's read-only checkpoints."""
from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


def _umask() -> int:
    try:  # Linux says it without changing it
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: 0o666 less the umask."""
    return 0o666 & ~_umask()


@contextmanager
def atomic_path(path, suffix: str = "", keep_mode: bool = False):
    """Yield a temporary path beside ``path`` for a writer that wants a file name (``torch.save``,
    ``ms.save_checkpoint``, the ONNX exporter); on success give it the user's mode and rename it to ``path``, on
    failure remove it. ``keep_mode``: an existing ``path`` keeps its mode (``lint --fix`` rewriting a source)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=f".tmp{suffix}", dir=path.parent)
    os.close(fd)
    try:
        yield tmp
        mode = path.stat().st_mode & 0o7777 if keep_mode and path.exists() else new_file_mode()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_atomic(path, data: str | bytes, keep_mode: bool = False) -> None:
    """Write text (UTF-8, newlines as given) or bytes to ``path`` atomically, with the user's file mode."""
    with atomic_path(path, keep_mode=keep_mode) as tmp:
        with open(tmp, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
