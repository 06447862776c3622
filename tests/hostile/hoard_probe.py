"""A sandboxed process that hoards memory the per-process data limit does not see, or inodes.

``python hoard_probe.py KIND MIB`` (standard library only), one attack a process:

- ``memfd``: anonymous memory files (``memfd_create``), a new one every 32 MiB (one file is
  bounded by the file-size limit), written to ``MIB`` MiB in all, never mapped;
- ``shared``: a ``MAP_SHARED | MAP_ANONYMOUS`` mapping of ``MIB`` MiB, every page written;
- ``shm``: a file in ``/dev/shm`` written to ``MIB`` MiB;
- ``sysv``: a System V shared memory segment of ``MIB`` MiB, attached and written;
- ``files``: ``MIB`` thousand empty files in ``/tmp`` (inodes: kernel memory, no bytes).

After each step it prints ``HELD <n>`` (MiB, or thousands of files, held so far); a refusal
prints ``REFUSED <reason>``; at the end ``DONE`` and it waits to be stopped.
"""

from __future__ import annotations

import ctypes
import mmap
import os
import sys
import time

STEP_MIB = 32


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(kind: str, amount: int) -> None:
    block = b"\x01" * (STEP_MIB << 20)
    held: list[object] = []
    try:
        if kind == "memfd":
            for step in range(amount // STEP_MIB):
                fd = os.memfd_create("hoard")
                os.write(fd, block)
                say(f"HELD {(step + 1) * STEP_MIB}")
        elif kind == "shared":
            area = mmap.mmap(-1, amount << 20, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
            held.append(area)
            for step in range(amount // STEP_MIB):
                area[step * len(block) : (step + 1) * len(block)] = block
                say(f"HELD {(step + 1) * STEP_MIB}")
        elif kind == "shm":
            with open("/dev/shm/hoard", "wb") as handle:
                for step in range(amount // STEP_MIB):
                    handle.write(block)
                    handle.flush()
                    say(f"HELD {(step + 1) * STEP_MIB}")
        elif kind == "sysv":
            libc = ctypes.CDLL(None, use_errno=True)
            libc.shmat.restype = ctypes.c_void_p
            segment = libc.shmget(0, ctypes.c_size_t(amount << 20), 0o1600)  # IPC_PRIVATE
            if segment < 0:
                raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
            address = libc.shmat(segment, None, 0)
            for step in range(amount // STEP_MIB):
                ctypes.memmove(address + step * len(block), block, len(block))
                say(f"HELD {(step + 1) * STEP_MIB}")
        elif kind == "files":
            os.makedirs("/tmp/hoard", exist_ok=True)
            for thousand in range(amount):
                for index in range(1000):
                    os.close(os.open(f"/tmp/hoard/{thousand}-{index}", os.O_CREAT | os.O_WRONLY))
                say(f"HELD {thousand + 1}")
    except OSError as error:
        say(f"REFUSED {error.strerror}")
    say("DONE")
    time.sleep(120)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
