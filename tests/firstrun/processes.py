"""Background processes for the first-hour tests: started, waited for, and always stopped."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path


class Background:
    """A process with its output in a file; stopped with SIGTERM (SIGKILL after a grace)."""

    def __init__(self, command: list[str] | str, log: Path, cwd: Path, env: dict[str, str]):
        self.log = log
        self._handle = log.open("wb")
        self.process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._handle,
            stderr=subprocess.STDOUT,
            shell=isinstance(command, str),
            start_new_session=True,
        )

    def output(self) -> str:
        """What the process printed so far."""
        return self.log.read_text(errors="replace")

    def wait_for(self, predicate: Callable[[str], bool], timeout: float, what: str) -> str:
        """Wait until ``predicate(output)`` holds; AssertionError naming ``what`` otherwise."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            text = self.output()
            if predicate(text):
                return text
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise AssertionError(f"{what}: not seen within {timeout:g} s; output:\n{self.output()}")

    def stop(self, grace_s: float = 10.0) -> int:
        """SIGTERM to the process group, SIGKILL after ``grace_s``; the exit code."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(grace_s)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(grace_s)
        self._handle.close()
        return self.process.returncode


@contextlib.contextmanager
def background_group() -> Iterator[list[Background]]:
    """A list to add :class:`Background` processes to; every one is stopped on exit."""
    started: list[Background] = []
    try:
        yield started
    finally:
        for process in reversed(started):
            process.stop()
