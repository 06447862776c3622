"""Memory and inodes are bounded for a sandboxed bot where no memory controller is delegated.

The fallback limit of private memory (``RLIMIT_DATA``) does not see shared memory: anonymous
memory files, a shared anonymous mapping, a file in ``/dev/shm`` (a tmpfs of the host's
``/dev``'s size where its user may write). Nor does any limit
see the inodes of empty files in the scratch (kernel memory, no bytes). Each attack of
``hoard_probe.py`` runs in a real sandbox with a 256 MiB limit (the memory attacks try three
times that, the file attack 150,000 files against the 16,384 its 16 MiB scratch allows) and
must be stopped near the limit with an ``out_of_memory`` incident naming what it held.
"""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

import pytest
from rookery.arena.launch import SandboxLimits, SandboxRuntime, probe, start_bot_process

PROBE = Path(__file__).with_name("hoard_probe.py")
LIMITS = SandboxLimits(memory_mb=256, scratch_mb=16)
#: What a sandbox may overshoot by between two of the arena's looks (0.1 s apart): a loaded
#: machine writes a few hundred MiB in that time.
SLACK_MIB = 192


async def _hoard(tmp_path: Path, kind: str, amount: int) -> tuple[list[int], str, list[str]]:
    support = probe(cgroups=False)  # the fallback: no memory controller
    assert support.available, support.describe()
    socket_path = tmp_path / "server.sock"
    socket_path.touch()
    folder = tmp_path / "bot"
    folder.mkdir(exist_ok=True)
    folder.chmod(0o755)
    (folder / PROBE.name).write_bytes(PROBE.read_bytes())
    runtime = SandboxRuntime(support, LIMITS, socket_path)
    log = tmp_path / f"{kind}.log"
    process = await start_bot_process(
        [sys.executable, "-I", "-S", str(folder / PROBE.name), kind, str(amount)],
        runtime.environment({}, {}),
        log,
        kind,
        label=kind,
        runtime=runtime,
        server_target="127.0.0.1:45003",
        folder=folder,
    )
    try:
        deadline = asyncio.get_running_loop().time() + 90
        while process.process.returncode is None and "DONE" not in log.read_text():
            assert asyncio.get_running_loop().time() < deadline, log.read_text()[-2000:]
            await asyncio.sleep(0.1)
    finally:
        await process.stop(grace_s=1.0)
        runtime.close()
    text = log.read_text(errors="replace")
    held = [int(n) for n in re.findall(r"^HELD (\d+)$", text, re.MULTILINE)]
    return held, text, [f"{kind}: {detail}" for kind, detail in process.incidents()]


@pytest.mark.parametrize("kind", ["memfd", "shared"])
async def test_shared_memory_is_stopped_near_the_limit_and_recorded(
    tmp_path: Path, kind: str
) -> None:
    held, text, incidents = await _hoard(tmp_path, kind, 3 * LIMITS.memory_mb)
    assert max(held, default=0) <= LIMITS.memory_mb + SLACK_MIB, text[-1500:]
    assert "DONE" not in text or "REFUSED" in text, text[-1500:]
    assert any(line.startswith("out_of_memory: ") for line in incidents), (incidents, text[-800:])


async def test_a_file_in_dev_shm_is_bounded_by_the_scratch_size(tmp_path: Path) -> None:
    held, text, _ = await _hoard(tmp_path, "shm", 3 * LIMITS.memory_mb)
    assert max(held, default=0) <= LIMITS.scratch_mb, text[-1500:]
    assert "REFUSED" in text, text[-1500:]


async def test_system_v_shared_memory_is_refused(tmp_path: Path) -> None:
    held, text, _ = await _hoard(tmp_path, "sysv", 3 * LIMITS.memory_mb)
    assert held == [] and "REFUSED Function not implemented" in text, text[-1500:]


async def test_files_in_the_scratch_are_stopped_at_its_inode_limit_and_recorded(
    tmp_path: Path,
) -> None:
    held, text, incidents = await _hoard(tmp_path, "files", 150)
    # Thousands of files: the limit is 16 (one per KiB of the 16 MiB scratch), looked at ten times
    # a second. A bot creating files as fast as it can passes it by what it makes between two
    # looks, and more when the arena's loop runs late on a loaded machine: one run on 2 busy
    # cores made 43 before it was stopped. Unbounded, it made all 150 and said DONE.
    assert "DONE" not in text, text[-1500:]
    assert max(held, default=0) <= 6 * 16, text[-1500:]
    assert any(line.startswith("out_of_memory: ") for line in incidents), (incidents, text[-800:])
