"""Arena throughput: games/s of the local backend, and of Ray with one and with two workers.

Run alone with ``.venv/bin/python bench/ray_bench.py``; prints ``name value unit`` lines. The same
tournament (two reference bots, short games to 100 points, duplicate pairs) is played three
times into fresh run directories: on the local backend (an embedded server, the bots launched
once), then as Ray tasks on one local Ray of two CPUs, first with tasks that reserve both CPUs
(one worker at a time) and then one CPU each (two workers). A Ray task starts its own server and
bots, so its figure includes that start-up once per task (``GAMES_PER_TASK`` games). Ray's own
start is timed separately. Bounded: about a minute on two cores. Without Ray installed it says so
and measures the local backend only.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import shlex
import sys
import tempfile
import time

from rookery.arena.config import TOURNAMENT_TIME_CONTROL, BotSpec, TournamentConfig
from rookery.arena.run import LOOPBACK_ONLY, TournamentOptions, TournamentRunner
from rookery.engine import Ruleset
from rookery.server import configure_logging

GAMES = 12
"""Games per run: 6 duplicate pairs of the two bots."""
GAMES_PER_TASK = 6
"""Games per Ray task (three duplicate pairs)."""
CONCURRENCY = 2
"""Games at once: on the local server, and inside each Ray task."""


def _config() -> TournamentConfig:
    python = shlex.quote(sys.executable)
    bots = tuple(
        BotSpec(name, f"{python} -m rookery.cli.main bot run rookery.client.bots.{path}")
        for name, path in (
            ("random", "random_bot:RandomBot"),
            ("heuristic", "heuristic:HeuristicBot"),
        )
    )
    return TournamentConfig(
        name="bench",
        ruleset=Ruleset.preset("standard").replace(target=100),
        bots=bots,
        games=GAMES,
        concurrency=CONCURRENCY,
        seed=3,
        time_control=TOURNAMENT_TIME_CONTROL,
        bootstrap=0,
    )


async def _games_per_second(options: TournamentOptions) -> float:
    with tempfile.TemporaryDirectory(prefix="rookery-ray-bench-") as run_dir:
        started = time.monotonic()
        result = await TournamentRunner(_config(), run_dir, options=options).run()
        elapsed = time.monotonic() - started
    if result.recorded != GAMES:
        raise SystemExit(f"expected {GAMES} games, recorded {result.recorded}")
    return GAMES / elapsed


def main() -> int:
    configure_logging("error", json=False, stream=sys.stderr)
    local = asyncio.run(_games_per_second(TournamentOptions()))
    print(f"arena_local_games_per_s {local:.2f} games/s", flush=True)
    os.environ.setdefault(LOOPBACK_ONLY, "0")
    try:
        ray = importlib.import_module("ray")
    except ImportError:
        print("ray: not installed (pip install 'rookery-arena[ray]'): Ray figures skipped")
        return 0
    started = time.monotonic()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    print(f"ray_start_s {time.monotonic() - started:.1f} s", flush=True)
    try:
        for workers, cpus in ((1, 2.0), (2, 1.0)):
            options = TournamentOptions(
                backend="ray", ray_games_per_task=GAMES_PER_TASK, ray_cpus_per_task=cpus
            )
            rate = asyncio.run(_games_per_second(options))
            print(f"arena_ray_{workers}_worker_games_per_s {rate:.2f} games/s", flush=True)
    finally:
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
