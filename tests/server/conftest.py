"""Fixtures for the server suite: loopback servers and raw protocol clients."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import pytest
from rookery.server import RookeryServer, ServerConfig
from rookery.server.testing import RawBot, raw_bots, running_server


@pytest.fixture
async def server() -> AsyncIterator[RookeryServer]:
    """An open-mode server on a loopback port."""
    async with running_server(ServerConfig(log_level="warning"), stop_grace_s=0.1) as running:
        yield running


@pytest.fixture
async def bots() -> AsyncIterator[Callable[..., RawBot]]:
    """A factory of raw bots, all closed at the end of the test."""
    async with raw_bots() as make:
        yield make
