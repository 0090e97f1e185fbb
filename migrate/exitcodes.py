"""The exit codes every command shares (docs/exit_codes.md lists them in one table).

0  done, nothing needs you
1  the command ran and something needs you: a file that failed to convert (syntax error, undecodable bytes,
   an internal error), lint findings, a parity divergence (or the MindSpore side raised)
2  usage or input error, nothing was done: bad arguments, a missing or unreadable path, an invalid mapping table,
   a checkpoint that cannot be read or does not fit, a model that cannot be loaded
3  converted, with markers left: some torch API unsupported (convert, scan), some ONNX op left as a stub
"""
from __future__ import annotations

OK, FAILED, USAGE, UNSUPPORTED = 0, 1, 2, 3

_MEANING = {
    OK: "done",
    FAILED: "{failed}",
    USAGE: "usage or input error (bad arguments, missing or unreadable path; nothing done)",
    UNSUPPORTED: "{unsupported}",
}


def help_line(failed: str | None = None, unsupported: str | None = None) -> str:
    """The ``exit codes: ...`` line of a command's --help: the codes it can return, in the shared meaning."""
    parts = ["0 done"]
    if failed:
        parts.append(f"1 {failed}")
    parts.append("2 usage or input error (nothing done)")
    if unsupported:
        parts.append(f"3 {unsupported}")
    import textwrap

    return "\n".join(textwrap.wrap("exit codes: " + ", ".join(parts) + " (all commands: docs/exit_codes.md)",
                                   width=105))
