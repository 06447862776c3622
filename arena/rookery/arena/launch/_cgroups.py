"""The sandbox's cgroup v2 groups: the arena's own group, made, swept and removed.

A bot's processes live in a group of their own under the arena's (:meth:`SandboxRuntime.command`
makes it), which bounds their memory and processes and lets the arena meter and kill them all at
once; a group left by an arena killed before it could clean up is swept on the next start.
"""

from __future__ import annotations

import contextlib
import os
import random
import time
from pathlib import Path

__all__: list[str] = []  # the launch room's names are its package's (rookery.arena.launch)


def _cgroup2_mount() -> Path | None:
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        left, _, right = line.partition(" - ")
        if right.split(" ", 1)[0] == "cgroup2":
            return Path(left.split(" ")[4])
    return None


def _own_cgroup2() -> str | None:
    try:
        for line in Path("/proc/self/cgroup").read_text().splitlines():
            if line.startswith("0::"):
                return line[3:]
    except OSError:
        pass
    return None


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text)
    except OSError:
        return False
    return True


def _remove_group(group: Path) -> bool:
    """Remove an empty cgroup folder and its empty children; False if one holds processes."""
    with contextlib.suppress(OSError):
        for child in group.iterdir():
            if child.is_dir():
                _remove_group(child)
    for _ in range(50):  # a group's last tasks may still be exiting
        try:
            group.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:
            time.sleep(0.01)
    return False


def _sweep(base: Path) -> None:
    """Remove the empty groups of arenas that are gone (killed before they could clean up)."""
    with contextlib.suppress(OSError):
        for group in base.glob("rookery-*-*"):
            owner = group.name.split("-")[1]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                _remove_group(group)


def _prepare_cgroup(wanted: frozenset[str]) -> tuple[Path | None, frozenset[str]]:
    """A group of this arena's own under its cgroup v2, with what controllers can be delegated."""
    mount, own = _cgroup2_mount(), _own_cgroup2()
    if mount is None or own is None:
        return None, frozenset()
    base = mount / own.lstrip("/")
    _sweep(base)
    parent = base / f"rookery-{os.getpid()}-{random.randrange(16**6):06x}"
    try:
        parent.mkdir()
    except OSError:
        return None, frozenset()
    if not (parent / "cgroup.kill").exists():
        parent.rmdir()
        return None, frozenset()
    try:
        offered = set((base / "cgroup.controllers").read_text().split())
        enabled = set((base / "cgroup.subtree_control").read_text().split())
    except OSError:
        offered, enabled = set(), set()
    for name in sorted(wanted & offered - enabled):
        _write(base / "cgroup.subtree_control", f"+{name}")
    try:
        reachable = set((parent / "cgroup.controllers").read_text().split()) & wanted
    except OSError:
        reachable = set()
    granted = {name for name in reachable if _write(parent / "cgroup.subtree_control", f"+{name}")}
    return parent, frozenset(granted)
