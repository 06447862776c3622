"""The seccomp filter: built for both architectures it knows, none for the others; a playing bot
gets it, a league's build step (toolchains lock their caches) does not."""

from __future__ import annotations

import asyncio
import errno
import struct
import sys
from pathlib import Path

from rookery.arena.launch import SandboxLimits, SandboxRuntime, _seccomp, probe, start_bot_process


def test_the_filter_is_built_for_x86_64_and_aarch64_and_ends_in_returns() -> None:
    for machine in ("x86_64", "aarch64"):
        code = _seccomp.program(machine)
        assert code and len(code) % 8 == 0
        instructions = [struct.unpack("<HBBI", code[i : i + 8]) for i in range(0, len(code), 8)]
        assert instructions[-1][0] == 0x06  # a return: no path runs off the end
        assert len(instructions) < 4096  # the kernel's BPF_MAXINSNS


def test_an_unknown_architecture_gets_no_filter() -> None:
    assert _seccomp.program("riscv64") == b""


_LOCK = (
    "import fcntl, os, sys\n"
    "fd = os.open(sys.argv[1], os.O_RDONLY)\n"
    "try:\n"
    "    fcntl.flock(fd, fcntl.LOCK_SH)\n"
    "    print('LOCK ok', flush=True)\n"
    "except OSError as error:\n"
    "    print('LOCK refused', error.errno, flush=True)\n"
)


async def _lock_in_sandbox(tmp_path: Path, *, writable: bool) -> str:
    support = probe(cgroups=False)
    assert support.available, support.describe()
    (tmp_path / "server.sock").touch()
    folder = tmp_path / ("build" if writable else "play")
    folder.mkdir()
    (folder / "file.txt").write_text("x")
    runtime = SandboxRuntime(support, SandboxLimits(), tmp_path / "server.sock")
    log = tmp_path / f"{folder.name}.log"
    process = await start_bot_process(
        [sys.executable, "-I", "-S", "-c", _LOCK, str(folder / "file.txt")],
        runtime.environment({}, {}),
        log,
        "lock",
        label="lock",
        runtime=runtime,
        server_target="127.0.0.1:45004",
        folder=folder,
        writable=writable,
    )
    try:
        await asyncio.wait_for(process.process.wait(), 30)
    finally:
        await process.stop(grace_s=1.0)
        runtime.close()
    return log.read_text()


async def test_a_playing_bot_gets_no_file_lock_and_a_build_step_does(tmp_path: Path) -> None:
    assert f"LOCK refused {errno.ENOLCK}" in await _lock_in_sandbox(tmp_path, writable=False)
    assert "LOCK ok" in await _lock_in_sandbox(tmp_path, writable=True)
