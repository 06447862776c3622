"""The metering of a sandboxed process and all it started: CPU time, tasks, memory, scratch
files and the cgroup's limit events, read from its cgroup or else from ``/proc``."""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass
from pathlib import Path

from rookery.arena.launch._cgroups import _remove_group, _write

__all__ = ["Footprint", "ProcessMeter", "leftover_processes"]

_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _stat_fields(pid: int) -> list[str]:
    """The fields of ``/proc/<pid>/stat`` after the command's name: the state first."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()


def _read_stat(pid: int) -> tuple[float, int]:
    """(CPU seconds of the process, its threads and reaped children included; its threads)."""
    fields = _stat_fields(pid)
    ticks = sum(int(fields[i]) for i in (11, 12, 13, 14))  # utime stime cutime cstime
    return ticks / _TICKS, int(fields[17])


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for tid in os.listdir(f"/proc/{pid}/task"):
            with contextlib.suppress(OSError):
                text = Path(f"/proc/{pid}/task/{tid}/children").read_text()
                found += [int(c) for c in text.split()]
    return found


def _tree(root: int) -> list[int]:
    pids, queue = [], [root]
    while queue:
        pid = queue.pop()
        pids.append(pid)
        queue += _children(pid)
    return pids


def _alive(pid: int) -> bool:
    """Whether a process still runs: not gone, and not a zombie waiting to be reaped (whose
    command line reads empty)."""
    try:
        return _stat_fields(pid)[0] not in ("Z", "X")
    except OSError:
        return False


def leftover_processes(pid: int) -> int:
    """The live processes in the sandbox of ``pid`` (bubblewrap's first process) that are no
    longer under the bot's first process: orphans adopted by the sandbox's pid 1 (daemons,
    background processes). A zombie is not one: a bot that has just exited, or the sandbox's
    init while it exits with it, is still a child of pid 1 until it is reaped."""
    count = 0
    for ns_init in _children(pid):
        for child in _children(ns_init):
            try:
                cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            except OSError:
                continue
            if b"_sandbox_exec.py" not in cmdline:
                count += sum(1 for process in _tree(child) if _alive(process))
    return count


def _status_kib(pid: int, keys: tuple[str, ...]) -> int:
    """The sum of ``keys`` (``RssAnon`` …, in kB) in a process's ``/proc/<pid>/status``."""
    total = 0
    with contextlib.suppress(OSError, ValueError, IndexError):
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            key, _, value = line.partition(":")
            if key in keys:
                total += int(value.split()[0])
    return total


def _memory_files(pid: int, seen: dict[tuple[int, int], int]) -> None:
    """The anonymous memory files (memfd) a process holds open, by inode, with their bytes."""
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            path = f"/proc/{pid}/fd/{fd}"
            with contextlib.suppress(OSError):
                if os.readlink(path).startswith("/memfd:"):
                    stat = os.stat(path)
                    seen[(stat.st_dev, stat.st_ino)] = stat.st_blocks * 512


@dataclass(frozen=True)
class Footprint:
    """What a sandbox holds that its rlimits do not bound (:meth:`ProcessMeter.footprint`)."""

    #: Resident private and shared memory of its processes, its memory files and the bytes of
    #: its tmpfs mounts (``/tmp``, ``/dev/shm``).
    memory_bytes: int
    #: Files and folders in its tmpfs mounts (each inode is kernel memory).
    files: int


@dataclass
class ProcessMeter:
    """CPU time, task count and limit events of one sandboxed process and all it started."""

    pid: int
    cgroup: Path | None = None
    #: The most tasks (processes and threads) seen at once.
    peak_tasks: int = 0
    _last_cpu: float = 0.0

    def cpu_seconds(self) -> float:
        """CPU time used so far (cgroup ``cpu.stat``, else the process tree in /proc).

        Never decreases: a process tree that lost a member (reaped by nobody yet) keeps its
        last reading.
        """
        value = self._last_cpu
        if self.cgroup is not None:
            with contextlib.suppress(OSError, ValueError):
                for line in (self.cgroup / "cpu.stat").read_text().splitlines():
                    if line.startswith("usage_usec "):
                        value = int(line.split()[1]) / 1e6
                        break
        else:
            total = 0.0
            for pid in _tree(self.pid):
                with contextlib.suppress(OSError, ValueError, IndexError):
                    total += _read_stat(pid)[0]
            value = max(value, total)
        self._last_cpu = value
        return value

    def tasks(self) -> int:
        """Processes and threads alive now (also updates :attr:`peak_tasks`)."""
        count = 0
        if self.cgroup is not None:
            with contextlib.suppress(OSError):
                count = len((self.cgroup / "cgroup.threads").read_text().split())
        else:
            for pid in _tree(self.pid):
                with contextlib.suppress(OSError, ValueError, IndexError):
                    count += _read_stat(pid)[1]
        self.peak_tasks = max(self.peak_tasks, count)
        return count

    def footprint(self, scratch_bytes: int) -> Footprint:
        """Memory and scratch files of the sandbox now (``RLIMIT_DATA`` sees only private
        memory, and no limit counts inodes): resident anonymous and shared memory of every
        process, open memory files, and its tmpfs mounts of ``scratch_bytes`` (``/tmp``,
        ``/dev/shm``) seen through the root of its first process inside."""
        memory_kib = 0
        memory_files: dict[tuple[int, int], int] = {}
        for pid in _tree(self.pid):
            memory_kib += _status_kib(pid, ("RssAnon", "RssShmem"))
            _memory_files(pid, memory_files)
        used, files = 0, 0
        for inner in _children(self.pid)[:1]:  # bwrap's pid 1 in the sandbox
            for mount in ("tmp", "dev/shm"):
                with contextlib.suppress(OSError):
                    vfs = os.statvfs(f"/proc/{inner}/root/{mount}")
                    if vfs.f_blocks * vfs.f_frsize != scratch_bytes:
                        continue  # not the sandbox's own yet (its root is still the host's)
                    used += (vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize
                    files += vfs.f_files - vfs.f_ffree
        return Footprint(memory_kib * 1024 + sum(memory_files.values()) + used, files)

    def events(self) -> dict[str, int]:
        """The cgroup's limit events: ``oom_kill``, ``max`` (pids) — empty without cgroup."""
        found: dict[str, int] = {}
        if self.cgroup is None:
            return found
        for name, keys in (("memory.events", ("oom_kill", "max")), ("pids.events", ("max",))):
            with contextlib.suppress(OSError, ValueError):
                for line in (self.cgroup / name).read_text().splitlines():
                    key, _, value = line.partition(" ")
                    if key in keys:
                        label = "pids_max" if name == "pids.events" else f"memory_{key}"
                        found[label] = int(value)
        return found

    def alive(self) -> int:
        """Processes of the sandbox still alive (0 once all are gone)."""
        if self.cgroup is not None:
            with contextlib.suppress(OSError):
                return len((self.cgroup / "cgroup.procs").read_text().split())
            return 0
        return (
            len([p for p in _tree(self.pid) if Path(f"/proc/{p}").exists()])
            if Path(f"/proc/{self.pid}").exists()
            else 0
        )

    def kill(self) -> None:
        """SIGKILL to every process of the sandbox (``cgroup.kill``, else the tree and group)."""
        if self.cgroup is not None and _write(self.cgroup / "cgroup.kill", "1"):
            return
        for pid in reversed(_tree(self.pid)):
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(OSError):
            os.killpg(self.pid, signal.SIGKILL)

    def remove(self) -> None:
        """Remove the process's cgroup (once every process in it is gone)."""
        if self.cgroup is not None:
            _remove_group(self.cgroup)
