"""Fixtures of the kit tests: a real server and a bot launcher (the helpers are ``kit_support``)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from rookery.server import RookeryServer
from rookery.server.testing import running_server

# The shared checks assert; rewritten like a test module's, a failed one shows its values.
pytest.register_assert_rewrite("kit_support")

from kit_support import Launcher  # noqa: E402 (after the rewrite is registered)


@pytest.fixture
async def server() -> AsyncIterator[RookeryServer]:
    async with running_server(log_level="warning") as running:
        yield running


@pytest.fixture
async def launcher(tmp_path: Path) -> AsyncIterator[Launcher]:
    bots = Launcher(tmp_path)
    try:
        yield bots
    finally:
        await bots.stop_all()
