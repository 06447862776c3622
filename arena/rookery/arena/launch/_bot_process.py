"""One launched bot process: started (sandboxed or not), its output logged up to a limit, metered,
stopped with everything it started, and what the sandbox saw recorded as incidents."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rookery.arena.launch._process_meter import ProcessMeter, leftover_processes
from rookery.arena.launch._sandbox import (
    _OWN_TASKS,
    IncidentKind,
    SandboxRuntime,
    settings_descriptor,
)

__all__ = ["BotProcess", "LogPump", "start_bot_process"]

#: Words in a log's tail that mean an allocation failed (the rlimit fallback has no OOM event).
_MEMORY_WORDS = (
    "MemoryError",
    "out of memory",
    "Cannot allocate memory",
    "OutOfMemoryError",
    "std::bad_alloc",
    "memory allocation of",
    "JavaScript heap out of memory",
)
#: ... and that a write went over the file-size limit or filled the scratch (Python, which
#: ignores SIGXFSZ, gets EFBIG instead of dying).
_WRITE_WORDS = ("File too large", "No space left on device")
_SIGXFSZ_CODES = (-signal.SIGXFSZ, 128 + signal.SIGXFSZ)
_SAMPLE_S = 0.1


class LogPump:
    """Copies a process's output from a pipe into its log, up to ``limit`` bytes, then cuts it.

    After the cut the pipe is closed, so the bot's further writes fail (EPIPE): a flood costs
    the arena nothing more.
    """

    def __init__(self, fd: int, path: Path, limit: int, on_cut: Callable[[int], None]) -> None:
        self._fd = fd
        self._handle = path.open("ab")
        self._limit = limit
        self._written = 0
        self._on_cut = on_cut
        self.cut = False
        self.done = asyncio.Event()
        os.set_blocking(fd, False)
        asyncio.get_running_loop().add_reader(fd, self._readable)

    def _readable(self) -> None:
        try:
            data = os.read(self._fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self.close()
            return
        room = self._limit - self._written
        if len(data) <= room:
            self._handle.write(data)
            self._handle.flush()
            self._written += len(data)
            return
        self._handle.write(data[:room])
        self._handle.write(f"\n--- output cut: over the limit of {self._limit} bytes\n".encode())
        self._written = self._limit
        self.cut = True
        self.close()
        self._on_cut(self._limit)

    def close(self) -> None:
        """Stop reading; close the pipe and the log."""
        if self.done.is_set():
            return
        with contextlib.suppress(Exception):
            asyncio.get_running_loop().remove_reader(self._fd)
        with contextlib.suppress(OSError):
            os.close(self._fd)
        self._handle.close()
        self.done.set()


@dataclass
class BotProcess:
    """A started bot process (the sandbox's guard when sandboxed) and how to meter it."""

    process: asyncio.subprocess.Process
    meter: ProcessMeter
    log_path: Path
    log_start: int
    label: str
    runtime: SandboxRuntime | None = None
    pump: LogPump | None = None
    started: float = field(default_factory=time.monotonic)
    stopped_by_arena: bool = False
    leftover: int = 0
    #: Why the arena killed it for what it held (memory, scratch files), or "".
    over_limit: str = ""
    _sampler: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        """The process id (the guard's, which became bwrap's, when sandboxed)."""
        return self.process.pid

    def start_sampling(self) -> None:
        """Sample its task count while it runs (to see it reach the process limit)."""
        self._sampler = asyncio.get_running_loop().create_task(self._sample())

    async def _sample(self) -> None:
        while self.process.returncode is None:
            await asyncio.to_thread(self.meter.tasks)
            if self.runtime is not None and not self.over_limit:
                await asyncio.to_thread(self._check_footprint, self.runtime)
            await asyncio.sleep(_SAMPLE_S)

    def _check_footprint(self, runtime: SandboxRuntime) -> None:
        """Kill the sandbox once it holds more than its limits allow where no rlimit looks:
        shared memory and memory files (without a memory controller), scratch files."""
        limits = runtime.limits
        footprint = self.meter.footprint(limits.scratch_mb * 1024 * 1024)
        memory_mib = footprint.memory_bytes >> 20
        if "memory" not in runtime.support.controllers and memory_mib > limits.memory_mb:
            self.over_limit = (
                f"{self.label}: held {memory_mib} MiB (shared memory and memory files "
                f"included), over {limits.memory_mb} MiB"
            )
        elif footprint.files > limits.scratch_files:
            self.over_limit = (
                f"{self.label}: made {footprint.files} files in its scratch, over "
                f"{limits.scratch_files}"
            )
        if self.over_limit:
            self.meter.kill()

    def _log_tail(self) -> str:
        try:
            with self.log_path.open("rb") as handle:
                handle.seek(self.log_start)
                data = handle.read()
        except OSError:
            return ""
        return data[-8192:].decode(errors="replace")

    async def stop(self, grace_s: float = 3.0) -> None:
        """SIGTERM to the bot, SIGKILL to all its processes after ``grace_s``; none survive."""
        self.stopped_by_arena = self.process.returncode is None
        if self.runtime is not None and self.process.returncode is None:
            self.leftover = await asyncio.to_thread(leftover_processes, self.pid)
            # A last sample of its tasks: a limit reached since the sampler last looked (a game
            # that ended within its interval) is still seen.
            await asyncio.to_thread(self.meter.tasks)
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.process.wait(), grace_s)
        await asyncio.to_thread(self.meter.kill)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.process.wait(), grace_s)
        deadline = time.monotonic() + grace_s
        while self.meter.alive() and time.monotonic() < deadline:
            await asyncio.to_thread(self.meter.kill)
            await asyncio.sleep(0.02)
        if self._sampler is not None:
            self._sampler.cancel()
            await asyncio.gather(self._sampler, return_exceptions=True)
        if self.pump is not None:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.pump.done.wait(), 1.0)
            self.pump.close()
        self.meter.remove()

    def incidents(self) -> list[tuple[str, str]]:
        """The sandbox events of this process's life: (kind, detail), once it has stopped."""
        found: list[tuple[str, str]] = []
        runtime = self.runtime
        if runtime is None:
            return found
        limits = runtime.limits
        events = self.meter.events()
        code = self.process.returncode
        if self.over_limit:
            found.append((IncidentKind.OUT_OF_MEMORY.value, self.over_limit))
        elif events.get("memory_oom_kill", 0) or (
            "memory" not in runtime.support.controllers
            and any(word in self._log_tail() for word in _MEMORY_WORDS)
        ):
            found.append(
                (IncidentKind.OUT_OF_MEMORY.value, f"{self.label}: over {limits.memory_mb} MiB")
            )
        # The sandbox's own tasks (bwrap, init and its threads) count beside the bot's.
        if events.get("pids_max", 0) or self.meter.peak_tasks >= limits.processes + _OWN_TASKS:
            found.append(
                (
                    IncidentKind.TOO_MANY_PROCESSES.value,
                    f"{self.label}: reached {limits.processes} processes and threads",
                )
            )
        if code in _SIGXFSZ_CODES:
            found.append(
                (
                    IncidentKind.REFUSED_ACCESS.value,
                    f"{self.label}: killed writing a file over {limits.file_size_mb} MiB",
                )
            )
        elif any(word in self._log_tail() for word in _WRITE_WORDS):
            found.append(
                (
                    IncidentKind.REFUSED_ACCESS.value,
                    f"{self.label}: a write over {limits.file_size_mb} MiB a file or "
                    f"{limits.scratch_mb} MiB of scratch was refused",
                )
            )
        if self.leftover:
            found.append(
                (
                    IncidentKind.LEFTOVER_PROCESSES.value,
                    f"{self.label}: {self.leftover} background process(es) killed at the end",
                )
            )
        return found


