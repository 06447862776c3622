"""Honest tables for the hostile suite: four well-behaved bots beside every attack."""

from __future__ import annotations

import asyncio
from typing import Any

from rookery.engine import Ruleset
from rookery.server import RookeryServer, ServerConfig, TableOutcome, TableSpec, TimeControl
from rookery.server.testing import RawBot
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

    def __init__(
        self,
        server: RookeryServer,
        prefix: str = "honest",
        seed: int = 11,
        *,
        target: str | None = None,
    ) -> None:
        self.server = server
        self.target = target or server.target
        """Where the bots connect (the server, or a relay to it from another address)."""
        self.names = tuple(f"{prefix}{seat}" for seat in range(4))
        self.seed = seed
        self.bots: list[RawBot] = []
        self._tasks: list[asyncio.Task[Any]] = []
        self.table_id = ""

    async def start(self, time_control: TimeControl | None = None) -> HonestTable:
        self.bots = [RawBot(self.target, name) for name in self.names]
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
