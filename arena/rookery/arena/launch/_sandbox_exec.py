"""The two small programs around a sandboxed bot: ``guard`` outside bubblewrap, ``init`` inside.

Run as a script (``python -I -S _sandbox_exec.py guard|init FD``, standard library only), never
imported by the arena. ``guard`` runs as the arena's user in a fresh process: it joins the bot's
cgroup, sets the resource limits and the CPU affinity, asks to die with the arena and execs
``bwrap``. ``init`` is the sandbox's first command: it drops to the bot's own user id (as root),
listens on the loopback address the bot was told (inside the sandbox's private network namespace)
and forwards every connection to the server's Unix socket mounted into the sandbox, starts the
bot's command as its child and exits with it, which ends every process of the sandbox.

Their settings hold the bot's environment, its launch key among them, so they never travel on a
command line (``/proc/<pid>/cmdline`` is readable by every local user): each program reads its
settings as JSON from the inherited descriptor ``FD`` (an anonymous memory file) and closes it.
The arena writes the guard's; the guard writes init's into a descriptor of its own, which bwrap
passes on. Before the bot's command starts, init closes every descriptor but the standard
streams and makes itself undumpable, so the bot finds only its own environment.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import resource
import signal
import socket
import sys
import threading
from typing import TypeVar

_T = TypeVar("_T")

_PR_SET_PDEATHSIG = 1
_LIMITS = {
    "processes": resource.RLIMIT_NPROC,
    "file_size": resource.RLIMIT_FSIZE,
    "data": resource.RLIMIT_DATA,
    "core": resource.RLIMIT_CORE,
    "open_files": resource.RLIMIT_NOFILE,
}


def _die_with_parent() -> None:
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except OSError:
        pass
    if os.getppid() == 1:  # the arena died before the signal was set
        raise SystemExit(0)


#: What each program's settings must hold.
_REQUIRED = {"guard": ("bwrap", "init"), "init": ("listen", "unix", "argv", "env")}
_PR_SET_DUMPABLE = 4


def read_settings(role: str, fd_text: str) -> dict[str, object]:
    """The settings of ``role`` (``guard`` or ``init``) from descriptor ``fd_text``, which is
    closed; a clear ``SystemExit`` when they are missing, unreadable or incomplete."""
    if not fd_text.isdigit():
        raise SystemExit(_USAGE)
    fd = int(fd_text)
    chunks: list[bytes] = []
    try:
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
    except OSError as error:
        raise SystemExit(
            f"rookery sandbox: cannot read the {role} settings from descriptor {fd}: "
            f"{error.strerror}"
        ) from None
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)
    where = f"rookery sandbox: the {role} settings on descriptor {fd}"
    data = b"".join(chunks)
    if not data.strip():
        raise SystemExit(f"{where} are empty")
    try:
        settings = json.loads(data)
    except ValueError as error:
        raise SystemExit(f"{where} are not valid JSON: {error}") from None
    if not isinstance(settings, dict):
        raise SystemExit(f"{where} are not a JSON object")
    missing = [name for name in _REQUIRED[role] if name not in settings]
    if missing:
        raise SystemExit(f"{where} lack {', '.join(map(repr, missing))}")
    return {str(name): value for name, value in settings.items()}


def _setting(settings: dict[str, object], name: str, kind: type[_T], default: _T) -> _T:
    """The setting ``name`` when it is a ``kind`` (``default`` when absent or null); a clear
    ``SystemExit`` when it is something else."""
    value = settings.get(name)
    if value is None:
        return default
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise SystemExit(
            f"rookery sandbox: the setting {name!r} must be a {kind.__name__}, "
            f"not {type(value).__name__}"
        )
    return value


def _items(settings: dict[str, object], name: str, kind: type[_T]) -> list[_T]:
    """The setting ``name``, a list of ``kind`` (empty when absent)."""
    values = _setting(settings, name, list, [])
    if not all(isinstance(v, kind) and not isinstance(v, bool) for v in values):
        raise SystemExit(f"rookery sandbox: the setting {name!r} must be a list of {kind.__name__}")
    return [v for v in values if isinstance(v, kind)]


def _table(settings: dict[str, object], name: str, kind: type[_T]) -> dict[str, _T]:
    """The setting ``name``, an object whose values are ``kind`` (empty when absent)."""
    table = _setting(settings, name, dict, {})
    if not all(isinstance(v, kind) and not isinstance(v, bool) for v in table.values()):
        raise SystemExit(f"rookery sandbox: the setting {name!r} must map names to {kind.__name__}")
    return {str(key): v for key, v in table.items() if isinstance(v, kind)}


def _memory_fd(name: str, data: bytes) -> int:
    """An inheritable descriptor holding ``data`` (a memfd: on no path, no command line)."""
    fd = os.memfd_create(name, 0)
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    os.set_inheritable(fd, True)
    return fd


def guard(settings: dict[str, object]) -> None:
    """Outside the sandbox: cgroup, rlimits, affinity, parent-death signal, then exec bwrap
    (which passes init's settings on, on a descriptor of their own, and installs the seccomp
    filter read from another)."""
    cgroup = _setting(settings, "cgroup", str, "")
    if cgroup:
        with open(os.path.join(cgroup, "cgroup.procs"), "w", encoding="ascii") as handle:
            handle.write(str(os.getpid()))
    for name, value in _table(settings, "rlimits", int).items():
        resource.setrlimit(_LIMITS[name], (value, value))
    cpus = _items(settings, "cpus", int)
    if cpus:
        os.sched_setaffinity(0, cpus)
    _die_with_parent()
    try:
        init_fd = _memory_fd("rookery-init-settings", json.dumps(settings["init"]).encode())
        seccomp = bytes.fromhex(_setting(settings, "seccomp", str, ""))
        filter_fd = _memory_fd("rookery-seccomp", seccomp) if seccomp else None
    except OSError as error:
        raise SystemExit(
            f"rookery sandbox: cannot pass the init settings on: {error.strerror}"
        ) from None
    bwrap = _items(settings, "bwrap", str)
    options = ["--seccomp", str(filter_fd)] if filter_fd is not None else []
    argv = [bwrap[0], *options, *bwrap[1:], str(init_fd)]
    try:
        os.execv(argv[0], argv)
    except OSError as error:
        raise SystemExit(f"rookery sandbox: cannot start {argv[0]}: {error.strerror}") from None


def _undumpable() -> None:
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(_PR_SET_DUMPABLE, 0)
    except OSError:
        pass


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    finally:
        for sock, how in ((sink, socket.SHUT_WR), (source, socket.SHUT_RD)):
            with contextlib.suppress(OSError):
                sock.shutdown(how)


def _forward(listener: socket.socket, unix_path: str) -> None:
    while True:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            upstream.connect(unix_path)
        except OSError:
            client.close()
            upstream.close()
            continue
        client.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for a, b in ((client, upstream), (upstream, client)):
            threading.Thread(target=_pump, args=(a, b), daemon=True).start()


def init(settings: dict[str, object]) -> None:
    """Inside the sandbox: drop to the bot's user, forward the server, run the bot, exit with it."""
    uid = _setting(settings, "uid", int, -1)
    if uid >= 0 and os.getuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # every capability goes with the last root id
    _undumpable()  # the bot, of the same user id, cannot read init's memory or descriptors
    host, _, port = _setting(settings, "listen", str, "").rpartition(":")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, int(port)))
    listener.listen(64)
    unix_path = _setting(settings, "unix", str, "")
    threading.Thread(target=_forward, args=(listener, unix_path), daemon=True).start()
    argv = _items(settings, "argv", str)
    environment = _table(settings, "env", str)
    os.chdir(_setting(settings, "cwd", str, "") or "/")
    try:
        pid = os.fork()
    except OSError as error:
        raise SystemExit(f"rookery sandbox: cannot start the bot: {error.strerror}") from None
    if pid == 0:
        listener.close()
        # Only the standard streams reach the bot (whatever bwrap or the arena left open).
        limit = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        os.closerange(3, 65536 if limit == resource.RLIM_INFINITY else max(3, limit))
        try:
            os.execvpe(argv[0], argv, environment)
        except OSError as error:
            os.write(2, f"rookery sandbox: cannot start {argv[0]!r}: {error.strerror}\n".encode())
            os._exit(127)
    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, lambda s, _f: os.kill(pid, s))
    while True:
        try:
            _, status = os.waitpid(pid, 0)
            break
        except InterruptedError:
            continue
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


_USAGE = "usage: _sandbox_exec.py guard|init SETTINGS-FD"


def main(args: list[str]) -> None:
    """``guard FD`` or ``init FD``: the settings as JSON on the inherited descriptor ``FD``."""
    if len(args) != 2 or args[0] not in ("guard", "init"):
        raise SystemExit(_USAGE)
    settings = read_settings(args[0], args[1])
    (guard if args[0] == "guard" else init)(settings)


if __name__ == "__main__":
    main(sys.argv[1:])
