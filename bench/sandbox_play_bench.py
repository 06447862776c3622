"""Sandboxed play against unconfined play, in the same run: four fast bots, `rookery arena run`.

Run alone with ``.venv/bin/python bench/sandbox_play_bench.py``; prints ``name value unit`` lines.

A round-robin of four copies of the benchmarks' fast bot (``fast_bot.py``, ``rookery bot run``),
full games of the ``standard`` preset, duplicate, at the arena's default concurrency (scaled up
while the bots answer fast), played by a ``TournamentRunner`` in this process: once with
``sandbox = "off"`` (each bot's processes kept for the tournament) and once sandboxed by default
(warm lanes, ``rookery.arena.lanes``: a process per bot and lane, reused for every game of its
lane, none dealt a seed twice). Each is timed for ``MEASURE_S`` seconds once its bots are up and
``WARMUP_S`` more have passed (the sandboxed run starts 24 processes, one a bot and lane, the
unconfined one 4: the time to the first game is printed apart); ``ROUNDS`` rounds alternate the
two, and the ratios are the medians of each round's (sandboxed against the unconfined run just
before it). Bounded: about 3 minutes.
"""

from __future__ import annotations

import asyncio
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import SandboxMode, probe
from rookery.arena.run import TournamentRunner
from rookery.engine import Ruleset
from rookery.server import TimeControl, configure_logging

HERE = Path(__file__).resolve().parent
BOTS = 4
ROUNDS = 2
WARMUP_S = 5.0
MEASURE_S = 15.0


def _config(sandbox: SandboxMode) -> TournamentConfig:
    command = f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run"
    bot = shlex.quote(f"{HERE / 'fast_bot.py'}:FastBot")
    return TournamentConfig(
        name="sandbox-play-bench",
        ruleset=Ruleset.preset("standard"),
        bots=tuple(BotSpec(f"fast{i}", f"{command} {bot}") for i in range(BOTS)),
        games=100_000,
        seed=5,
        time_control=TimeControl(action_ms=60_000),
        bootstrap=0,
        sandbox=sandbox,
    )


async def _run(sandbox: SandboxMode) -> tuple[float, float, float]:
    """(games/s, actions/s, seconds from the start to the first game recorded)."""
    with tempfile.TemporaryDirectory(prefix="rookery-sandbox-play-") as run_dir:
        runner = TournamentRunner(_config(sandbox), run_dir)
        started = time.monotonic()
        run = asyncio.create_task(runner.run())
        while runner.live.played_now < 1:
            if run.done():
                run.result()
                raise SystemExit("the arena run ended before its first game")
            await asyncio.sleep(0.05)
        first_s = time.monotonic() - started
        # Sandboxed, the lanes past the first games' start as their first game comes: all up.
        up_by = time.monotonic() + 120
        while runner.lanes is not None and runner.lanes.processes < 2 * runner.lane_count:
            if time.monotonic() > up_by:
                raise SystemExit(f"{runner.lanes.processes} warm processes after 120 s")
            await asyncio.sleep(0.1)
        await asyncio.sleep(WARMUP_S)
        assert runner.server is not None
        tally = runner.server.metrics.actions
        actions, games, began = tally.accepted, runner.live.played_now, time.perf_counter()
        await asyncio.sleep(MEASURE_S)
        elapsed = time.perf_counter() - began
        actions, games = tally.accepted - actions, runner.live.played_now - games
        runner.request_stop()
        await asyncio.wait_for(run, 120.0)
    return games / elapsed, actions / elapsed, first_s


def emit(name: str, value: float, unit: str) -> None:
    print(f"{name} {value:.2f} {unit}", flush=True)


def main() -> int:
    support = probe(cgroups=False)
    if not support.available:
        print(f"sandbox: not here ({support.describe()}): sandboxed play figures skipped")
        return 0
    configure_logging("error", json=False, stream=sys.stderr)
    rounds = []
    for number in range(1, ROUNDS + 1):
        off = asyncio.run(_run(SandboxMode.OFF))
        on = asyncio.run(_run(SandboxMode.ON))
        rounds.append((*off, *on))
        emit(f"sandbox_play_round{number}_games_ratio", on[0] / off[0], "x")
    off_games, off_actions, off_first, on_games, on_actions, on_first = (
        statistics.median(column) for column in zip(*rounds, strict=True)
    )
    emit("sandbox_play_off_games_per_s", off_games, "games/s")
    emit("sandbox_play_on_games_per_s", on_games, "games/s")
    emit("sandbox_play_off_actions_per_s", off_actions, "actions/s")
    emit("sandbox_play_on_actions_per_s", on_actions, "actions/s")
    emit("sandbox_play_off_first_game_s", off_first, "s")
    emit("sandbox_play_on_first_game_s", on_first, "s")
    emit("sandbox_play_on_vs_off_games", statistics.median(r[3] / r[0] for r in rounds), "x")
    emit("sandbox_play_on_vs_off_actions", statistics.median(r[4] / r[1] for r in rounds), "x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
