"""Fixtures of the hostile suite: loopback servers, raw protocol clients, honest tables.

Every hostile test runs an honest game next to the attack and checks that it finishes as if
nothing happened: the property is always "the attacker gets a precise answer, the server and
every other table go on".
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest
from rookery.engine import Ruleset
from rookery.server import RookeryServer, ServerConfig, TableOutcome, TableSpec, TimeControl
from rookery.server.testing import RawBot, raw_bots, running_server
from rookery.v1 import results_pb2

QUIET = ServerConfig(log_level="warning")
#: Short honest games: two hands at most.
SHORT = Ruleset.preset("standard").replace(max_hands=2)
NORMAL_ENDINGS = (
    results_pb2.TERMINATION_REASON_TARGET_REACHED,
    results_pb2.TERMINATION_REASON_MAX_HANDS,
)


class HonestTable:
    """Four well-behaved raw bots playing one short game on ``server`` in the background."""

    def __init__(self, server: RookeryServer, prefix: str = "honest", seed: int = 11) -> None:
        self.server = server
        self.names = tuple(f"{prefix}{seat}" for seat in range(4))
        self.seed = seed
        self.bots: list[RawBot] = []
        self._tasks: list[asyncio.Task[Any]] = []
        self.table_id = ""

    async def start(self, time_control: TimeControl | None = None) -> HonestTable:
        self.bots = [RawBot(self.server.target, name) for name in self.names]
        for bot in self.bots:
            await bot.connect()
        table = await self.server.create_table(
            TableSpec(SHORT, self.names, seed=self.seed, time_control=time_control)
        )
        self.table_id = table.id
        self._tasks = [asyncio.create_task(bot.play(wait_s=30.0)) for bot in self.bots]
        return self

    async def finish(self, timeout_s: float = 60.0) -> TableOutcome:
        """Waits for the game; asserts it ended normally with no strike, rejection or drop."""
        await asyncio.wait_for(asyncio.gather(*self._tasks), timeout_s)
        outcome = await asyncio.wait_for(
            self.server.get_table(self.table_id).wait_finished(), timeout_s
        )
        assert outcome.termination in NORMAL_ENDINGS, outcome.detail
        for stats in outcome.seat_stats:
            assert stats.timeouts == stats.auto_plays == stats.disconnects == 0, stats
            assert stats.illegal_replies == stats.malformed_replies == 0, stats
        for bot in self.bots:
            await bot.close()
        return outcome


@pytest.fixture
async def server() -> AsyncIterator[RookeryServer]:
    """An open-mode server on a loopback port."""
    async with running_server(QUIET, stop_grace_s=0.1) as running:
        yield running


@pytest.fixture
async def bots() -> AsyncIterator[Callable[..., RawBot]]:
    """A factory of raw bots, all closed at the end of the test."""
    async with raw_bots() as make:
        yield make


@pytest.fixture
async def honest() -> AsyncIterator[Callable[..., Any]]:
    """``await honest(server)``: an honest game started on ``server`` (see HonestTable)."""
    started: list[HonestTable] = []

    async def start(server: RookeryServer, **options: Any) -> HonestTable:
        table = await HonestTable(server, **options).start()
        started.append(table)
        return table

    yield start
    for table in started:
        for bot in table.bots:
            await bot.close()


def seat_names(prefix: str, players: int = 4) -> Sequence[str]:
    """Distinct bot names, one per seat."""
    return tuple(f"{prefix}{seat}" for seat in range(players))
