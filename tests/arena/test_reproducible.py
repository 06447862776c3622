"""Same config and seed, same games: the reference random bot reruns and resumes identically.

Every seat's generator is seeded from ``TableJoined.bot_seed``, which the arena derives from the
game's seed with a key of the tournament, so neither the table id (process id and clock) nor the
order in which the games ran changes a single action.
"""

from __future__ import annotations

import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from rookery.arena.records import GameRow, RunStore

RANDOM = f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run rookery.client.bots:RandomBot"


def arena_command(out: Path) -> list[str]:
    return [
        sys.executable, "-m", "rookery.cli.main", "arena", "run",
        "--bot", "random", "--bot", f"random2={RANDOM}", "--bot", "heuristic",
        "--games", "2", "--target", "100", "--concurrency", "2", "--seed", "7",
        "--no-report", "--out", str(out),
    ]  # fmt: skip


def record(row: GameRow) -> tuple[object, ...]:
    """A game's record without its timings."""
    return (row.index, row.game_id, row.group, row.round, row.seed, row.seat_bots, row.side_bots,
            row.winners, row.scores, row.ranks, row.termination, row.forfeit_seat, row.detail,
            row.hands_played, row.replay_path)  # fmt: skip


def rows(run: Path) -> list[GameRow]:
    with RunStore(run) as store:
        return sorted(store.games("arena"), key=lambda r: r.index)


def test_a_rerun_and_a_killed_and_resumed_run_play_the_same_games(
    tmp_path: Path, replay_content: Callable[[Path], bytes]
) -> None:
    whole = subprocess.run(arena_command(tmp_path / "whole"), capture_output=True, text=True,
                           timeout=180)  # fmt: skip
    assert whole.returncode == 0, whole.stdout + whole.stderr

    cut = tmp_path / "cut"
    process = subprocess.Popen(
        arena_command(cut), stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT
    )
    deadline = time.monotonic() + 90
    recorded = 0
    while time.monotonic() < deadline and recorded < 2:
        time.sleep(0.1)
        if (cut / "arena.sqlite").exists():
            with RunStore(cut) as store:
                recorded = store.count_games("arena") if store.tournaments() else 0
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    assert 0 < recorded < 6, "the run was not cut mid-way"
    resumed = subprocess.run(
        [*arena_command(cut), "--resume", str(cut)], capture_output=True, text=True, timeout=180
    )
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "resumed" in resumed.stdout

    first, second = rows(tmp_path / "whole"), rows(cut)
    assert len(first) == len(second) == 6
    assert [record(r) for r in second] == [record(r) for r in first]
    for a, b in zip(first, second, strict=True):
        assert replay_content(cut / b.replay_path) == replay_content(
            tmp_path / "whole" / a.replay_path
        ), a.game_id
    # The random bots really drew random actions: the two games of some pair differ.
    assert len({replay_content(tmp_path / "whole" / r.replay_path) for r in first}) == 6
