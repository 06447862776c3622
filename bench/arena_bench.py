"""Arena benchmark: a round-robin of fast launched bots beside the server benchmark's SDK bots.

Run alone with ``.venv/bin/python bench/arena_bench.py``; prints ``name value unit`` lines.

(a) The baseline, measured first in this same run: ``server_bench.py``'s SDK layout without
    events (64 tables kept going on a server in this process, the SDK runner with a fast bot in a
    child process; the launched bots below do not read events either): its actions/s and the
    server's CPU per action.
(b) The arena: a round-robin of four copies of the same fast bot (``fast_bot.py``, launched by
    the arena as real processes, ``rookery bot run``), full games of the ``standard`` preset at
    the arena's default concurrency, played by a ``TournamentRunner`` in this process (its
    embedded server, recording every replay and result to a run directory), for ``ARENA_S``
    seconds after the bots are up: actions/s, games/s, and the arena process's CPU per action;
    then the ratios to (a).
(c) The control: the same server as (a), without the arena, seating the arena's layout: four
    ``fast_bot.py`` processes (``rookery bot run``, two sessions each, as the arena launches
    them), as many tables kept going as the arena played at once, each table two of the four
    bots, one side each, in round-robin order. It tells the arena's own cost (the arena against
    (c)) from what splitting the bots into four processes on this machine costs any server ((c)
    against (a)).
(a), (b), (c), three rounds: the figures are the medians, the ratios the medians of each round's
(its arena against its baseline); each round's ratios are printed too. Bounded: about 3 minutes.

Against another build in the same run: ``--baseline TREE`` (a built source tree of an older
commit, as ``bench/baseline_tree.py`` makes: ``make bench`` passes issue 42's base commit) runs
(b) alone from this tree and from TREE in turn, ``--rounds`` times each (default 3), every run a
fresh process on its tree's packages (the arena, its server and the launched bots), and prints
each side's median actions/s and arena CPU per action and their ratios (this tree's over TREE's),
with each round's (``server_bench.py``'s ``alternate``). About 40 s a round.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import itertools
import json
import shlex
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from rookery.arena.config import BotSpec, TournamentConfig
from rookery.engine import Ruleset
from rookery.server import RookeryServer, TableSpec, TimeControl, configure_logging, tune_gc

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
server_bench: Any = importlib.import_module("server_bench")  # the benchmark next to this one

BOTS = 4
"""Copies of the fast bot in the round-robin (every game seats four of them)."""
GAMES = 100_000
"""Games scheduled: more than the run plays (it is stopped after ``ARENA_S``)."""
WARMUP_S = 3.0
"""Seconds of play before measuring."""
ARENA_S = 10.0
"""Seconds measured."""
ROUNDS = 3
"""Rounds of (the baseline, then the arena): a shared machine's speed drifts within a minute
(the baseline alone went from 14,000 to 23,000 actions/s in one session), so each round's arena
is compared with the baseline just before it, and the medians are printed."""


def _config() -> TournamentConfig:
    command = f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run"
    bot = shlex.quote(f"{HERE / 'fast_bot.py'}:FastBot")
    return TournamentConfig(
        name="arena-bench",
        ruleset=Ruleset.preset("standard"),
        bots=tuple(BotSpec(f"fast{i}", f"{command} {bot}") for i in range(BOTS)),
        games=GAMES,
        seed=5,
        time_control=TimeControl(action_ms=60_000),
        bootstrap=0,
        process_per_game=False,  # launched once (a sandboxed run's default starts them per game)
    )


def _runner(run_dir: str) -> Any:
    """The arena's ``TournamentRunner`` of the tree in use: this one's, or an older tree's
    (``--baseline``: d917ed0's was ``rookery.arena.runner``, its options ``RunOptions``)."""
    try:
        module: Any = importlib.import_module("rookery.arena.run")
        options = module.TournamentOptions()
    except ModuleNotFoundError:
        module = importlib.import_module("rookery.arena.runner")
        options = module.RunOptions()
    return module.TournamentRunner(_config(), run_dir, options=options)


async def _arena() -> tuple[float, float, float, float, int]:
    """Over ``ARENA_S``: actions/s, games/s, the arena process's CPU µs per action, the bots'
    mean reply time (ms) and the games played at once at the end."""
    with tempfile.TemporaryDirectory(prefix="rookery-arena-bench-") as run_dir:
        runner = _runner(run_dir)
        run = asyncio.create_task(runner.run())
        while runner.live.played_now < 1:  # the bots are up and playing
            if run.done():
                run.result()
                raise SystemExit("the arena run ended before its first game")
            await asyncio.sleep(0.05)
        await asyncio.sleep(WARMUP_S)
        assert runner.server is not None
        tally = runner.server.metrics.actions
        actions, games, latency = tally.accepted, runner.live.played_now, tally.latency_sum
        cpu, started = time.process_time(), time.perf_counter()
        await asyncio.sleep(ARENA_S)
        elapsed = time.perf_counter() - started
        cpu_s = time.process_time() - cpu
        actions = tally.accepted - actions
        reply_ms = (tally.latency_sum - latency) / max(1, actions) * 1000
        at_once = getattr(runner, "games_at_once", 0)  # (an older runner has none)
        games = runner.live.played_now - games
        runner.request_stop()
        await asyncio.wait_for(run, 60.0)
    return actions / elapsed, games / elapsed, cpu_s / max(1, actions) * 1e6, reply_ms, at_once


async def _same_layout(tables: int) -> tuple[float, float]:
    """(c) over ``ARENA_S``: the server's actions/s and its CPU µs per action, with the arena's
    bots and layout at ``tables`` tables and no arena."""
    server = RookeryServer(server_bench.bench_config(tables))
    await server.start()
    names = [f"fast{i}" for i in range(BOTS)]
    bot = str(HERE / "fast_bot.py") + ":FastBot"
    children = [
        await asyncio.create_subprocess_exec(
            *(sys.executable, "-m", "rookery.cli.main", "bot", "run", bot),
            *("--server", server.target, "--name", name, "--sessions", "2"),
            *("--max-tables", str(tables)),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL,
        )
        for name in names
    ]
    pairs = list(itertools.combinations(names, 2))
    stop = asyncio.Event()

    async def keep_a_table_going(worker: int) -> None:
        game = 0
        while not stop.is_set():
            first, second = pairs[(worker + game) % len(pairs)]
            if game % 2:  # each pair holds either side in turn, as in the round-robin
                first, second = second, first
            game += 1
            spec = TableSpec(
                ruleset=Ruleset.preset("standard"),
                seat_bots=(first, second, first, second),
                seed=worker * 100_000 + game,
                time_control=TimeControl(action_ms=60_000),
            )
            table = await server.create_table(spec)
            await table.wait_finished()

    try:
        for name in names:
            await server.wait_for_bot(name, sessions=2, timeout=server_bench.CHILD_TIMEOUT_S)
        workers = [asyncio.create_task(keep_a_table_going(i)) for i in range(tables)]
        await asyncio.sleep(WARMUP_S)
        tally = server.metrics.actions
        actions, cpu, started = tally.accepted, time.process_time(), time.perf_counter()
        await asyncio.sleep(ARENA_S)
        elapsed, cpu_s = time.perf_counter() - started, time.process_time() - cpu
        actions = tally.accepted - actions
        stop.set()
        for worker in workers:
            worker.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
    finally:
        for child in children:
            if child.returncode is None:
                child.kill()
            await child.wait()
        await server.stop(grace_s=0)
    return actions / elapsed, cpu_s / max(1, actions) * 1e6


async def orchestrate() -> int:
    configure_logging("error", json=False, stream=sys.stderr)
    tune_gc()
    rounds = []
    for number in range(1, ROUNDS + 1):
        baseline = await server_bench.run_rookery(server_bench.MODES["sdk_observations_only"])
        rate, games, cpu_us, reply_ms, at_once = await _arena()
        layout_rate, layout_cpu = await _same_layout(at_once or 128)
        rounds.append(
            (baseline.rate, baseline.server_cpu_us, rate, games, cpu_us, reply_ms)
            + (layout_rate, layout_cpu)
        )
        server_bench.emit(f"arena_round{number}_vs_server_throughput", rate / baseline.rate, "x")
        server_bench.emit(
            f"arena_round{number}_vs_server_cpu_per_action",
            cpu_us / baseline.server_cpu_us,
            "x",
        )
        server_bench.emit(f"arena_round{number}_vs_layout_throughput", rate / layout_rate, "x")
        server_bench.emit(f"arena_round{number}_vs_layout_cpu_per_action", cpu_us / layout_cpu, "x")
    base_rate, base_cpu, rate, games, cpu_us, reply_ms, layout_rate, layout_cpu = (
        statistics.median(column) for column in zip(*rounds, strict=True)
    )
    server_bench.emit("arena_baseline_server_actions_per_s", base_rate, "actions/s")
    server_bench.emit("arena_baseline_server_cpu_per_action", base_cpu, "us")
    server_bench.emit("arena_actions_per_s", rate, "actions/s")
    server_bench.emit("arena_games_per_s", games, "games/s")
    server_bench.emit("arena_cpu_per_action", cpu_us, "us")
    server_bench.emit("arena_games_at_once", at_once, "games")
    server_bench.emit("arena_reply_time_mean", reply_ms, "ms")
    # The ratios: the median of each round's (its arena against the baseline just before it).
    throughput = statistics.median(r[2] / r[0] for r in rounds)
    cpu = statistics.median(r[4] / r[1] for r in rounds)
    server_bench.emit("arena_vs_server_throughput", throughput, "x")
    server_bench.emit("arena_vs_server_cpu_per_action", cpu, "x")
    # (c): the same server with the arena's four bot processes, and the arena against it.
    server_bench.emit("arena_layout_server_actions_per_s", layout_rate, "actions/s")
    server_bench.emit("arena_layout_server_cpu_per_action", layout_cpu, "us")
    layout_vs_server = statistics.median(r[6] / r[0] for r in rounds)
    server_bench.emit("arena_layout_vs_server_throughput", layout_vs_server, "x")
    layout_cpu_vs_server = statistics.median(r[7] / r[1] for r in rounds)
    server_bench.emit("arena_layout_vs_server_cpu_per_action", layout_cpu_vs_server, "x")
    server_bench.emit(
        "arena_vs_layout_throughput", statistics.median(r[2] / r[6] for r in rounds), "x"
    )
    server_bench.emit(
        "arena_vs_layout_cpu_per_action", statistics.median(r[4] / r[7] for r in rounds), "x"
    )
    return 0


async def once() -> int:
    """``--once``: (b) alone, its figures as one JSON line (a ``--baseline`` side's run)."""
    configure_logging("error", json=False, stream=sys.stderr)
    tune_gc()
    rate, games, cpu_us, reply_ms, at_once = await _arena()
    figures = {"rate": rate, "games": games, "cpu_us": cpu_us, "reply_ms": reply_ms}
    print(json.dumps(figures | {"at_once": at_once}), flush=True)
    return 0


def compare(baseline: Path, rounds: int) -> int:
    """The arena of this tree against ``baseline``'s, alternating, ``rounds`` runs each."""
    runs = server_bench.alternate(
        {"arena": [str(Path(__file__).resolve()), "--once"]}, baseline, rounds, 300.0
    )
    for side in server_bench.SIDES:
        for key, name, unit in (
            ("rate", "actions_per_s", "actions/s"),
            ("cpu_us", "cpu_per_action", "us"),
        ):
            value = statistics.median(run[key] for run in runs["arena", side])
            server_bench.emit(f"arena_{name}[{side}]", value, unit)
    server_bench.emit_versus("arena_cpu_per_action", "arena", "cpu_us", runs)
    server_bench.emit_versus("arena_actions_per_s", "arena", "rate", runs)
    return 0


def main(argv: list[str] | None = None) -> int:
    options = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    options.add_argument(
        "--baseline",
        metavar="TREE",
        type=Path,
        help="instead: the arena from this tree and from the built source tree TREE in turn",
    )
    options.add_argument("--rounds", type=int, default=3, help="with --baseline: runs of each")
    options.add_argument("--once", action="store_true", help=argparse.SUPPRESS)
    args = options.parse_args(argv)
    if args.once:
        return asyncio.run(once())
    if args.baseline is not None:
        if not args.baseline.is_dir():
            options.error(f"--baseline {args.baseline}: no such folder")
        return compare(args.baseline, args.rounds)
    return asyncio.run(orchestrate())


if __name__ == "__main__":
    raise SystemExit(main())
