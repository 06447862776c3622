"""More games at once while the bots answer fast: only where the arena sizes the bots' sessions."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path

import pytest
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.arena.run._runner import MAX_SCALED_CONCURRENCY, with_session_limits
from rookery.engine import Ruleset
from rookery.server import ServerConfig, TimeControl

BotFactory = Callable[..., BotSpec]
ConfigFactory = Callable[..., TournamentConfig]
ONE_HAND = Ruleset.preset("standard").replace(target=100, max_hands=1)


def _launched_once(
    make_config: ConfigFactory, bots: tuple[BotSpec, ...], *, games: int, concurrency: int
) -> TournamentConfig:
    """One-hand games of ``bots`` under a long clock, the bots launched once (sandboxed or not)."""
    return make_config(
        bots,
        ruleset=ONE_HAND,
        games=games,
        concurrency=concurrency,
        time_control=TimeControl(action_ms=60_000),
        bootstrap=0,
        process_per_game=False,
    )


def _limit(config: object, tmp_path: Path, **options: object) -> int:
    runner = TournamentRunner(config, tmp_path, options=TournamentOptions(**options))  # type: ignore[arg-type]
    return runner.concurrency_limit


def test_launched_sdk_bots_may_play_up_to_the_scale_times_the_concurrency(
    make_sdk_bot: BotFactory, make_config: ConfigFactory, tmp_path: Path
) -> None:
    bots = (make_sdk_bot("a", "RandomBot"), make_sdk_bot("b", "GreedyBot"))
    assert _limit(make_config(bots, concurrency=3), tmp_path, concurrency_scale=4) == 12
    assert _limit(make_config(bots, concurrency=3), tmp_path) == min(
        3 * TournamentOptions().concurrency_scale, MAX_SCALED_CONCURRENCY
    )
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
    pair = (make_sdk_bot("a", "RandomBot"), make_sdk_bot("b", "RandomBot"))
    config = _launched_once(make_config, pair, games=8, concurrency=1)
    # Any reply counts as fast here (a loaded machine's replies are slow): the scaling itself
    # is under test, not the threshold. A look every 20 ms: eight one-hand games of fast bots
    # take well under the default half second, and ended before the first look.
    options = TournamentOptions(concurrency_scale=4, fast_reply_s=60.0, scale_interval_s=0.02)
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
    config = _launched_once(make_config, bots, games=1, concurrency=2)
    runner = TournamentRunner(config, tmp_path / "run", options=TournamentOptions(bot_cores=2))

    result = await runner.run()

    assert result.recorded == result.total > 0
    processes = {name: launcher.plan.processes for name, launcher in runner.launchers.items()}
    assert processes == {"a": 1, "b": 1, "c": 1, "d": 2}


async def test_every_session_may_hold_the_tables_its_bot_is_launched_for(
    make_sdk_bot: BotFactory, make_config: ConfigFactory, tmp_path: Path
) -> None:
    # Two bots on two cores, a side each: one process of two sessions per bot, each session
    # seated at every one of the 256 games at once (the default scale at concurrency 2). A
    # server's default of 64 tables per session would leave three quarters of them waiting.
    pair = (make_sdk_bot("a", "RandomBot"), make_sdk_bot("b", "RandomBot"))
    config = _launched_once(make_config, pair, games=2, concurrency=2)
    runner = TournamentRunner(config, tmp_path / "run", options=TournamentOptions(bot_cores=2))
    assert runner.concurrency_limit == MAX_SCALED_CONCURRENCY == 256
    run = asyncio.create_task(runner.run())
    granted: dict[str, list[int]] = {}
    while not run.done() and len(granted) < 2:
        sessions = runner.server.sessions if runner.server is not None else {}
        for name in ("a", "b"):
            if len(sessions.get(name, ())) == 2:
                granted[name] = sorted(session.max_tables for session in sessions[name])
        await asyncio.sleep(0.005)
    result = await run

    assert result.recorded == 2
    assert {name: launcher.plan.max_tables for name, launcher in runner.launchers.items()} == {
        "a": 256,
        "b": 256,
    }
    assert granted == {"a": [256, 256], "b": [256, 256]}
    assert runner.server is not None
    assert runner.server.config.action_rate == 4 * ServerConfig().action_rate


def test_the_session_limits_grow_with_the_games_at_once() -> None:
    default = ServerConfig()
    assert with_session_limits(default, 64) == default
    assert with_session_limits(default, 2) == default
    wider = with_session_limits(default, 128)
    assert (wider.max_tables_per_session, wider.action_rate, wider.action_burst) == (
        128,
        2 * default.action_rate,
        2 * default.action_burst,
    )
    widest = with_session_limits(default, 256)
    assert (widest.max_tables_per_session, widest.action_rate, widest.action_burst) == (
        256,
        4 * default.action_rate,
        4 * default.action_burst,
    )
