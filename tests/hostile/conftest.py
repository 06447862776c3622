"""Fixtures of the hostile suite: loopback servers, raw protocol clients, honest tables.

Every hostile test runs an honest game next to the attack and checks that it finishes as if
nothing happened: the property is always "the attacker gets a precise answer, the server and
every other table go on".
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import pytest
from hostile_support import NORMAL_ENDINGS, QUIET, SHORT, HonestTable
from rookery.server import RookeryServer
from rookery.server.testing import RawBot, raw_bots, running_server

__all__ = ["NORMAL_ENDINGS", "QUIET", "SHORT", "HonestTable", "seat_names"]


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
