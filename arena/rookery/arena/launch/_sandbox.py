"""The sandbox of launched bots: bubblewrap, resource limits, cgroup v2 and CPU accounting.

Each sandboxed bot process runs, through :mod:`rookery.arena.launch._sandbox_exec`, as::

    guard (cgroup, rlimits, affinity) -> bwrap (namespaces, mounts) -> init (uid, forwarder) -> bot

with the settings of guard and init on inherited descriptors, never on a command line (which
every local user can read): they hold the bot's environment and launch key.

- **files**: the system folders (``/usr``, ``/etc``, ``/bin`` …), the arena's own Python and the
  bot's folder read-only; ``/tmp`` (also ``HOME``) a private tmpfs of ``scratch_mb``, gone with
  the process; nothing else of the host (no home, no run directory, no other bot);
- **network**: a private network namespace with only loopback; the bot finds the server at the
  address it was given (``ROOKERY_SERVER``): a Python SDK bot the server's Unix socket itself
  (``unix:/run/rookery/server.sock``), any other a loopback port where ``init`` forwards to it;
- **user**: a fresh user id per process (as root), no capabilities, ``no_new_privs``;
- **system calls**: a seccomp filter refuses those that would let two sandboxes talk through a
  file both see (locks, watches, keyrings, page-cache probes: :mod:`rookery.arena.launch._seccomp`);
- **limits**: processes (``RLIMIT_NPROC`` of the fresh uid, and cgroup ``pids.max``), memory
  (cgroup ``memory.max``; where the memory controller is not delegated, ``RLIMIT_DATA`` and the
  arena's look at the whole sandbox's memory, :meth:`ProcessMeter.footprint`), files in the
  scratch (the same look), file size (``RLIMIT_FSIZE``), output (the arena cuts the log), no
  core files;
- **lifetime**: a pid namespace: when the bot's first process ends, or the arena kills it, or the
  arena dies, every process of the sandbox is killed by the kernel.

:func:`probe` finds out what this machine offers; :class:`SandboxRuntime` builds the commands.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import rookery.arena.launch._seccomp as _seccomp
import structlog

__all__ = [
    "CPU_CLOCK_WALL_FACTOR",
    "IncidentKind",
    "ProcessMeter",
    "SandboxLimits",
    "SandboxMode",
    "SandboxRuntime",
    "SandboxSupport",
    "probe",
]

log = structlog.get_logger("rookery.arena")

_EXEC_SCRIPT = Path(__file__).with_name("_sandbox_exec.py")
#: Where the server's Unix socket appears inside the sandbox.
SOCKET_INSIDE = "/run/rookery/server.sock"
_SYSTEM_PATHS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
#: Processes and threads of the sandbox's own machinery (bwrap, init, its forwarder threads).
_OWN_TASKS = 8
#: With ``clock = "cpu"`` a move may still take at most this many times its budget in wall time.
CPU_CLOCK_WALL_FACTOR = 10
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
_UID_BASE = 1_100_000_000
_UID_SPAN = 400_000_000
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


class SandboxMode(Enum):
    """Whether launched bots run in the sandbox."""

    AUTO = "auto"
    """In the sandbox where this machine can make it, else unconfined (with a warning)."""
    ON = "on"
    """Always; the arena refuses to start when the sandbox cannot be made."""
    OFF = "off"
    """Never: bots run as the organiser's user, with the organiser's files and network."""


class IncidentKind(Enum):
    """A sandbox event recorded against a bot (``incidents.kind``) and shown in reports."""

    OUT_OF_MEMORY = "out_of_memory"
    """The bot's processes hit the memory limit (killed by the cgroup, or an allocation failed)."""
    TOO_MANY_PROCESSES = "too_many_processes"
    """The bot's processes and threads reached the process limit; further forks failed."""
    OUTPUT_CUT = "output_cut"
    """The bot wrote more than the log limit; the log was cut with a marker, later output lost."""
    CPU_TIME_EXHAUSTED = "cpu_time_exhausted"
    """Under ``clock = "cpu"`` the bot used up a move's CPU time (its own or in the background)."""
    REFUSED_ACCESS = "refused_access"
    """A write over the file-size limit or past the scratch's size: the bot died of it
    (SIGXFSZ), or its log shows the refusal (EFBIG, ENOSPC)."""
    LEFTOVER_PROCESSES = "leftover_processes"
    """Processes of the bot were still alive when its game (or the arena) ended; all killed."""


