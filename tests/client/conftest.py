"""Fixtures of the SDK tests: bot processes (``rookery bot run``), a killable TCP proxy, replays."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from rookery.engine import Ruleset
from rookery.server import RookeryServer, Table, TableOutcome, TableSpec, TimeControl
from rookery.server.testing import TcpProxy, running_server, stop_process
from rookery.v1 import replay_pb2
from rookery.wire.replay import write_replay

HERE = Path(__file__).resolve().parent
SAMPLE_BOTS = HERE / "sample_bots.py"
ROOKERY = Path(sys.executable).with_name("rookery")
#: The longest any one game of the tests may take.
GAME_TIMEOUT_S = 40.0
#: A clock loose enough for loaded test machines, tight enough to end a stuck test.
TEST_CLOCK = TimeControl(action_ms=5000, grace_ms=10000)


@dataclass
class BotProcess:
    """A ``rookery bot run`` subprocess and its log file."""

    name: str
    process: asyncio.subprocess.Process
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def log_events(self) -> list[dict[str, Any]]:
        """The JSON log lines (the process runs with ``--log-json``)."""
        lines = []
        for line in self.log().splitlines():
            with contextlib.suppress(ValueError):
                lines.append(json.loads(line))
        return lines

    def messages(self) -> list[str]:
        """The ``event`` of every JSON log line, in order."""
        return [str(line.get("event")) for line in self.log_events()]

    def tables_joined_before_first_finish(self) -> dict[int, int]:
        """Per SDK session index, how many tables it had joined before any table finished."""
        joined: dict[int, int] = {}
        for line in self.log_events():
            if line.get("event") == "table finished":
                break
            if line.get("event") == "joined table":
                session = int(line["session"])
                joined[session] = joined.get(session, 0) + 1
        return joined

    async def wait(self, timeout_s: float = 20.0) -> int:
        """The exit code, once the process has exited by itself."""
        return await asyncio.wait_for(self.process.wait(), timeout_s)

    async def stop(self) -> int:
        """SIGTERM, then SIGKILL if it lingers; the exit code."""
        return await stop_process(self.process)


@dataclass
class BotLauncher:
    """Starts bot processes; every one is stopped when the test ends."""

    directory: Path
    started: list[BotProcess] = field(default_factory=list)

    async def start(
        self,
        reference: str,
        server: str,
        name: str,
        *options: str,
        env: dict[str, str] | None = None,
    ) -> BotProcess:
        """``rookery bot run REFERENCE --server SERVER --name NAME --log-json OPTIONS``.

        ``reference`` ``Class`` alone means ``tests/client/sample_bots.py:Class``.
        """
        if ":" not in reference:
            reference = f"{SAMPLE_BOTS}:{reference}"
        log_path = self.directory / f"bot-{name}-{len(self.started)}.log"
        with open(log_path, "wb") as log_file:  # noqa: ASYNC230 (opening is instant)
            process = await asyncio.create_subprocess_exec(
                str(ROOKERY),
                "bot",
                "run",
                reference,
                "--server",
                server,
                "--name",
                name,
                "--log-json",
                *options,
                stdout=log_file,
                stderr=asyncio.subprocess.STDOUT,
                env={**os.environ, **(env or {})},
            )
        bot = BotProcess(name, process, log_path)
        self.started.append(bot)
        return bot

    async def stop_all(self) -> None:
        await asyncio.gather(*(bot.stop() for bot in self.started))


@pytest.fixture
async def bots(tmp_path: Path) -> AsyncIterator[BotLauncher]:
    """Starts ``rookery bot run`` processes; all are stopped at the end of the test."""
    launcher = BotLauncher(tmp_path)
    try:
        yield launcher
    finally:
        await launcher.stop_all()


@pytest.fixture
async def server() -> AsyncIterator[RookeryServer]:
    """A real server in this process, open mode, on a free loopback port."""
    async with running_server(log_level="warning") as running:
        yield running


async def create_table(
    server: RookeryServer,
    preset: str,
    seat_bots: tuple[str, ...],
    *,
    seed: int = 7,
    clock: TimeControl = TEST_CLOCK,
) -> Table:
    """A table of ``preset`` seating ``seat_bots``; it starts once they are all connected."""
    spec = TableSpec(
        Ruleset.preset(preset), seat_bots, seed=seed, time_control=clock, join_timeout_s=20.0
    )
    return await server.create_table(spec)


async def play(
    server: RookeryServer,
    preset: str,
    seat_bots: tuple[str, ...],
    *,
    seed: int = 7,
    clock: TimeControl = TEST_CLOCK,
) -> TableOutcome:
    """Create a table seating ``seat_bots`` and wait for its game to end."""
    table = await create_table(server, preset, seat_bots, seed=seed, clock=clock)
    return await finished(table)


async def finished(table: Table) -> TableOutcome:
    """The table's outcome, once its game has ended."""
    return await asyncio.wait_for(table.wait_finished(), GAME_TIMEOUT_S)


@pytest.fixture(name="create_table")
def create_table_fixture() -> Callable[..., Awaitable[Table]]:
    """``await create_table(server, preset, seat_bots, seed=, clock=)``."""
    return create_table


@pytest.fixture(name="play")
def play_fixture() -> Callable[..., Awaitable[TableOutcome]]:
    """``await play(server, preset, seat_bots, seed=, clock=)``: the game's outcome."""
    return play


@pytest.fixture(name="finished")
def finished_fixture() -> Callable[[Table], Awaitable[TableOutcome]]:
    """``await finished(table)``: the outcome once the game has ended."""
    return finished


@pytest.fixture(name="verify_replay")
def verify_replay_fixture(tmp_path: Path) -> Callable[[replay_pb2.Replay], Awaitable[str]]:
    """``await verify_replay(replay)``: writes it to a file and runs `rookery replay verify`."""

    async def verify(replay: replay_pb2.Replay) -> str:
        path = tmp_path / f"{replay.header.table_id or 'game'}.replay.jsonl.gz"
        return await verify_replay_file(replay, path)

    return verify


async def verify_replay_file(replay: replay_pb2.Replay, path: Path) -> str:
    """Write ``replay`` to ``path`` and check it with ``rookery replay verify``; its output."""
    write_replay(path, replay)
    process = await asyncio.create_subprocess_exec(
        str(ROOKERY),
        "replay",
        "verify",
        str(path),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await asyncio.wait_for(process.communicate(), 30.0)
    text = output.decode(errors="replace")
    assert process.returncode == 0, f"rookery replay verify {path} failed:\n{text}"
    return text


@pytest.fixture
async def proxy_factory() -> AsyncIterator[Callable[[str], Awaitable[TcpProxy]]]:
    """``await proxy_factory(upstream)``: a started :class:`TcpProxy`."""
    proxies: list[TcpProxy] = []

    async def make(upstream: str) -> TcpProxy:
        proxy = TcpProxy(upstream)
        await proxy.start()
        proxies.append(proxy)
        return proxy

    try:
        yield make
    finally:
        for proxy in proxies:
            await proxy.close()
