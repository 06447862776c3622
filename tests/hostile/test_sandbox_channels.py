"""Two sandboxes at once cannot signal each other through a file both can see.

Every sandbox mounts the same host files (the system folders, the arena's Python, a bot folder
two bots share), so any kernel object keyed by a file's inode is shared between sandboxes unless
the sandbox refuses it: byte-range locks (``fcntl``), open file description locks, ``flock``,
leases and directory notifications (``F_NOTIFY``), inotify and fanotify watches, and the page
cache, which a read that must not wait (``RWF_NOWAIT``), ``cachestat`` or io_uring can probe.
The sender and the receiver (``channel_probe.py``) run in two real sandboxes of one runtime, as
the two games of a duplicate pair or two seats of one side do.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

from rookery.arena.launch import SandboxLimits, SandboxRuntime, probe, start_bot_process

PROBE = Path(__file__).with_name("channel_probe.py")


async def _run_pair(folder: Path, tmp_path: Path) -> tuple[dict[str, str], dict[str, str]]:
    support = probe(cgroups=False)
    assert support.available, support.describe()
    socket_path = tmp_path / "server.sock"
    socket_path.touch()
    runtime = SandboxRuntime(support, SandboxLimits(), socket_path)
    started = []
    for role in ("send", "receive"):
        started.append(
            await start_bot_process(
                [sys.executable, "-I", "-S", str(folder / PROBE.name), role, str(folder)],
                runtime.environment({}, {}),
                tmp_path / f"{role}.log",
                role,
                label=role,
                runtime=runtime,
                server_target="127.0.0.1:45002",
                folder=folder,
            )
        )
    try:
        for process in started:
            await asyncio.wait_for(process.process.wait(), 60)
    finally:
        for process in started:
            await process.stop(grace_s=1.0)
        runtime.close()
    results = []
    for role in ("send", "receive"):
        lines = (tmp_path / f"{role}.log").read_text(errors="replace").splitlines()
        said = [line.split(" ", 2)[1:] for line in lines if line.startswith("CHANNEL ")]
        results.append({name: result for name, result in said})
    return results[0], results[1]


async def test_no_lock_watch_or_cached_page_carries_a_bit_between_two_sandboxes(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "shared-bot-folder"
    folder.mkdir()
    folder.chmod(0o755)
    shutil.copy(PROBE, folder / PROBE.name)
    (folder / "shared.txt").write_text("a file both sandboxes see\n")

    sent, received = await _run_pair(folder, tmp_path)

    assert sent.get("sender") == "done" and received.get("receiver") == "done", (sent, received)
    for lock in ("fcntl-lock", "ofd-lock", "flock"):
        assert sent[lock] == "refused ENOLCK", (lock, sent)
        assert received[lock] == "refused ENOLCK", (lock, received)
    assert received["dnotify"] == "refused ENOLCK", received
    assert received["inotify"] == "refused ENOSYS", received
    assert received["page-cache"] in ("refused EOPNOTSUPP", "refused ENOTSUP"), received
    for call in ("add_key", "io_uring_setup", "cachestat", "fanotify_init", "msgget"):
        assert sent[f"syscall-{call}"] == "refused ENOSYS", sent
    assert "seen" not in received.values(), received
