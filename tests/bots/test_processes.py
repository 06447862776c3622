"""Each reference bot runs as a real ``rookery bot run`` process and finishes a game on a server."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from rookery.client.bots import BOTS, bot_reference
from rookery.engine import Ruleset, Termination
from rookery.server import RookeryServer, TableSpec, TimeControl
from rookery.server.testing import running_server

ROOKERY = Path(sys.executable).with_name("rookery")
GAME_TIMEOUT_S = 60.0


@pytest.fixture
async def server() -> AsyncIterator[RookeryServer]:
    """A real server in this process, open mode, on a free loopback port."""
    async with running_server(log_level="warning") as running:
        yield running


async def _start(
    reference: str, server: str, name: str, sessions: int, log: Path
) -> asyncio.subprocess.Process:
    with open(log, "wb") as log_file:  # noqa: ASYNC230 (opening is instant)
        return await asyncio.create_subprocess_exec(
            str(ROOKERY),
            "bot",
            "run",
            reference,
            "--server",
            server,
            "--name",
            name,
            "--sessions",
            str(sessions),
            "--games",
            "1",
            stdout=log_file,
            stderr=asyncio.subprocess.STDOUT,
            env=dict(os.environ),
        )


async def _stop(process: asyncio.subprocess.Process) -> None:
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), 10.0)
        except TimeoutError:
            process.kill()
            await process.wait()


async def test_every_reference_bot_process_finishes_a_game_without_a_fallback(
    server: RookeryServer, tmp_path: Path
) -> None:
    seats = ("pimc", "random", "heuristic", "random")
    processes = [
        await _start(bot_reference(name), server.target, name, seats.count(name), tmp_path / name)
        for name in sorted(BOTS)
    ]
    try:
        spec = TableSpec(
            Ruleset.preset("standard").replace(target=150),
            seats,
            seed=5,
            time_control=TimeControl(action_ms=5000, grace_ms=10000),
            join_timeout_s=20.0,
        )
        table = await server.create_table(spec)
        outcome = await asyncio.wait_for(table.wait_finished(), GAME_TIMEOUT_S)
    finally:
        for process in processes:
            await _stop(process)
    logs = "\n".join((tmp_path / name).read_text(errors="replace") for name in sorted(BOTS))
    assert outcome.result.reason in (Termination.TARGET_REACHED, Termination.MAX_HANDS), logs
    for stats in outcome.seat_stats:
        assert stats.actions > 0, logs
        faults = (stats.auto_plays, stats.illegal_replies, stats.malformed_replies, stats.timeouts)
        assert faults == (0, 0, 0, 0), f"{stats}\n{logs}"
