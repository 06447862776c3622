"""The count of a sandbox's leftover processes, on a real process tree shaped like a sandbox's:
bubblewrap's first process, the sandbox's pid 1 under it, and under that the arena's init (its
command line names ``_sandbox_exec.py``), a live background process and a zombie."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from rookery.arena.launch._process_meter import leftover_processes

# The sandbox's pid 1 (forked by the outer process): the init, a background process that
# outlived its parent, and a process that has exited and is not reaped yet.
_SANDBOX = """
import os, subprocess, sys, time
if os.fork() == 0:
    init = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "_sandbox_exec.py"]
    )
    daemon = subprocess.Popen(["sleep", "60"])
    zombie = os.fork()
    if zombie == 0:
        os._exit(0)
    print(zombie, flush=True)
    time.sleep(60)
    os._exit(0)
time.sleep(60)
"""


def _state(pid: int) -> str:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :][:1]


def test_a_zombie_in_the_sandbox_is_no_leftover_but_a_live_orphan_is() -> None:
    outer = subprocess.Popen(
        [sys.executable, "-c", _SANDBOX], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert outer.stdout is not None
        zombie = int(outer.stdout.readline())
        deadline = time.monotonic() + 10
        while _state(zombie) != "Z" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert _state(zombie) == "Z"
        # The background process (and only it) is left over: the init is the arena's own, the
        # zombie has exited (its command line reads empty, which once counted it).
        assert leftover_processes(outer.pid) == 1
    finally:
        os.killpg(outer.pid, signal.SIGKILL)
        outer.wait()


def test_a_sandbox_that_has_gone_has_no_leftover() -> None:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert leftover_processes(gone.pid) == 0
