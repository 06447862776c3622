"""The folders of a sandboxed bot: which folder is the bot's own, what of the host the arena's
Python needs, and what inside the bot's folder the sandbox covers up."""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

__all__ = ["bot_folder", "hidden_inside", "linked_packages"]

#: Files that mark a project's folder (the bot's folder when its program is in a subfolder).
_PROJECT_FILES = (
    "package.json",
    "Cargo.toml",
    "go.mod",
    "pom.xml",
    "build.gradle",
    "CMakeLists.txt",
    "pyproject.toml",
    "build.sh",
)
#: Names of the folders a build writes into: a program or script there belongs to the project
#: above (``dist/myBot.js``, ``target/release/bot``), which holds what it loads.
_BUILD_FOLDERS = frozenset({"bin", "build", "dist", "out", "target", "debug", "release", "lib"})


def _interpreter_paths() -> list[Path]:
    """What the arena's own Python needs: its prefixes, and the folders on its path that hold
    Rookery's packages (an editable install). Never the working directory, the home, ``/``."""
    home = Path.home().resolve()
    prefixes = [Path(p).resolve() for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)]
    paths: list[Path] = []
    for raw in [*map(str, prefixes), *sys.path]:
        if not raw:
            continue
        path = Path(raw).resolve()
        if not path.is_dir() or path == home or path == Path("/") or home.is_relative_to(path):
            continue
        inside = any(path.is_relative_to(prefix) for prefix in prefixes)
        if inside or (path / "rookery").is_dir():
            paths.append(path)
    paths.append(Path(sys.executable).resolve().parent)
    return paths


def _minimal(paths: Iterable[Path]) -> list[Path]:
    """The paths without those inside another one of them."""
    unique = sorted(set(paths), key=lambda p: len(p.parts))
    kept: list[Path] = []
    for path in unique:
        if not any(path.is_relative_to(k) for k in kept):
            kept.append(path)
    return kept


def bot_folder(argv: Sequence[str], workdir: str | None = None) -> Path | None:
    """The bot's own folder: that of the first file its command names after the program
    (``python bot.py``, ``rookery bot run path/bot.py:Bot``; a relative name is looked up in
    ``workdir``, the folder the command runs in), else that of the program, or the project
    above it when the program sits in a build folder (``kit/bin/bot`` with ``kit/Cargo.toml``:
    ``kit``)."""
    if not argv:
        return None
    base = Path(workdir) if workdir else Path.cwd()
    for word in argv[1:]:
        if word.startswith("-"):
            continue
        candidate = base / Path(word.rpartition(":")[0] if ":" in word else word)
        try:
            is_file = ("/" in word or bool(candidate.suffix)) and candidate.is_file()
        except OSError:  # a word too long to be a file name (a ``-c`` program)
            is_file = False
        if is_file:
            return _project_folder(candidate.resolve().parent)
    program = argv[0]
    if "/" not in program:
        found = shutil.which(program)
        if found is None:
            return None
        program = found
    path = Path(program).resolve()
    if not path.exists():
        return None
    folder = path.parent
    if any((folder.parent / marker).exists() for marker in _PROJECT_FILES):
        return folder.parent  # a build's bin/ or dist/: the project holds what it loads
    return _project_folder(folder)


def _project_folder(folder: Path) -> Path:
    """The project a build folder belongs to (the folder above ``dist/`` or ``target/debug/``
    that holds a project file), else ``folder`` itself."""
    candidate = folder
    for _ in range(2):
        if candidate.name not in _BUILD_FOLDERS:
            break
        if any((candidate.parent / marker).exists() for marker in _PROJECT_FILES):
            return candidate.parent
        candidate = candidate.parent
    return folder


def linked_packages(folder: Path) -> list[Path]:
    """The folders that the packages in ``folder``'s ``node_modules`` link to outside it
    (``npm install ../kit`` makes such a link): Node loads a package from where it lies."""
    found: list[Path] = []
    modules = folder / "node_modules"
    with contextlib.suppress(OSError):
        entries = [*modules.iterdir()]
        for scope in [e for e in entries if e.name.startswith("@") and e.is_dir()]:
            with contextlib.suppress(OSError):
                entries += [*scope.iterdir()]
        for entry in entries:
            if not entry.is_symlink():
                continue
            with contextlib.suppress(OSError):
                target = entry.resolve()
                if target.is_dir() and not target.is_relative_to(folder.resolve()):
                    found.append(target)
    return found


#: Folders not looked into for an older run's ``arena.sqlite`` (large, and never a run).
_UNSCANNED = frozenset({"node_modules", ".git", "target", ".venv", "venv", "__pycache__"})
#: At most this many folder entries are looked at per bot folder for older runs.
_SCAN_LIMIT = 20_000


def _older_runs(folder: Path) -> list[Path]:
    """Run directories (holding an ``arena.sqlite``) one or two levels inside ``folder``."""
    found: list[Path] = []
    seen = 0
    level = [folder]
    for _depth in range(2):
        below: list[Path] = []
        for parent in level:
            with contextlib.suppress(OSError), os.scandir(parent) as entries:
                for entry in entries:
                    seen += 1
                    if seen > _SCAN_LIMIT:
                        return found
                    if entry.name in _UNSCANNED or not entry.is_dir(follow_symlinks=False):
                        continue
                    path = Path(entry.path)
                    if (path / "arena.sqlite").exists():
                        found.append(path)
                    else:
                        below.append(path)
        level = below
    return found


def hidden_inside(
    folder: Path,
    *,
    run_dirs: Iterable[Path] = (),
    private: Iterable[Path] = (),
    keep: Iterable[Path] = (),
    home: Path | None = None,
) -> list[Path]:
    """What inside a bot's ``folder`` the sandbox covers up although the folder is mounted.

    - each run directory (``run_dirs``: the SQLite file with the seed, every bot's log) and,
      when it lies inside the folder too, the folder that holds it (``runs/``: earlier runs);
    - any older run (a folder with an ``arena.sqlite``) one or two levels down;
    - the ``private`` folders (the other bots' own) inside it;
    - the organiser's ``home`` inside it, or its dotfiles when the folder is the home itself.

    Never a path that holds or lies in one of ``keep`` (what the bot needs: its Python).
    """
    folder = folder.resolve()
    wanted: list[Path] = []
    for raw in run_dirs:
        run_dir = raw.resolve()
        wanted.append(run_dir)
        if run_dir.parent != folder:
            wanted.append(run_dir.parent)
    wanted += _older_runs(folder)
    wanted += [p.resolve() for p in private]
    if home is not None:
        home = home.resolve()
        if home == folder:
            with contextlib.suppress(OSError):
                wanted += [p for p in folder.iterdir() if p.name.startswith(".")]
        else:
            wanted.append(home)
    kept = [k.resolve() for k in keep]
    hidden = [
        path
        for path in wanted
        if path != folder
        and path.is_relative_to(folder)
        and not path.is_symlink()
        and path.exists()
        and not any(k.is_relative_to(path) or path.is_relative_to(k) for k in kept)
    ]
    return sorted(_minimal(hidden))
