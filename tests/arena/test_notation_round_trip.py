"""A real arena run's replays survive game notation: written as text, read back, re-simulated.

The reference bots ``random`` and ``heuristic`` play as real ``rookery bot run`` processes on
an embedded server, in short tournaments of ``called-partner``, ``cutthroat`` and
``five-handed``; every replay file the runs wrote is exported as text, read back and verified,
and must equal the JSON replay record by record, think times aside.
"""

from __future__ import annotations

import asyncio
import shlex
import sys
from pathlib import Path

from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.records import RunStore
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.client.bots import bot_reference
from rookery.engine import PRESETS
from rookery.server import TimeControl
from rookery.v1 import replay_pb2
from rookery.wire.notation import format_game, parse_game
from rookery.wire.replay import read_replay, verify_replay

FAST = TournamentOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0)
PYTHON = shlex.quote(sys.executable)


def _reference(name: str) -> BotSpec:
    return BotSpec(name, f"{PYTHON} -m rookery.cli.main bot run {bot_reference(name)}")


def _without_think_times(replay: replay_pb2.Replay) -> replay_pb2.Replay:
    copy = replay_pb2.Replay()
    copy.CopyFrom(replay)
    for hand in copy.hands:
        for recorded in hand.actions:
            recorded.think_ms = 0
    return copy


def _config(preset: str) -> TournamentConfig:
    return TournamentConfig(
        name=f"notation-{preset}",
        ruleset=PRESETS[preset].replace(target=100, max_hands=2),
        bots=(_reference("random"), _reference("heuristic")),
        games=2,
        concurrency=2,
        time_control=TimeControl(action_ms=3000, strike_limit=3, grace_ms=500),
        bootstrap=20,
    )


async def test_every_replay_of_an_arena_run_round_trips_through_text(tmp_path: Path) -> None:
    presets = ("called-partner", "cutthroat", "five-handed")
    configs = [_config(preset) for preset in presets]
    runs = [tmp_path / preset for preset in presets]
    results = await asyncio.gather(
        *(
            TournamentRunner(c, run, options=FAST).run()
            for c, run in zip(configs, runs, strict=True)
        )
    )
    assert all(r.recorded == r.total >= 2 for r in results)
    checked: set[str] = set()
    for config, run in zip(configs, runs, strict=True):
        with RunStore(run) as store:
            rows = store.games(config.name)
        for row in rows:
            replay = read_replay(run / row.replay_path)
            assert {s.bot_name for s in replay.header.seats} == {"random", "heuristic"}
            game = parse_game(format_game(replay), row.replay_path)
            assert verify_replay(game.replay) == []
            assert game.replay.result == replay.result
            assert game.replay == _without_think_times(replay)
            checked.add(replay.header.ruleset.name)
    assert checked == set(presets)
