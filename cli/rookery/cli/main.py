"""The `rookery` console script.

Each command group lives in its own module of this package and exposes
``register(subparsers)``, which adds its sub-commands; a sub-command stores its handler as
``func`` in the parsed namespace. Handlers return the process exit code.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from collections.abc import Sequence

#: Modules of this package that are not command groups.
_NOT_COMMANDS = frozenset({"main"})


def command_modules() -> list[str]:
    """The command-group modules of this package: every module but `main`, sorted by name.

    A command group is a module ``rookery.cli.NAME`` with a ``register(subparsers)`` function, so
    each component adds its commands without editing this file.
    """
    package = importlib.import_module("rookery.cli")
    names = {info.name for info in pkgutil.iter_modules(package.__path__)}
    return sorted(names - _NOT_COMMANDS - {n for n in names if n.startswith("_")})


def version() -> str:
    """The installed distribution's version."""
    from rookery.wire.version import rookery_version

    return rookery_version()


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered command."""
    parser = argparse.ArgumentParser(
        prog="rookery",
        description=(
            "Rookery: authoritative Rook tables over gRPC, and an arena that plays bots written "
            "in any language against each other with ratings and replays."
        ),
        epilog="Run 'rookery COMMAND --help' for a command's options. Docs: docs/ in the source.",
    )
    parser.add_argument("--version", action="version", version=f"rookery {version()}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in command_modules():
        module = importlib.import_module(f"rookery.cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments and run the chosen command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        code: int = func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return code


if __name__ == "__main__":
    raise SystemExit(main())
