"""``python -m rookery.arena.launch._exec_guard CMD ...``: exec CMD so that it dies with the arena.

Linux's ``PR_SET_PDEATHSIG`` asks the kernel to send SIGTERM to this process when its parent
(the arena) dies, even by SIGKILL, and survives ``exec``. Setting it here, in a fresh process,
avoids ``preexec_fn`` (a fork of the multi-threaded arena). Elsewhere it simply execs.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys


def main(argv: list[str]) -> None:
    """Set the parent-death signal, then replace this process with ``argv``."""
    if not argv:
        raise SystemExit("usage: python -m rookery.arena.launch._exec_guard COMMAND [ARG...]")
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL("libc.so.6", use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        except OSError:
            pass
        if os.getppid() == 1:  # the arena died before the guard was set
            raise SystemExit(0)
    try:
        os.execvp(argv[0], argv)
    except OSError as error:
        # 127 and 126, as a shell: not found (never worth a restart), cannot be executed.
        print(f"cannot start {argv[0]!r}: {error.strerror}", file=sys.stderr, flush=True)
        raise SystemExit(127 if isinstance(error, FileNotFoundError) else 126) from None


if __name__ == "__main__":
    main(sys.argv[1:])
