"""Fixtures of the arena tests."""

from __future__ import annotations

import pytest
from arena_testkit import sdk_bot
from rookery.arena.config import BotSpec


@pytest.fixture
def random_and_greedy() -> tuple[BotSpec, BotSpec]:
    """Two SDK bots of different strength."""
    return sdk_bot("random", "RandomBot"), sdk_bot("greedy", "GreedyBot")