@dataclass(frozen=True)
class SandboxLimits:
    """The resource limits of one sandboxed bot process (and everything it starts)."""

    #: Memory of all its processes together (cgroup), or of each process (rlimit fallback).
    memory_mb: int = 1024
    #: Processes and threads at once.
    processes: int = 128
    #: The largest file it may write (its scratch holds ``scratch_mb`` in all).
    file_size_mb: int = 64
    #: Size of its private ``/tmp``.
    scratch_mb: int = 64
    #: Bytes of stdout and stderr kept in its log per process; the rest is cut.
    log_kb: int = 1024

    @property
    def scratch_files(self) -> int:
        """Files and folders its tmpfs mounts may hold together: one per KiB of scratch."""
        return self.scratch_mb * 1024

    def to_dict(self) -> dict[str, int]:
        """The limits as plain values (stored with the run)."""
        return {
            "memory_mb": self.memory_mb,
            "processes": self.processes,
            "file_size_mb": self.file_size_mb,
            "scratch_mb": self.scratch_mb,
            "log_kb": self.log_kb,
        }


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


# ---------------------------------------------------------------------------------- accounting


def _read_stat(pid: int) -> tuple[float, int]:
    """(CPU seconds of the process, its threads and reaped children included; its threads)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()
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


# ------------------------------------------------------------------------------------ commands


@dataclass(frozen=True)
class SandboxedCommand:
    """How to start one sandboxed process, and where to meter it once started.

    ``argv`` holds no secret: the guard's settings (and in them init's, with the bot's
    environment and launch key) are ``settings``, which reach the guard through an inherited
    descriptor (:func:`settings_descriptor`) whose number ends its command line
    (:meth:`argv_reading`). Command lines are readable by every local user.
    """

    argv: tuple[str, ...]
    cgroup: Path | None
    uid: int | None
    settings: bytes = b""

    def argv_reading(self, fd: int) -> tuple[str, ...]:
        """The guard's command line when its settings are on descriptor ``fd``."""
        return (*self.argv, str(fd))


