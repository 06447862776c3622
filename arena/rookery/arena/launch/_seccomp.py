"""The sandbox's seccomp filter: the system calls that would let two sandboxes talk, refused.

Every sandbox mounts the same host files (the system folders, the arena's Python, a folder two
bots share), so a kernel object keyed by a file's inode is shared between sandboxes: a lock set
in one is seen from the other. The filter, a classic BPF program that bubblewrap installs
(``--seccomp FD``) before it starts the sandbox's first process, refuses:

- file locks: ``flock`` and the ``fcntl`` lock commands (``F_GETLK``/``F_SETLK``/``F_SETLKW``,
  their OFD forms, leases ``F_SETLEASE``/``F_GETLEASE`` and directory notification ``F_NOTIFY``)
  with ``ENOLCK`` ("no locks available", what a file system without locking answers);
- inotify and fanotify (watches on shared files see the other sandbox's reads), the kernel
  keyrings (``add_key``, ``request_key``, ``keyctl``: one per user id), io_uring and
  ``cachestat``, with ``ENOSYS``; also System V shared memory and message queues (``shmget``,
  ``msgget``: memory no limit of the sandbox counts);
- a read that must not wait (``preadv2`` with ``RWF_NOWAIT``), which tells whether a page of a
  shared file is in the page cache, with ``EOPNOTSUPP``;
- any system call of another ABI (32-bit, x32), with ``ENOSYS``.

x86-64 and AArch64 only; elsewhere :func:`program` is empty and the sandbox runs without it.
"""

from __future__ import annotations

import errno
import platform
import struct

__all__ = ["LOCK_COMMANDS", "program"]

# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6].
_NR, _ARCH = 0, 4


def _arg(index: int) -> int:
    """Offset of the low 32 bits of argument ``index`` (little-endian)."""
    return 16 + 8 * index


_LD_W_ABS = 0x20
_JEQ, _JGE, _JSET = 0x15, 0x35, 0x45
_RET = 0x06
_ALLOW = 0x7FFF0000
_ERRNO = 0x00050000

#: fcntl commands that lock, lease or watch: GETLK, SETLK, SETLKW, their OFD forms, leases, notify.
LOCK_COMMANDS = (5, 6, 7, 36, 37, 38, 1024, 1025, 1026)
_RWF_NOWAIT = 0x8
_X32_BIT = 0x40000000

_ARCHES = {
    "x86_64": (
        0xC000003E,  # AUDIT_ARCH_X86_64
        {"fcntl": 72, "flock": 73, "preadv2": 327},
        {
            "inotify_init": 253,
            "inotify_add_watch": 254,
            "inotify_init1": 294,
            "fanotify_init": 300,
            "fanotify_mark": 301,
            "add_key": 248,
            "request_key": 249,
            "keyctl": 250,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "cachestat": 451,
            "shmget": 29,
            "msgget": 68,
        },
    ),
    "aarch64": (
        0xC00000B7,  # AUDIT_ARCH_AARCH64
        {"fcntl": 25, "flock": 32, "preadv2": 286},
        {
            "inotify_init1": 26,
            "inotify_add_watch": 27,
            "fanotify_init": 262,
            "fanotify_mark": 263,
            "add_key": 217,
            "request_key": 218,
            "keyctl": 219,
            "io_uring_setup": 425,
            "io_uring_enter": 426,
            "io_uring_register": 427,
            "cachestat": 451,
            "shmget": 194,
            "msgget": 186,
        },
    ),
}


class _Assembler:
    """Straight-line classic BPF with forward jumps to labels."""

    def __init__(self) -> None:
        self._code: list[tuple[int, str | int, str | int, int]] = []
        self._labels: dict[str, int] = {}

    def load(self, offset: int) -> None:
        self._code.append((_LD_W_ABS, 0, 0, offset))

    def jump(self, op: int, value: int, if_true: str | int = 0, if_false: str | int = 0) -> None:
        """Jump to label ``if_true`` or ``if_false`` (0: the next instruction)."""
        self._code.append((op, if_true, if_false, value))

    def ret(self, value: int) -> None:
        self._code.append((_RET, 0, 0, value))

    def label(self, name: str) -> None:
        self._labels[name] = len(self._code)

    def assemble(self) -> bytes:
        out = bytearray()
        for index, (code, if_true, if_false, k) in enumerate(self._code):
            offsets = []
            for target in (if_true, if_false):
                if isinstance(target, str):
                    distance = self._labels[target] - index - 1
                    if not 0 <= distance <= 255:
                        raise ValueError(f"jump to {target!r} out of reach")
                    offsets.append(distance)
                else:
                    offsets.append(target)
            out += struct.pack("<HBBI", code, offsets[0], offsets[1], k)
        return bytes(out)


def program(machine: str | None = None) -> bytes:
    """The filter for ``machine`` (this one's by default) as bubblewrap reads it: an array of
    ``struct sock_filter``; empty on an architecture it does not know."""
    known = _ARCHES.get(machine or platform.machine())
    if known is None:
        return b""
    arch, calls, refused = known
    enolck = _ERRNO | errno.ENOLCK
    enosys = _ERRNO | errno.ENOSYS
    bpf = _Assembler()
    bpf.load(_ARCH)
    bpf.jump(_JEQ, arch, 0, "not_implemented")
    bpf.load(_NR)
    bpf.jump(_JGE, _X32_BIT, "not_implemented")
    bpf.jump(_JEQ, calls["fcntl"], "fcntl")
    bpf.jump(_JEQ, calls["flock"], "no_locks")
    bpf.jump(_JEQ, calls["preadv2"], "preadv2")
    for number in sorted(set(refused.values())):
        bpf.jump(_JEQ, number, "not_implemented")
    bpf.ret(_ALLOW)
    bpf.label("fcntl")
    bpf.load(_arg(1))
    for command in LOCK_COMMANDS:
        bpf.jump(_JEQ, command, "no_locks")
    bpf.ret(_ALLOW)
    bpf.label("preadv2")
    bpf.load(_arg(5))
    bpf.jump(_JSET, _RWF_NOWAIT, "not_supported")
    bpf.ret(_ALLOW)
    bpf.label("not_supported")
    bpf.ret(_ERRNO | errno.EOPNOTSUPP)
    bpf.label("no_locks")
    bpf.ret(enolck)
    bpf.label("not_implemented")
    bpf.ret(enosys)
    return bpf.assemble()
