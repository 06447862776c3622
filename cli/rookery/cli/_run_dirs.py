"""Where ``rookery arena run`` writes: a new run directory per run, ``runs/latest`` the last.

A rerun after editing a bot must not show the previous run's games as its own, so a run without
``--out`` or ``--resume`` gets a directory of its own, named by its tournament and its start time
(``runs/arena-20261206-052113``), and a tournament is resumed only when asked (``--resume DIR``),
as fastchess and cutechess do. ``runs/latest`` is a symbolic link to the last one, so the
documented commands (``rookery arena report runs/latest``) work as printed on any run.
"""

from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path

__all__ = ["DEFAULT_RUNS", "LATEST", "new_run_dir", "point_latest"]

#: The folder of the default run directories, in the current folder.
DEFAULT_RUNS = Path("runs")

#: The name of the link to the last run directory, in :data:`DEFAULT_RUNS`.
LATEST = "latest"


def new_run_dir(runs: Path, tournament_id: str, now: float | None = None) -> Path:
    """A fresh, empty directory ``runs/<tournament_id>-<date>-<time>`` (``-2``, ``-3``, ... after
    it when two runs start in the same second), created here so that no other run takes it."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    runs.mkdir(parents=True, exist_ok=True)
    base = f"{tournament_id}-{stamp}"
    for attempt in range(1, 1000):
        candidate = runs / (base if attempt == 1 else f"{base}-{attempt}")
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        return candidate
    raise FileExistsError(f"{runs / base}: 999 run directories of this second exist already")


def point_latest(run_dir: Path) -> Path | None:
    """Point ``<run_dir's folder>/latest`` at ``run_dir``; the link, or None when ``latest``
    there is not a link of ours (a real file or folder is left as it is)."""
    link = run_dir.parent / LATEST
    if link.exists() and not link.is_symlink():
        return None
    staged = run_dir.parent / f".{LATEST}-{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        staged.unlink()
    staged.symlink_to(run_dir.name, target_is_directory=True)
    os.replace(staged, link)  # atomic: a reader sees the old link or the new one
    return link