def settings_descriptor(data: bytes) -> int:
    """A descriptor to read ``data`` from, at its start: an anonymous memory file (memfd),
    never on a path anyone could open, gone with its last descriptor. Not inheritable: pass it
    on with ``pass_fds``."""
    fd = os.memfd_create("rookery-sandbox-settings", os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd


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


@dataclass
class SandboxRuntime:
    """The sandbox of one arena run: what is mounted, the limits, the server's socket."""

    support: SandboxSupport
    limits: SandboxLimits
    #: The server's Unix socket on the host (mounted into every sandbox).
    socket_path: Path
    #: Extra read-only paths the organiser lists (toolchains, libraries of the bots).
    read_only: tuple[Path, ...] = ()
    #: CPUs to pin bot processes to, one list per game slot; empty: no pinning.
    cpu_sets: tuple[tuple[int, ...], ...] = ()
    #: The run's directories (its SQLite file, the bots' logs): covered up in every bot's folder.
    run_dirs: tuple[Path, ...] = ()
    #: The launched bots' own folders: each bot sees its own, never another's inside it.
    bot_folders: tuple[Path, ...] = ()
    _counter: int = field(default=0, init=False)
    _base_paths: list[Path] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self._base_paths = _minimal([*_interpreter_paths(), _EXEC_SCRIPT.parent, *self.read_only])

    @property
    def unix_target(self) -> str:
        """The gRPC target of the server's Unix socket as a bot inside the sandbox sees it."""
        return f"unix:{SOCKET_INSIDE}"

    @property
    def uses_cgroup(self) -> bool:
        """Whether bot processes get their own cgroup."""
        return self.support.cgroup_parent is not None

    def _rlimits(self) -> dict[str, int]:
        limits = self.limits
        rlimits = {
            "file_size": limits.file_size_mb * 1024 * 1024,
            "core": 0,
            "open_files": 4096,
        }
        if self.support.as_root:
            rlimits["processes"] = limits.processes + _OWN_TASKS
        if "memory" not in self.support.controllers:
            rlimits["data"] = limits.memory_mb * 1024 * 1024
        return rlimits

    def _new_cgroup(self, label: str) -> Path | None:
        parent = self.support.cgroup_parent
        if parent is None:
            return None
        self._counter += 1
        group = parent / f"{label}-{self._counter}"
        try:
            group.mkdir()
        except OSError as error:
            log.warning("cannot make a bot cgroup", path=str(group), error=str(error))
            return None
        controllers = self.support.controllers
        if "memory" in controllers:
            _write(group / "memory.max", str(self.limits.memory_mb * 1024 * 1024))
            _write(group / "memory.swap.max", "0")
            _write(group / "memory.oom.group", "1")
        if "pids" in controllers:
            _write(group / "pids.max", str(self.limits.processes + _OWN_TASKS))
        return group

    def _mounts(
        self, folder: Path | None, writable: bool = False, named_files: Sequence[Path] = ()
    ) -> list[str]:
        args: list[str] = []
        for raw in _SYSTEM_PATHS:
            path = Path(raw)
            if path.is_symlink():
                args += ["--symlink", os.readlink(path), raw]
            elif path.is_dir():
                args += ["--ro-bind", raw, raw]
        scratch = str(self.limits.scratch_mb * 1024 * 1024)
        args += ["--proc", "/proc", "--dev", "/dev"]
        # /dev's own tmpfs has the host's default size: its user may not write there, and its
        # shared memory folder is a scratch of its own.
        args += ["--perms", "1777", "--size", scratch, "--tmpfs", "/dev/shm"]
        args += ["--remount-ro", "/dev"]
        args += ["--perms", "1777", "--size", scratch, "--tmpfs", "/tmp"]
        extra = [*self._base_paths]
        if folder is not None:
            extra += [folder, *linked_packages(folder)]
        binds = [
            p
            for p in _minimal(extra)
            if not str(p).startswith(("/usr/", "/etc/", "/opt/")) and str(p) != "/tmp"
        ]
        # bwrap makes the folders above a mount point 0700: the bot's user must pass them.
        above = {a for p in [*binds, *named_files, Path(SOCKET_INSIDE)] for a in p.parents}
        for path in sorted(above - {Path("/"), Path("/tmp")}, key=lambda p: len(p.parts)):
            args += ["--perms", "0755", "--dir", str(path)]
        for path in binds:
            args += ["--ro-bind", str(path), str(path)]
        if writable and folder is not None:  # a build step writes its output into the folder
            args += ["--bind", str(folder), str(folder)]
        if folder is not None:
            args += self._cover_ups(folder)
        for file in named_files:  # the organiser's config named them in the bot's env
            args += ["--ro-bind", str(file), str(file)]
        args += ["--ro-bind", str(self.socket_path), SOCKET_INSIDE]
        return args

    def _cover_ups(self, folder: Path) -> list[str]:
        """Mounts over what the bot must not see inside its folder: an empty tmpfs on a folder,
        ``/dev/null`` on a file (see :func:`hidden_inside`)."""
        resolved = folder.resolve()
        hidden = hidden_inside(
            folder,
            run_dirs=self.run_dirs,
            private=[p for p in self.bot_folders if p.resolve() != resolved],
            keep=self._base_paths,
            home=Path.home(),
        )
        args: list[str] = []
        for path in hidden:
            if path.is_dir():
                args += ["--perms", "0555", "--size", "4096", "--tmpfs", str(path)]
            else:
                args += ["--ro-bind", "/dev/null", str(path)]
        return args

    def command(
        self,
        label: str,
        argv: Sequence[str],
        env: Mapping[str, str],
        server_target: str,
        *,
        folder: Path | None = None,
        slot: int = 0,
        writable: bool = False,
        files: Sequence[Path] = (),
    ) -> SandboxedCommand:
        """The guard command that starts ``argv`` in a new sandbox (and its cgroup, made now).

        ``server_target`` is the ``host:port`` the bot was told; ``folder`` the bot's own folder
        (mounted read-only, its working directory; ``writable``: read-write, for a league's build
        step); ``slot`` picks the CPU set when pinning; ``files`` are mounted read-only at their
        own paths (the files the organiser's config names in the bot's ``env``).
        """
        folder = folder if folder is not None else bot_folder(argv)
        uid = _UID_BASE + random.randrange(_UID_SPAN) if self.support.as_root else None
        bwrap = [
            self.support.bwrap,
            "--die-with-parent",
            "--new-session",
            "--unshare-ipc",
            "--unshare-pid",
            "--unshare-net",
            "--unshare-uts",
            "--unshare-cgroup-try",
            "--hostname",
            "rookery-bot",
            "--clearenv",
        ]
        if self.support.as_root:
            bwrap += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
        else:  # no capability even for a user id 0 inside (an arena run as root, unconfined)
            bwrap += ["--unshare-user", "--cap-drop", "ALL"]
        visible = [*map(Path, _SYSTEM_PATHS), *self._base_paths, *([folder] if folder else [])]
        named = [f for f in files if not any(f.is_relative_to(path) for path in visible)]
        bwrap += self._mounts(folder, writable, named)
        bwrap += ["--chdir", "/"]
        host, _, port = server_target.rpartition(":")
        if host not in ("127.0.0.1", "localhost"):
            host = "127.0.0.1"
        init = {
            "uid": uid,
            "listen": f"127.0.0.1:{port}",
            "unix": SOCKET_INSIDE,
            "argv": list(argv),
            "env": dict(env),
            "cwd": str(folder) if folder is not None else "/tmp",
        }
        # The guard appends the descriptor it passes init's settings on (never their text).
        bwrap += ["--", sys.executable, "-I", "-S", str(_EXEC_SCRIPT), "init"]
        group = self._new_cgroup(label)
        cpus = list(self.cpu_sets[slot % len(self.cpu_sets)]) if self.cpu_sets else []
        guard = {
            # A build step (writable: a league's, which plays no game) keeps file locks: every
            # toolchain locks its caches (go build stops at a refused lock), and no playing
            # bot, all filtered, can lock anything to signal to it.
            "seccomp": "" if writable else _seccomp.program().hex(),
            "cgroup": str(group) if group is not None else "",
            "rlimits": self._rlimits(),
            "cpus": cpus,
            "bwrap": bwrap,
            "init": init,
        }
        argv_out = (sys.executable, "-I", "-S", str(_EXEC_SCRIPT), "guard")
        return SandboxedCommand(argv_out, group, uid, json.dumps(guard).encode())

    def environment(self, rookery: Mapping[str, str], extra: Mapping[str, str]) -> dict[str, str]:
        """A bot's whole environment: the sandbox's fixed values, ``ROOKERY_*`` and its own."""
        path = f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin"
        env = {
            "PATH": path,
            "HOME": "/tmp",
            "TMPDIR": "/tmp",
            "LANG": "C.UTF-8",
            "PYTHONUNBUFFERED": "1",
        }
        env.update(extra)
        env.update({k: v for k, v in rookery.items() if k.startswith("ROOKERY_")})
        return env

    def close(self) -> None:
        """Remove the run's cgroup folder (its process groups must be empty)."""
        parent = self.support.cgroup_parent
        if parent is None:
            return
        with contextlib.suppress(OSError):
            for child in parent.iterdir():
                if child.is_dir():
                    _write(child / "cgroup.kill", "1")
        _remove_group(parent)


def cpu_sets(count: int) -> tuple[tuple[int, ...], ...]:
    """One CPU per game slot, in turn over the CPUs this arena may use (``pin_cpus``)."""
    allowed = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    return tuple((allowed[i % len(allowed)],) for i in range(max(1, count)))
