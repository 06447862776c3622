"""A launched bot's command line: which program it runs, in which folder, and whether it exists.

- ``python`` and ``python3`` are the interpreter that runs the arena (its venv's), so a bot file
  started as ``python my_bot.py`` imports the same ``rookery`` without an activated venv;
- ``rookery`` is the Rookery that runs the arena (``<that python> -m rookery.cli.main``), so the
  shipped configs' ``rookery bot run ...`` work when the arena was started as ``.venv/bin/rookery``;
- a command from a config file runs in that file's folder, so its relative paths (``./bot``,
  ``python bots/mine.py``) mean the same wherever the arena is started (``--bot`` flags: the
  current folder);
- a program that cannot be found is :class:`CommandNotFoundError`, reported once: it is no crash,
  and starting it again would not help.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from rookery.arena.errors import BotLaunchError

__all__ = ["CommandNotFoundError", "check_program", "resolve_argv", "working_folder"]

#: Program names that mean "the Python running the arena".
_PYTHONS = frozenset({"python", "python3", f"python3.{sys.version_info.minor}"})


class CommandNotFoundError(BotLaunchError):
    """A launched bot's program does not exist (or is not executable)."""


def resolve_argv(argv: list[str]) -> list[str]:
    """``argv`` with ``python`` and ``rookery`` meaning the arena's own interpreter and Rookery."""
    if not argv:
        return argv
    program, rest = argv[0], argv[1:]
    if program in _PYTHONS:
        return [sys.executable, *rest]
    if program == "rookery":
        return [sys.executable, "-m", "rookery.cli.main", *rest]
    return list(argv)


def working_folder(workdir: str) -> str | None:
    """The folder a bot's command runs in: its config file's, when that folder exists here."""
    if workdir and Path(workdir).is_dir():
        return workdir
    return None


def check_program(
    bot: str, argv: list[str], cwd: str | None, path: str | None, folder: str = ""
) -> None:
    """Raise :class:`CommandNotFoundError` unless ``argv[0]`` names a program that can start.

    A name with a ``/`` is a file (relative to ``cwd``); a bare name is looked up in ``path``
    (the bot's ``PATH``), as ``execvp`` would. The script of the arena's Python
    (``python my_bot.py``) must be a file in ``cwd`` or the bot's ``folder``: missing, Python
    would name whatever folder it was started in (in the sandbox, the one of ``python``).
    """
    program = argv[0] if argv else ""
    if not program:
        raise CommandNotFoundError(f"bot {bot!r}: the command is empty")
    if program == sys.executable and len(argv) > 1 and not argv[1].startswith("-"):
        script, base = argv[1], Path(cwd or ".")
        places = [base, base / folder] if folder else [base]
        if not any((place / script).is_file() for place in places):
            raise CommandNotFoundError(
                f"bot {bot!r}: python cannot open {script!r}: no such file in {base.absolute()}"
            )
    if os.sep in program:
        file = Path(cwd or ".") / program
        if not file.is_file():
            raise CommandNotFoundError(
                f"bot {bot!r}: command not found: {program!r} (no such file {file.absolute()})"
            )
        if not os.access(file, os.X_OK):
            raise CommandNotFoundError(
                f"bot {bot!r}: {program!r} is not executable (chmod +x {file.absolute()})"
            )
        return
    if shutil.which(program, path=path) is None:
        raise CommandNotFoundError(
            f"bot {bot!r}: command not found: {program!r} is not on the bot's PATH"
        )


def absolute_paths(argv: Sequence[str], cwd: str | None) -> tuple[str, ...]:
    """``argv`` with its program when named by a relative path (``target/debug/mybot``) and each
    word that names a file relative to ``cwd`` (``bots/mine.py``, ``bot.py:Bot``) made absolute:
    a sandboxed bot starts in its own folder, not in ``cwd``."""
    base = Path(cwd) if cwd else Path.cwd()
    words = []
    if argv:
        program = argv[0]
        if os.sep in program and not Path(program).is_absolute() and (base / program).is_file():
            program = str((base / program).resolve())  # ``target/debug/mybot``, ``./bot``
        words.append(program)
    for word in argv[1:]:
        path, colon, rest = word.partition(":")
        candidate = base / path
        if (
            not word.startswith("-")
            and path
            and not Path(path).is_absolute()
            and candidate.is_file()
        ):
            word = str(candidate.resolve()) + colon + rest
        words.append(word)
    return tuple(words)
