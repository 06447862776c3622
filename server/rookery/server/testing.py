"""Helpers for test suites that need a real Rookery server.

- :func:`running_server`: an in-process server on ``127.0.0.1:0`` for the duration of an
  ``async with`` block.
- :func:`serve_process`: ``rookery serve`` as a subprocess, waited for through its port file.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._config import ServerConfig
from ._server import RookeryServer
from ._tournament import TournamentBackend

__all__ = ["ServeProcess", "running_server", "serve_process"]


@contextlib.asynccontextmanager
async def running_server(
    config: ServerConfig | None = None,
    *,
    tournaments: TournamentBackend | None = None,
    stop_grace_s: float = 0.5,
    **options: Any,
) -> AsyncIterator[RookeryServer]:
    """An in-process server on a free loopback port; ``options`` override ``config`` fields.

    >>> async def example() -> None:
    ...     async with running_server(idle_timeout_s=5) as server:
    ...         print(server.target)  # 127.0.0.1:PORT
    """
    config = (config or ServerConfig()).replace(address="127.0.0.1:0", **options)
    server = RookeryServer(config, tournaments=tournaments)
    await server.start()
    try:
        yield server
    finally:
        await server.stop(grace_s=stop_grace_s)


@dataclass
class ServeProcess:
    """A running ``rookery serve`` subprocess."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def target(self) -> str:
        """``127.0.0.1:PORT`` for clients."""
        return f"127.0.0.1:{self.port}"

    def log(self) -> str:
        """Everything the process wrote so far (stdout and stderr)."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = 15.0) -> int:
        """Sends SIGTERM and waits for the exit code (SIGKILL after ``timeout``)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return self.process.returncode


@contextlib.contextmanager
def serve_process(
    *args: str,
    timeout: float = 20.0,
    env: dict[str, str] | None = None,
    directory: str | Path | None = None,
    executable: Sequence[str] | None = None,
) -> Iterator[ServeProcess]:
    """Runs ``rookery serve --address 127.0.0.1:0 --port-file F ARGS`` until the block ends.

    ``executable`` defaults to this interpreter running the ``rookery`` CLI. Raises
    ``TimeoutError`` (with the process's output) if the port file does not appear in time.
    """
    with contextlib.ExitStack() as stack:
        workdir = (
            Path(directory)
            if directory
            else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        )
        port_file = workdir / "rookery-serve.port"
        log_path = workdir / "rookery-serve.log"
        port_file.unlink(missing_ok=True)
        command = [*(executable or (sys.executable, "-m", "rookery.cli.main")), "serve"]
        command += ["--address", "127.0.0.1:0", "--port-file", str(port_file), *args]
        log_file = stack.enter_context(open(log_path, "wb"))
        process = subprocess.Popen(
            command,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
        serve = ServeProcess(process, 0, log_path)
        try:
            deadline = time.monotonic() + timeout
            while True:
                text = port_file.read_text().strip() if port_file.exists() else ""
                if text.isdigit():
                    serve.port = int(text)
                    break
                if process.poll() is not None:
                    raise RuntimeError(
                        f"rookery serve exited with {process.returncode}:\n{serve.log()}"
                    )
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"rookery serve did not start in {timeout:g} s:\n{serve.log()}"
                    )
                time.sleep(0.05)
            yield serve
        finally:
            serve.stop()
