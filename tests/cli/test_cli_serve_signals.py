"""`rookery serve` stops cleanly on a SIGTERM that comes as soon as it says it has started.

A script (or a test) that sends SIGTERM the moment `serve` logs "server started" or writes its
port file must get a drained, quiet stop with exit code 0, never a process killed mid-start by
the signal's default action.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("rookery")
_TIMEOUT = 60


def _lines(stream: object, into: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put(line)
    into.put("")


def test_a_sigterm_right_after_start_stops_serve_cleanly(tmp_path: Path) -> None:
    # The port file is written through `<file>.tmp`, here a FIFO that nobody reads yet: `serve`
    # waits in its open() until the test opens the other end, so the SIGTERM sent on "server
    # started" certainly arrives before the port file exists, whatever the machine's load.
    port_file = tmp_path / "port"
    os.mkfifo(tmp_path / "port.tmp")
    process = subprocess.Popen(
        [str(_SCRIPT), "serve", "--address", "127.0.0.1:0", "--web-address", "off",
         "--port-file", str(port_file)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=_lines, args=(process.stderr, lines), daemon=True)
    reader.start()
    err: list[str] = []
    fifo = -1
    try:
        deadline = time.monotonic() + _TIMEOUT
        while not any("server started" in line for line in err):
            err.append(lines.get(timeout=max(0.0, deadline - time.monotonic())))
            assert err[-1], "rookery serve ended before it started:\n" + "".join(err)
        process.send_signal(signal.SIGTERM)
        fifo = os.open(tmp_path / "port.tmp", os.O_RDONLY | os.O_NONBLOCK)
        code = process.wait(timeout=_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        reader.join(timeout=_TIMEOUT)
        while not lines.empty():
            err.append(lines.get())
        written = os.read(fifo, 64) if fifo >= 0 else b""
        if fifo >= 0:
            os.close(fifo)
    text = "".join(err)
    assert code == 0, f"exit code {code}:\n{text}"
    assert "Traceback" not in text, text
    assert "server stopped" in text, text
    assert written.decode().strip().isdigit()  # it went on to announce its port, then stopped
    assert port_file.exists()
