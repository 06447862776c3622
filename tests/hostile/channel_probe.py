"""Two sandboxed processes try to talk through kernel objects keyed by a file they both see.

``python channel_probe.py send|receive FOLDER``, standard library only, run in the sandbox with
``FOLDER`` (mounted read-only for both) holding ``shared.txt``. The sender holds a byte-range
lock (``fcntl``), an OFD lock, a ``flock`` and reads the shared file over and over (for inotify
and dnotify); the receiver looks for each, and tries the calls that probe the page cache. Each
prints one line a channel: ``CHANNEL <name> <sent|seen|unseen|refused ERRNO|reached the kernel>``.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import select
import signal
import struct
import sys
import time
from collections.abc import Callable

F_OFD_GETLK, F_OFD_SETLK = 36, 37
F_NOTIFY, DN_ACCESS, DN_MULTISHOT = 1026, 0x1, 0x80000000
IN_ACCESS, IN_OPEN = 0x1, 0x20
PAGE = 4096
#: How long the sender keeps its signals up; the receiver looks for up to ``HOLD_S - 2``.
HOLD_S = 6.0
_libc = ctypes.CDLL(None, use_errno=True)
_SYSCALLS = {"x86_64": {"add_key": 248, "io_uring_setup": 425, "cachestat": 451,
                        "fanotify_init": 300, "msgget": 68},
             "aarch64": {"add_key": 217, "io_uring_setup": 425, "cachestat": 451,
                         "fanotify_init": 262, "msgget": 186}}  # fmt: skip


def say(name: str, result: str) -> None:
    sys.stdout.write(f"CHANNEL {name} {result}\n")
    sys.stdout.flush()


def refused(name: str, error: OSError) -> None:
    say(name, f"refused {errno.errorcode.get(error.errno or 0, error.errno)}")


def _lock_struct(kind: int) -> bytes:
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, 0, 0, 0)


def _syscall_refused(name: str, *args: int) -> None:
    number = _SYSCALLS.get(os.uname().machine, {}).get(name)
    if number is None:
        return
    result = _libc.syscall(number, *args)
    code = ctypes.get_errno()
    refusal = result < 0 and code == errno.ENOSYS
    say(f"syscall-{name}", "refused ENOSYS" if refusal else "reached the kernel")


def send(folder: str) -> None:
    shared = os.path.join(folder, "shared.txt")
    held = []
    for name, how in (
        ("fcntl-lock", lambda fd: fcntl.fcntl(fd, fcntl.F_SETLK, _lock_struct(fcntl.F_RDLCK))),
        ("ofd-lock", lambda fd: fcntl.fcntl(fd, F_OFD_SETLK, _lock_struct(fcntl.F_RDLCK))),
        ("flock", lambda fd: fcntl.flock(fd, fcntl.LOCK_SH)),
    ):
        fd = os.open(shared, os.O_RDONLY)
        held.append(fd)
        try:
            how(fd)
        except OSError as error:
            refused(name, error)
        else:
            say(name, "sent")
    _syscall_refused("add_key", 0, 0, 0, 0, 0)
    _syscall_refused("io_uring_setup", 1, 0)
    _syscall_refused("cachestat", 0, 0, 0, 0)
    _syscall_refused("fanotify_init", 0, 0)
    _syscall_refused("msgget", 0, 0o600)
    end = time.monotonic() + HOLD_S
    while time.monotonic() < end:
        os.pread(held[0], 64, 0)  # inotify's IN_ACCESS, dnotify's DN_ACCESS (closing would
        # drop the fcntl lock)
        time.sleep(0.05)
    say("sender", "done")


def _watch(path: str) -> int:
    fd = _libc.inotify_init1(os.O_NONBLOCK)
    if fd < 0:
        raise OSError(ctypes.get_errno(), "inotify_init1")
    if _libc.inotify_add_watch(fd, path.encode(), IN_ACCESS | IN_OPEN) < 0:
        raise OSError(ctypes.get_errno(), "inotify_add_watch")
    return int(fd)


def _page_cache_probe(fd: int) -> None:
    """A read that must not wait tells whether a page is in the (shared) page cache."""
    try:
        os.preadv(fd, [bytearray(PAGE)], 0, os.RWF_NOWAIT)
    except BlockingIOError:
        say("page-cache", "reached the kernel")
    except OSError as error:
        refused("page-cache", error)
    else:
        say("page-cache", "reached the kernel")


def receive(folder: str) -> None:
    shared = os.path.join(folder, "shared.txt")
    try:
        watch: int | None = _watch(shared)
    except OSError as error:
        refused("inotify", error)
        watch = None
    seen: set[str] = set()
    signal.signal(signal.SIGIO, lambda _s, _f: seen.add("dnotify"))
    try:
        directory = os.open(folder, os.O_RDONLY)
        fcntl.fcntl(directory, F_NOTIFY, DN_ACCESS | DN_MULTISHOT)
        watched = True
    except OSError as error:
        refused("dnotify", error)
        watched = False
    end = time.monotonic() + HOLD_S - 2
    fd = os.open(shared, os.O_RDONLY)
    _page_cache_probe(fd)
    checks: dict[str, Callable[[], bool]] = {
        "fcntl-lock": lambda: (
            struct.unpack("hhqqi4x", fcntl.fcntl(fd, fcntl.F_GETLK, _lock_struct(fcntl.F_WRLCK)))[0]
            != fcntl.F_UNLCK
        ),
        "ofd-lock": lambda: (
            struct.unpack("hhqqi4x", fcntl.fcntl(fd, F_OFD_GETLK, _lock_struct(fcntl.F_WRLCK)))[0]
            != fcntl.F_UNLCK
        ),
    }

    def flock_held() -> bool:
        other = os.open(shared, os.O_RDONLY)
        try:
            fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        finally:
            os.close(other)
        return False

    checks["flock"] = flock_held
    while time.monotonic() < end and len(seen) < 5:
        for name, check in list(checks.items()):
            try:
                if check():
                    seen.add(name)
            except OSError as error:
                refused(name, error)
                del checks[name]
        if watch is not None and select.select([watch], [], [], 0)[0] and os.read(watch, 4096):
            seen.add("inotify")
        time.sleep(0.05)
    looked = {
        "fcntl-lock": "fcntl-lock" in checks,
        "ofd-lock": "ofd-lock" in checks,
        "flock": "flock" in checks,
        "dnotify": watched,
        "inotify": watch is not None,
    }
    for name, looking in looked.items():
        if name in seen:
            say(name, "seen")
        elif looking:
            say(name, "unseen")
    say("receiver", "done")


if __name__ == "__main__":
    (send if sys.argv[1] == "send" else receive)(sys.argv[2])
