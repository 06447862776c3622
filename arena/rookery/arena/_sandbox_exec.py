"""The two small programs around a sandboxed bot: ``guard`` outside bubblewrap, ``init`` inside.

Run as a script (``python -I -S _sandbox_exec.py guard|init JSON``, standard library only), never
imported by the arena. ``guard`` runs as the arena's user in a fresh process: it joins the bot's
cgroup, sets the resource limits and the CPU affinity, asks to die with the arena and execs
``bwrap``. ``init`` is the sandbox's first command: it drops to the bot's own user id (as root),
listens on the loopback address the bot was told (inside the sandbox's private network namespace)
and forwards every connection to the server's Unix socket mounted into the sandbox, starts the
bot's command as its child and exits with it, which ends every process of the sandbox.
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
from typing import Any

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


def guard(settings: dict[str, Any]) -> None:
    """Outside the sandbox: cgroup, rlimits, affinity, parent-death signal, then exec bwrap."""
    cgroup = settings.get("cgroup", "")
    if cgroup:
        with open(os.path.join(cgroup, "cgroup.procs"), "w", encoding="ascii") as handle:
            handle.write(str(os.getpid()))
    for name, value in settings.get("rlimits", {}).items():
        resource.setrlimit(_LIMITS[name], (value, value))
    cpus = settings.get("cpus") or []
    if cpus:
        os.sched_setaffinity(0, cpus)
    _die_with_parent()
    argv = settings["bwrap"]
    try:
        os.execv(argv[0], argv)
    except OSError as error:
        raise SystemExit(f"rookery sandbox: cannot start {argv[0]}: {error.strerror}") from None


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


def init(settings: dict[str, Any]) -> None:
    """Inside the sandbox: drop to the bot's user, forward the server, run the bot, exit with it."""
    uid = settings.get("uid")
    if uid is not None and os.getuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # every capability goes with the last root id
    host, _, port = settings["listen"].rpartition(":")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((host, int(port)))
    listener.listen(64)
    threading.Thread(target=_forward, args=(listener, settings["unix"]), daemon=True).start()
    argv = settings["argv"]
    os.chdir(settings.get("cwd") or "/")
    try:
        pid = os.fork()
    except OSError as error:
        raise SystemExit(f"rookery sandbox: cannot start the bot: {error.strerror}") from None
    if pid == 0:
        listener.close()
        try:
            os.execvpe(argv[0], argv, settings["env"])
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


def main(args: list[str]) -> None:
    """``guard JSON`` or ``init JSON``."""
    if len(args) != 2 or args[0] not in ("guard", "init"):
        raise SystemExit("usage: _sandbox_exec.py guard|init SETTINGS-JSON")
    settings = json.loads(args[1])
    (guard if args[0] == "guard" else init)(settings)


if __name__ == "__main__":
    main(sys.argv[1:])