async def start_bot_process(
    argv: Sequence[str],
    env: Mapping[str, str],
    log_path: Path,
    header: str,
    *,
    label: str,
    runtime: SandboxRuntime | None = None,
    server_target: str = "",
    folder: Path | None = None,
    cwd: str | None = None,
    slot: int = 0,
    on_cut: Callable[[int], None] | None = None,
    writable: bool = False,
    files: Sequence[Path] = (),
) -> BotProcess:
    """Start ``argv``: in a new sandbox when ``runtime`` is given, else as the arena's user.

    Unsandboxed, it execs through :mod:`rookery.arena.launch._exec_guard` (dies with the arena) in
    ``cwd`` and writes straight to its log; sandboxed, it runs in its ``folder`` and its output
    goes through a :class:`LogPump`; ``files`` (that the organiser's config names) are mounted
    into the sandbox read-only.
    """
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as handle:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        handle.write(f"--- {stamp} {header}: {' '.join(argv)}\n".encode())
        log_start = handle.tell()
    if runtime is None:
        with log_path.open("ab") as handle:
            process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "rookery.arena.launch._exec_guard",
                *argv,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=handle,
                stderr=handle,
                env=dict(env),
                cwd=cwd,
                start_new_session=True,
            )
        return BotProcess(process, ProcessMeter(process.pid), log_path, log_start, label)
    command = runtime.command(
        label, argv, env, server_target, folder=folder, slot=slot, writable=writable, files=files
    )
    # The guard's settings hold the bot's environment and launch key: on a descriptor, never
    # on its command line (which every local user can read).
    settings_fd = settings_descriptor(command.settings)
    read_fd, write_fd = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *command.argv_reading(settings_fd),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            env={},
            start_new_session=True,
            pass_fds=(settings_fd,),
        )
    except OSError:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
        os.close(settings_fd)
    bot = BotProcess(
        process,
        ProcessMeter(process.pid, command.cgroup),
        log_path,
        log_start,
        label,
        runtime,
    )
    bot.pump = LogPump(read_fd, log_path, runtime.limits.log_kb * 1024, on_cut or (lambda _n: None))
    bot.start_sampling()
    return bot
