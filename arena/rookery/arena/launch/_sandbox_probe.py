"""What this machine offers for the sandbox (:func:`probe`): bubblewrap and its namespaces, a
writable cgroup v2 and the controllers it delegates."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import rookery.arena.launch._seccomp as _seccomp
from rookery.arena.launch._cgroups import _prepare_cgroup

__all__ = ["SandboxSupport", "probe"]


@dataclass(frozen=True)
class SandboxSupport:
    """What this machine offers for the sandbox (:func:`probe`)."""

    bwrap: str = ""
    #: Why the sandbox cannot be made here (empty: it can).
    problems: tuple[str, ...] = ()
    #: A cgroup v2 folder the arena may create groups in (None: no cgroup, /proc accounting).
    cgroup_parent: Path | None = None
    #: cgroup controllers that a bot's group gets (``memory``, ``pids``).
    controllers: frozenset[str] = frozenset()
    #: Whether the arena runs as root (then each bot process gets its own user id).
    as_root: bool = False

    @property
    def available(self) -> bool:
        """Whether the sandbox can be made."""
        return not self.problems

    def describe(self) -> str:
        """One line for the organiser: what is in force, what degrades to what."""
        if not self.available:
            return "no sandbox: " + "; ".join(self.problems)
        parts = [f"bubblewrap ({self.bwrap})"]
        if self.cgroup_parent is None:
            parts.append("no writable cgroup v2: CPU from /proc, limits by rlimits")
        else:
            parts.append(f"cgroup v2 at {self.cgroup_parent}")
            memory = (
                "memory.max"
                if "memory" in self.controllers
                else "RLIMIT_DATA per process and the arena's look every 0.1 s"
            )
            pids = "pids.max" if "pids" in self.controllers else "RLIMIT_NPROC"
            parts.append(f"memory by {memory}, processes by {pids}")
        parts.append("a user id per process" if self.as_root else "the organiser's user id")
        if _seccomp.program():
            parts.append("a seccomp filter (no file locks, watches, keyrings, io_uring)")
        return ", ".join(parts)


def _bwrap_works(bwrap: str, as_root: bool) -> str:
    """Empty if bwrap can make the namespaces the sandbox needs, else its error."""
    argv = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--die-with-parent"]
    if not as_root:
        argv.append("--unshare-user")
    argv += ["--ro-bind", "/", "/", "--proc", "/proc", "--", "/bin/true"]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    return "" if done.returncode == 0 else (done.stderr.strip() or f"exit {done.returncode}")


def probe(*, cgroups: bool = True) -> SandboxSupport:
    """What this machine offers: bubblewrap and its namespaces, a writable cgroup v2.

    A cgroup folder made here is removed by :meth:`SandboxRuntime.close`.
    """
    if not sys.platform.startswith("linux"):
        return SandboxSupport(problems=("the sandbox needs Linux (namespaces, cgroups)",))
    as_root = os.geteuid() == 0
    bwrap = shutil.which("bwrap") or ""
    if not bwrap:
        return SandboxSupport(
            problems=("bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)",),
            as_root=as_root,
        )
    error = _bwrap_works(bwrap, as_root)
    if error:
        why = "user and network namespaces" if not as_root else "pid and network namespaces"
        return SandboxSupport(
            bwrap=bwrap,
            problems=(
                f"bwrap cannot create {why} here ({error}); on Debian allow unprivileged user "
                "namespaces (sysctl kernel.unprivileged_userns_clone=1) or run the arena as root",
            ),
            as_root=as_root,
        )
    parent, controllers = (None, frozenset[str]())
    if cgroups:
        parent, controllers = _prepare_cgroup(frozenset({"memory", "pids"}))
    return SandboxSupport(
        bwrap=bwrap, cgroup_parent=parent, controllers=controllers, as_root=as_root
    )
