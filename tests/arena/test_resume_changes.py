"""Resuming a run directory: a changed configuration is refused by name, a changed command too.

Real tournaments with real bot processes; the second run is the resume.
"""

from __future__ import annotations

import dataclasses
import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rookery.arena._config_model import changed_fields
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.errors import BotLaunchError, StorageError
from rookery.arena.run import TournamentOptions, TournamentRunner

ConfigFactory = Callable[..., TournamentConfig]

FAST = TournamentOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0)

#: One seed for both runs of a resume (an unset seed is a fresh random one each time).
SEED = 20261201


@pytest.fixture
async def played(
    tmp_path: Path,
    random_and_greedy: tuple[BotSpec, BotSpec],
    make_config: ConfigFactory,
) -> TournamentConfig:
    """A tournament of two games, played to the end in ``tmp_path``."""
    config = make_config(random_and_greedy, seed=SEED)
    result = await TournamentRunner(config, tmp_path, options=FAST).run()
    assert result.recorded == 2
    return config


def test_changed_fields_names_each_field_that_decides_the_games(
    random_and_greedy: tuple[BotSpec, BotSpec], make_config: ConfigFactory
) -> None:
    config = make_config(random_and_greedy, seed=SEED)
    other = make_config(
        random_and_greedy[:1] + (BotSpec("new", "x"),),
        games=4,
        ruleset=config.ruleset.replace(target=120),
        concurrency=7,
        seed=SEED,
    )
    assert changed_fields(config.to_dict(), other.to_dict()) == [
        "bots: random, greedy -> random, new",
        "games: 2 -> 4",
        "ruleset.target: 100 -> 120",
    ]


async def test_a_resume_with_other_games_names_the_field(
    tmp_path: Path, played: TournamentConfig
) -> None:
    more = dataclasses.replace(played, games=4)
    with pytest.raises(StorageError, match=r"another configuration: games: 2 -> 4; "):
        await TournamentRunner(more, tmp_path, options=FAST).run()


async def test_a_resume_with_another_command_for_a_bot_that_played_is_refused(
    tmp_path: Path, played: TournamentConfig
) -> None:
    old = played.bot("greedy")
    new_build = dataclasses.replace(old, command=old.command + " --version 2")
    changed = dataclasses.replace(played, bots=(played.bot("random"), new_build))
    with pytest.raises(StorageError) as refused:
        await TournamentRunner(changed, tmp_path, options=FAST).run()
    message = str(refused.value)
    assert "bot 'greedy' played 2 recorded game(s)" in message
    assert repr(old.command) in message and repr(new_build.command) in message


async def test_a_bot_that_never_played_may_change_its_command_and_the_change_is_recorded(
    tmp_path: Path,
    random_and_greedy: tuple[BotSpec, BotSpec],
    make_config: ConfigFactory,
) -> None:
    broken = BotSpec("greedy", f"{sys.executable} -c 'raise SystemExit(1)'")
    with pytest.raises(BotLaunchError):
        config = make_config((random_and_greedy[0], broken), seed=SEED)
        await TournamentRunner(config, tmp_path, options=FAST).run()
    fixed = make_config(random_and_greedy, seed=SEED)
    result = await TournamentRunner(fixed, tmp_path, options=FAST).run()
    assert result.resumed and result.recorded == 2
    with sqlite3.connect(tmp_path / "arena.sqlite") as db:
        kinds = [r[0] for r in db.execute("SELECT kind FROM incidents WHERE bot='greedy'")]
    assert "command_changed" in kinds and "crash" not in kinds
