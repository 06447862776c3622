"""The `rookery` console script.

Each command group lives in its own module of this package and exposes
``register(subparsers)``, which adds its sub-commands; a sub-command stores its handler as
``func`` in the parsed namespace. Handlers return the process exit code.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import select
import sys
from collections.abc import Sequence
from pathlib import Path

from rookery.engine import build_info

__all__ = ["EXIT_READER_GONE", "build_parser", "command_modules", "main", "version"]

#: The exit code when stdout's reader went away (``rookery rules | head -1``): 128 + SIGPIPE, as
#: a shell reports a command that the signal stopped.
EXIT_READER_GONE = 128 + 13


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


class _VersionAction(argparse.Action):
    """``--version``: the version, which build of the engine runs and the native core's version
    and wheel tag (``rookery 0.1.0 (engine: ...; native core 0.1.0, built for cp311-abi3-...)``,
    or ``no native core``)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and the builds")

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        engine, core = str(build_info()), _core_version()
        # The engine's build names the core when it runs on it: the core's version once.
        print(f"rookery {version()} (engine: {engine})" if core in engine else
              f"rookery {version()} (engine: {engine}; {core})")  # fmt: skip
        parser.exit()


def _core_version() -> str:
    """The native core in this install (the wheel's ``rookery_core``) and the platform its wheel
    is tagged for, or that there is none."""
    try:
        import rookery_core
    except ImportError:
        return "no native core: the pure engine"
    tag = _wheel_tag(Path(rookery_core.__file__ or ""))
    return f"native core {rookery_core.__version__}" + (f", built for {tag}" if tag else "")


def _wheel_tag(module: Path) -> str:
    """The tag of the installed wheel that holds ``module`` (``cp311-abi3-manylinux2014_x86_64.
    manylinux_2_17_x86_64``, as its file was named), or "" where no wheel's record names it."""
    from importlib import metadata

    for name in metadata.packages_distributions().get(module.parent.name, []):
        distribution = metadata.distribution(name)
        files = [distribution.locate_file(f) for f in distribution.files or ()]
        if not any(Path(str(f)).resolve() == module.resolve() for f in files):
            continue
        lines = (distribution.read_text("WHEEL") or "").splitlines()
        tags = [line.removeprefix("Tag: ").split("-") for line in lines if line.startswith("Tag: ")]
        if tags and len({(t[0], t[1]) for t in tags}) == 1:
            return f"{tags[0][0]}-{tags[0][1]}-" + ".".join(t[2] for t in tags)
    return ""


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every registered command."""
    parser = argparse.ArgumentParser(
        prog="rookery",
        description=(
            "Rookery: authoritative Rook tables over gRPC, and an arena that plays bots written "
            "in any language against each other with ratings and replays."
        ),
        epilog=(
            "Run 'rookery COMMAND --help' for a command's options. Docs: docs/ in the source. "
            "A command whose reader goes away ('rookery rules | head -1') stops quietly with "
            f"exit code {EXIT_READER_GONE}."
        ),
    )
    parser.add_argument("--version", action=_VersionAction)
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in command_modules():
        module = importlib.import_module(f"rookery.cli.{name}")
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the arguments and run the chosen command.

    When stdout's reader goes away (a closed pipe) the command stops quietly, whatever it was
    doing, with ``EXIT_READER_GONE``: handled here once, for every command.
    """
    try:
        try:
            return _run(argv)
        finally:  # --help and usage errors leave by SystemExit: flush those too
            sys.stdout.flush()
    except BrokenPipeError:
        if not _stdout_gone():
            raise  # another pipe (a bot's stdin, a socket): a real error
        _silence_stdout()
        return EXIT_READER_GONE
    except SystemExit as exit_:
        # rich's Console meets a closed stdout by pointing it at /dev/null and SystemExit(1)
        # raised while handling the BrokenPipeError: the same event, the same exit code.
        if isinstance(exit_.__context__, BrokenPipeError):
            return EXIT_READER_GONE
        raise


def _run(argv: Sequence[str] | None) -> int:
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


def _stdout_gone() -> bool:
    """Whether stdout is a pipe or socket whose reader has closed it."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):  # replaced or closed: nothing more to write
        return True
    poller = select.poll()
    poller.register(fd, select.POLLOUT)
    return any(events & (select.POLLERR | select.POLLHUP) for _, events in poller.poll(0))


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so that what is still buffered goes nowhere at exit instead of
    raising again (Python's "Exception ignored ... BrokenPipeError")."""
    with contextlib.suppress(AttributeError, OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


if __name__ == "__main__":
    raise SystemExit(main())
