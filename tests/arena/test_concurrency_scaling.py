"""More games at once while the bots answer fast: only where the arena sizes the bots' sessions."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.runner import MAX_SCALED_CONCURRENCY, RunOptions, TournamentRunner
from rookery.engine import Ruleset
from rookery.server import TimeControl

BotFactory = Callable[..., BotSpec]
ConfigFactory = Callable[..., TournamentConfig]
ONE_HAND = Ruleset.preset("standard").replace(target=100, max_hands=1)


def _limit(config: object, tmp_path: Path, **options: object) -> int:
    runner = TournamentRunner(config, tmp_path, options=RunOptions(**options))  # type: ignore[arg-type]
    return runner.concurrency_limit


def test_launched_sdk_bots_may_play_up_to_the_scale_times_the_concurrency(
    make_sdk_bot: BotFactory, make_config: ConfigFactory, tmp_path: Path
) -> None:
    bots = (make_sdk_bot("a", "RandomBot"), make_sdk_bot("b", "GreedyBot"))
    assert _limit(make_config(bots, concurrency=3), tmp_path, concurrency_scale=4) == 12
    assert _limit(make_config(bots, concurrency=3), tmp_path) == min(96, MAX_SCALED_CONCURRENCY)
    assert _limit(make_config(bots, concurrency=3), tmp_path, concurrency_scale=1) == 3


def test_the_concurrency_stays_fixed_for_other_bots_and_per_game_processes(
    make_sdk_bot: BotFactory,
    make_rogue_bot: BotFactory,
    make_config: ConfigFactory,
    tmp_path: Path,
) -> None:
    sdk = make_sdk_bot("a", "RandomBot")
    for other in (make_rogue_bot("raw", "hang"), BotSpec("far", "", remote=True)):
        assert _limit(make_config((sdk, other), concurrency=2), tmp_path) == 2
    per_game = make_config((sdk, make_sdk_bot("b", "RandomBot")), process_per_game=True)
    assert _limit(per_game, tmp_path) == per_game.concurrency


@pytest.mark.alone  # the scaling reads how fast replies come: no neighbour on the cores
async def test_fast_bots_get_more_games_at_once_and_every_game_is_recorded(
    make_sdk_bot: BotFactory, make_config: ConfigFactory, tmp_path: Path
) -> None:
    config = make_config(
        (make_sdk_bot("a", "RandomBot"), make_sdk_bot("b", "RandomBot")),
        ruleset=ONE_HAND,
        games=8,
        concurrency=1,
        time_control=TimeControl(action_ms=60_000),
        bootstrap=0,
        process_per_game=False,  # sandboxed or not: the bots launched once
    )
    # Any reply counts as fast here (a loaded machine's replies are slow): the scaling itself
    # is under test, not the threshold. A look every 20 ms: eight one-hand games of fast bots
    # take well under the default half second, and ended before the first look.
    options = RunOptions(concurrency_scale=4, fast_reply_s=60.0, scale_interval_s=0.02)
    runner = TournamentRunner(config, tmp_path / "run", options=options)

    result = await runner.run()

    assert result.recorded == 8
    assert 2 <= runner.games_at_once <= 4


async def test_launched_sdk_bots_share_the_cores_among_them(
    make_sdk_bot: BotFactory, make_config: ConfigFactory, tmp_path: Path
) -> None:
    # Four bots on two cores run as one process each (two each split every session's tables
    # and batches finer, at more CPU per move); an explicit `processes` still decides.
    bots = tuple(make_sdk_bot(name, "RandomBot") for name in "abc") + (
        dataclasses.replace(make_sdk_bot("d", "RandomBot"), processes=2),
    )
    config = make_config(
        bots,
        ruleset=ONE_HAND,
        games=1,
        concurrency=2,
        time_control=TimeControl(action_ms=60_000),
        bootstrap=0,
        process_per_game=False,
    )
    runner = TournamentRunner(config, tmp_path / "run", options=RunOptions(bot_cores=2))

    result = await runner.run()

    assert result.recorded == result.total > 0
    processes = {name: launcher.plan.processes for name, launcher in runner.launchers.items()}
    assert processes == {"a": 1, "b": 1, "c": 1, "d": 2}
