"""The six languages' sample bots play a round-robin inside the sandbox, unchanged.

The arena finds each kit's folder from its command (the kit above its ``bin/`` or ``dist/``),
mounts it read-only, and the bots reach the server at the usual ``ROOKERY_SERVER`` loopback
address, forwarded inside each bot's own network namespace to the server's Unix socket.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit_support import KITS, PYTHON_BOT_COMMAND, build_kit, refused_actions
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import SandboxMode
from rookery.arena.records import RunStore
from rookery.arena.run import TournamentRunner
from rookery.engine import Ruleset
from rookery.server import TimeControl
from rookery.wire.replay import read_replay

BUILD_TIMEOUT_S = 900.0
LANGUAGES = ("rust", "java", "cpp", "typescript", "go")


@pytest.fixture(scope="module")
def built() -> Iterator[None]:
    """Every kit built (each build.sh is cached: nothing to do when nothing changed)."""
    for language in LANGUAGES:
        build_kit(language, timeout=BUILD_TIMEOUT_S)
    yield


def test_the_six_kits_sample_bots_play_a_round_robin_in_the_sandbox(
    built: None, tmp_path: Path
) -> None:
    bots = [BotSpec(f"{language}-kit", str(KITS[language][1])) for language in LANGUAGES]
    bots.append(BotSpec("python-kit", PYTHON_BOT_COMMAND))
    config = TournamentConfig(
        name="kits",
        ruleset=Ruleset.preset("standard").replace(max_hands=1),
        bots=tuple(bots),
        games=1,
        duplicate=False,
        concurrency=2,
        time_control=TimeControl(action_ms=5000, strike_limit=3, grace_ms=2000),
        bootstrap=0,
        sandbox=SandboxMode.ON,
    )
    runner = TournamentRunner(config, tmp_path / "run")
    result = asyncio.run(runner.run())

    assert any(m.startswith("sandbox: bubblewrap") for m in runner.live.messages)
    assert result.recorded == result.total == 15  # 6 bots, every pair once
    with RunStore(tmp_path / "run") as store:
        games = store.games("kits")
        incidents = store.incidents("kits")
    assert incidents == []
    for game in games:
        assert game.termination == "MAX_HANDS", (game.seat_bots, game.detail)
        assert refused_actions(read_replay(tmp_path / "run" / game.replay_path)) == []
        for name, stats in game.bot_stats.items():
            assert stats.actions > 0 and stats.timeouts == stats.disconnects == 0, (name, stats)
    for bot in bots:
        assert sum(bot.name in game.seat_bots for game in games) == 5
