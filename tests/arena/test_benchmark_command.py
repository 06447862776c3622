"""`rookery benchmark NAME=COMMAND`: a bot that runs as a command (any language) is launched by
the arena, sandboxed by default, against a reference bot process on the deal set's deals, one
duplicate round a deal with the deal's seed; and the schedule's fixed deal seeds under it.

Before, only a reference name or a Python class was taken: a bot of a kit, or any process, could
not be benchmarked at all."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from rookery.arena.config import BotSpec, config_from_dict
from rookery.arena.errors import ArenaConfigError
from rookery.arena.records import RunStore
from rookery.arena.run import Schedule
from rookery.client.benchmark import BENCHMARK_RULESET
from rookery.engine import deal_for_hand
from rookery.wire.convert import deal_from_proto
from rookery.wire.replay import read_replay

ROOKERY = Path(sys.executable).with_name("rookery")
HEURISTIC = f"{ROOKERY} bot run rookery.client.bots.heuristic:HeuristicBot"

CRASHING_BOT = """\
import os

from rookery.client import Bot


class CrashingBot(Bot):
    def act(self, observation):
        os._exit(3)  # the process dies at its first move
"""


def _benchmark(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(ROOKERY), "benchmark", *argv], cwd=folder, capture_output=True, text=True,
        timeout=600, check=False,
    )  # fmt: skip


def _row(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stdout + done.stderr
    (row,) = json.loads(done.stdout)
    assert isinstance(row, dict)
    return row


def test_a_bot_command_plays_the_set_s_deals_in_the_sandbox_as_the_same_bot_in_process(
    tmp_path: Path,
) -> None:
    """The heuristic as a process against the heuristic: every deal's two games are each other's
    mirror (both bots play alike), so every deal scores 0, and the contracts (and the regrets
    against par) are those the in-process benchmark counts on the same deals; the games are
    the set's deals, kept."""
    command = _benchmark(tmp_path, f"mine={HEURISTIC}", "--against", "heuristic", "--first", "6",
                         "--phase-regret", "--json")  # fmt: skip
    in_process = _benchmark(tmp_path, "heuristic", "--against", "heuristic", "--first", "6",
                            "--phase-regret", "--json")  # fmt: skip
    ours, theirs = _row(command), _row(in_process)
    assert ours["bot"] == "mine" and ours["deals"] == 6, ours
    assert ours["points_per_deal"] == 0 and ours["interval_95"] == 0, ours
    counts = ("bids", "made", "reference_bids", "sets", "passed_out")
    assert {k: ours[k] for k in counts} == {k: theirs[k] for k in counts}, (ours, theirs)
    # The regrets against par, read from the replays, are the in-process games' own.
    phases = ("auction_regret", "reference_auction_regret", "bury_regret", "reference_bury_regret")
    assert all(isinstance(ours[k], list) for k in phases), ours
    assert {k: ours[k] for k in phases} == {k: theirs[k] for k in phases}, (ours, theirs)
    assert "sandbox: bubblewrap" in command.stderr, command.stderr
    (run_dir,) = (tmp_path / "runs").glob("benchmark-mine-heuristic-*")
    with RunStore(run_dir) as store:
        (tournament,) = store.tournaments()
        games = store.games(tournament.tournament_id)
    assert len(games) == 12 and [g.seed for g in games[::2]] == list(range(6)), games
    for game in games:
        hand = read_replay(run_dir / game.replay_path).hands[0]
        assert deal_from_proto(hand.deal) == deal_for_hand(BENCHMARK_RULESET, game.seed, 0)
    assert {g.side_bots for g in games} == {("mine", "heuristic"), ("heuristic", "mine")}


def test_a_bot_command_s_side_is_scored_as_its_own(tmp_path: Path) -> None:
    """The heuristic as a process against random: its gain is its own side's, far above 0, as
    the in-process benchmark finds it (a side read the wrong way round would be far below)."""
    command = _row(_benchmark(tmp_path, f"h={HEURISTIC}", "--against", "random", "--first", "8",
                              "--json"))  # fmt: skip
    in_process = _row(_benchmark(tmp_path, "heuristic", "--against", "random", "--first", "8",
                                 "--json"))  # fmt: skip
    for row in (command, in_process):
        assert row["points_per_deal"] - row["interval_95"] > 50, row
        assert row["reference_bids"] + row["bids"] + row["passed_out"] == 16, row


def test_a_bot_command_that_crashes_stops_the_benchmark_naming_the_deal(tmp_path: Path) -> None:
    bots = tmp_path / "bots"
    bots.mkdir(mode=0o755)  # the sandbox's user reads its bot's folder
    (bots / "crashing_bot.py").write_text(CRASHING_BOT)
    (bots / "crashing_bot.py").chmod(0o644)
    done = _benchmark(
        tmp_path, f"crash={ROOKERY} bot run bots/crashing_bot.py:CrashingBot", "--against",
        "random", "--first", "1",
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("crash against random: deal 0: forfeit"), done.stderr
    assert "exited with code 3" in done.stderr and "runs/benchmark-crash-random-" in last


@pytest.mark.parametrize(
    ("bot", "code", "message"),
    [
        ("x=remote", 1, "the benchmark launches its bots: give a command (NAME=COMMAND)"),
        ("bad name=./bot", 2, "use 1-64 letters, digits"),
    ],
)
def test_a_bot_the_benchmark_cannot_launch_is_refused_before_any_game(
    tmp_path: Path, bot: str, code: int, message: str
) -> None:
    done = _benchmark(tmp_path, bot, "--against", "random", "--first", "1")
    assert done.returncode == code and message in done.stderr, done.stdout + done.stderr
    assert not list(tmp_path.glob("runs/benchmark-*/*.sqlite*")), "a game was played"


def test_fixed_deal_seeds_deal_each_round_and_are_part_of_what_a_resume_must_match() -> None:
    data: dict[str, object] = {
        "name": "fixed",
        "bots": [{"name": "a", "command": "a"}, {"name": "b", "command": "b"}],
        "games": 4,
        "deal_seeds": [0, 17],
    }
    config = config_from_dict(data)
    schedule = Schedule.from_config(config)
    assert [game.seed for game in schedule.games()] == [0, 0, 17, 17]
    assert config_from_dict(config.to_dict()).deal_seeds == (0, 17)
    other = config_from_dict({**data, "deal_seeds": [0, 18]})
    assert other.fingerprint() != config.fingerprint()
    derived = config_from_dict({k: v for k, v in data.items() if k != "deal_seeds"})
    assert [game.seed for game in Schedule.from_config(derived).games()][::2] != [0, 17]
    with pytest.raises(ArenaConfigError, match="2 seeds deal at most 4 games a pairing"):
        config_from_dict({**data, "games": 6})
    with pytest.raises(ArenaConfigError, match="deal_seeds"):
        config_from_dict({**data, "deal_seeds": [0, -1]})
    assert BotSpec("a", "a") in config.bots
