"""Arena games are the same on the native core and on the pure engine, replay for replay.

The same ``rookery arena run`` (the reference random and heuristic bots, 32 games, one seed) runs
once with ``Game`` on the core and once with ``ROOKERY_PURE_ENGINE=1``: every game's record
(seed, seats, winners, scores, termination, hands) and every replay file are the same, byte for
byte once what differs between any two runs is cleared (think times, start time, table id).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import core_support  # noqa: F401  (skips the module where no Rust toolchain is found)
from rookery.arena.records import GameRow, RunStore
from rookery.engine._build import PURE_ENV
from rookery.wire.replay import read_replay

GAMES = 32


def run_arena(out: Path, *, pure: bool) -> list[GameRow]:
    """The games of one arena run on the core or on the pure engine, in order."""
    env = {key: value for key, value in os.environ.items() if key != PURE_ENV}
    if pure:
        env[PURE_ENV] = "1"
    which = subprocess.run(
        [sys.executable, "-c", "from rookery.engine import build_info; print(build_info().kind)"],
        env=env, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert which.stdout.strip() == ("pure" if pure else "core")
    command = [
        sys.executable, "-m", "rookery.cli.main", "arena", "run",
        "--bot", "random", "--bot", "heuristic", "--games", str(GAMES), "--target", "100",
        "--concurrency", "4", "--seed", "5", "--no-report", "--out", str(out),
    ]  # fmt: skip
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    with RunStore(out) as store:
        return sorted(store.games("arena"), key=lambda row: row.index)


def replay_bytes(path: Path) -> bytes:
    """A replay file's content without think times, start time and table id."""
    replay = read_replay(path)
    replay.header.ClearField("start_time")
    replay.header.ClearField("table_id")
    for hand in replay.hands:
        for action in hand.actions:
            action.ClearField("think_ms")
    return replay.SerializeToString(deterministic=True)


def record(row: GameRow) -> tuple[object, ...]:
    """A game's record without its timings."""
    return (row.index, row.game_id, row.seed, row.seat_bots, row.winners, row.scores,
            row.termination, row.detail, row.hands_played, row.replay_path)  # fmt: skip


def test_arena_games_are_byte_identical_on_the_core_and_the_pure_engine(tmp_path: Path) -> None:
    core = run_arena(tmp_path / "core", pure=False)
    pure = run_arena(tmp_path / "pure", pure=True)
    assert len(core) == len(pure) == GAMES
    assert [record(row) for row in core] == [record(row) for row in pure]
    replays = set()
    for ours, theirs in zip(core, pure, strict=True):
        content = replay_bytes(tmp_path / "core" / ours.replay_path)
        assert content == replay_bytes(tmp_path / "pure" / theirs.replay_path), ours.game_id
        replays.add(content)
    assert len(replays) == GAMES  # 32 different games, each played alike by both builds
    assert sum(row.hands_played for row in core) > GAMES
