"""Fixtures of the arena tests: small bots launched as real processes, short games."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.engine import Ruleset
from rookery.server import TimeControl

HERE = Path(__file__).parent
PYTHON = shlex.quote(sys.executable)

#: Short games: the first side to 100 points wins.
SHORT = Ruleset.preset("standard").replace(target=100)


def sdk_bot(name: str, cls: str) -> BotSpec:
    """A bot of ``sdk_bots.py`` run by ``rookery bot run``."""
    path = shlex.quote(str(HERE / "sdk_bots.py"))
    return BotSpec(name, f"{PYTHON} -m rookery.cli.main bot run {path}:{cls}")


def rogue_bot(name: str, mode: str, **env: str) -> BotSpec:
    """A raw-protocol bot of ``rogue_bot.py`` that misbehaves in ``mode``."""
    return BotSpec(name, f"{PYTHON} {shlex.quote(str(HERE / 'rogue_bot.py'))} {mode}", env=env)


def short_config(bots: tuple[BotSpec, ...], **changes: object) -> TournamentConfig:
    """A tournament of short games with a brisk clock."""
    values: dict[str, object] = {
        "name": "test",
        "ruleset": SHORT,
        "bots": bots,
        "games": 2,
        "concurrency": 2,
        "time_control": TimeControl(action_ms=1000, strike_limit=3, grace_ms=500),
        "bootstrap": 50,
    }
    values.update(changes)
    return TournamentConfig(**values)  # type: ignore[arg-type]


BotFactory = Callable[..., BotSpec]
ConfigFactory = Callable[..., TournamentConfig]


@pytest.fixture
def make_sdk_bot() -> BotFactory:
    """Make a bot of ``sdk_bots.py``: ``make_sdk_bot(name, class_name)``."""
    return sdk_bot


@pytest.fixture
def make_rogue_bot() -> BotFactory:
    """Make a misbehaving bot: ``make_rogue_bot(name, mode, **env)``."""
    return rogue_bot


@pytest.fixture
def make_config() -> ConfigFactory:
    """Make a tournament of short games: ``make_config(bots, **changes)``."""
    return short_config


@pytest.fixture
def random_and_greedy() -> tuple[BotSpec, BotSpec]:
    """Two SDK bots of different strength."""
    return sdk_bot("random", "RandomBot"), sdk_bot("greedy", "GreedyBot")


def replay_without_timing(path: Path) -> bytes:
    """A replay file's content without what differs between runs: think times, start time, id."""
    from rookery.wire.replay import read_replay

    replay = read_replay(path)
    replay.header.ClearField("start_time")
    replay.header.ClearField("table_id")
    for hand in replay.hands:
        for action in hand.actions:
            action.ClearField("think_ms")
    return replay.SerializeToString(deterministic=True)


@pytest.fixture
def replay_content() -> Callable[[Path], bytes]:
    """``replay_content(path)``: a replay's bytes without think times, start time and table id."""
    return replay_without_timing
