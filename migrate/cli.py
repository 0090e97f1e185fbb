"""Command-line entry point: argument parsing and exit codes only.

Each sub-command lives in ``migrate/commands/<name>.py`` and exposes ``HELP`` (one line),
``DESCRIPTION`` (the ``--help`` text), ``add_arguments(parser)`` and ``run(args) -> int``.
Command modules import torch / mindspore lazily inside ``run`` so that ``--help`` and
``convert`` stay fast.
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

from . import __version__, exitcodes
from .runtime import prepare_mindspore_env

# name -> module; the order is the order of `msmigrate --help`.
COMMANDS = {
    "convert": "migrate.commands.convert",
    "mappings": "migrate.commands.mappings",
    "scan": "migrate.commands.scan",
    "weights": "migrate.commands.weights",
    "parity": "migrate.commands.parity",
    "lint": "migrate.commands.lint",
}

EXIT_USAGE = exitcodes.USAGE


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="msmigrate",
        description="Port PyTorch code to MindSpore and prove the port computes the same thing.",
        epilog="example: msmigrate convert model.py -o ms/   (each command: msmigrate COMMAND --help; "
               "docs: docs/index.md)",
    )
    parser.add_argument("--version", action="version", version=f"msmigrate {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(module_name)
        p = sub.add_parser(
            name,
            help=module.HELP,
            description=module.DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        p.set_defaults(_run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    prepare_mindspore_env()  # before any command imports MindSpore (see migrate/runtime.py)
    parser = build_parser()
    args = parser.parse_args(argv)  # argparse exits with 2 on usage errors
    if not getattr(args, "_run", None):
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    try:
        return args._run(args)
    except KeyboardInterrupt:
        print("msmigrate: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `msmigrate ... | head`: the reader left; say nothing more
        sys.stdout = open(os.devnull, "w")
        return 0


if __name__ == "__main__":
    sys.exit(main())
