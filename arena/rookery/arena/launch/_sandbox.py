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

:func:`probe` finds out what this machine offers (:mod:`rookery.arena.launch._sandbox_probe`);
:class:`SandboxRuntime` builds the commands (here: the bwrap command line and its mounts); the
bot's folders are found in :mod:`rookery.arena.launch._sandbox_folders`, the cgroups made in
:mod:`rookery.arena.launch._cgroups`, and a process metered by
:class:`~rookery.arena.launch._process_meter.ProcessMeter`.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import rookery.arena.launch._seccomp as _seccomp
import structlog
from rookery.arena.launch._cgroups import _remove_group, _write
from rookery.arena.launch._sandbox_folders import (
    _interpreter_paths,
    _minimal,
    bot_folder,
    hidden_inside,
    linked_packages,
)
from rookery.arena.launch._sandbox_probe import SandboxSupport, probe

__all__ = [
    "CPU_CLOCK_WALL_FACTOR",
    "IncidentKind",
    "SandboxLimits",
    "SandboxMode",
    "SandboxRuntime",
    "SandboxedCommand",
    "bot_folder",
    "cpu_sets",
    "probe",
    "settings_descriptor",
]
# ``bot_folder`` and ``probe`` live in their own modules; the run and league rooms import them here.

log = structlog.get_logger("rookery.arena")

_EXEC_SCRIPT = Path(__file__).with_name("_sandbox_exec.py")
#: Where the server's Unix socket appears inside the sandbox.
SOCKET_INSIDE = "/run/rookery/server.sock"
_SYSTEM_PATHS = ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt")
#: Processes and threads of the sandbox's own machinery (bwrap, init, its forwarder threads).
_OWN_TASKS = 8
#: With ``clock = "cpu"`` a move may still take at most this many times its budget in wall time.
CPU_CLOCK_WALL_FACTOR = 10
_UID_BASE = 1_100_000_000
_UID_SPAN = 400_000_000


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
