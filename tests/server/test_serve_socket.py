"""`rookery serve`'s Unix socket for sandboxed bots: a private folder of its own, removed when
the server stops, and the folders of servers that were killed removed by the next one."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_SCRIPT = Path(sys.executable).with_name("rookery")


def test_the_socket_folder_lives_as_long_as_the_server(tmp_path: Path) -> None:
    # A short $TMPDIR (a longer one gives way to /tmp: a socket's path has at most 107 bytes).
    temp = Path(tempfile.mkdtemp(prefix="rk-", dir="/tmp"))
    killed = temp / "rookery-serve-999999999-gone"  # a server killed before it could clean up
    killed.mkdir()
    (killed / "server.sock").write_text("")
    alive = temp / f"rookery-serve-{os.getpid()}-alive"  # a live process's: kept
    alive.mkdir()
    port_file = tmp_path / "port"
    serve = subprocess.Popen(
        [str(_SCRIPT), "serve", "--address", "127.0.0.1:0", "--web-address", "off",
         "--log-level", "warning", "--port-file", str(port_file)],
        env={**os.environ, "TMPDIR": str(temp)},
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists():
            assert serve.poll() is None, "rookery serve ended before it served"
            assert time.monotonic() < deadline
            time.sleep(0.05)
        (own,) = temp.glob(f"rookery-serve-{serve.pid}-*")
        assert (own / "server.sock").is_socket()
        assert own.stat().st_mode & 0o777 == 0o711
        assert not killed.exists() and alive.exists()
        serve.send_signal(signal.SIGTERM)
        _, err = serve.communicate(timeout=60)
    finally:
        if serve.poll() is None:
            serve.kill()
            serve.wait()
        shutil.rmtree(temp, ignore_errors=True)
    assert serve.returncode == 0, err
    assert not own.exists()
