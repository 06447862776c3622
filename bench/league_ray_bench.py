"""League throughput: rated pairs/s on the local backend and on a local Ray over the same cores,
and the league process's own recording ceiling.

Run alone with ``.venv/bin/python bench/league_ray_bench.py [on|off ...] [--rounds N]``; prints
``name value unit`` lines. The same workload on each backend, each time in a fresh league: four
versions of the league tests' mixture bot (two strengths), games to 100 points, ``--concurrency
4`` (two pairs at once), with the sandbox off (the local league keeps each version's process for
all its games; each Ray worker keeps warm lanes of them) and on (the local league keeps two warm
lanes of processes a version, each Ray worker its own two lanes); the local league sandboxed
against unconfined is printed too. It times 100 rated pairs played once every version has
qualified and 10 more rated pairs were played (so Ray's start-up, the first shipping of the
versions' files and the workers' first start of each version's processes are not counted: "once
up"), on the local backend, then on a local Ray of this machine's CPUs (one worker a CPU:
two pairs at once on two cores); with ``--rounds N`` the two alternate N times and the medians
are printed (other work on the machine comes and goes: the load average is printed per run).

The recording ceiling is the league's work per pair with instant bots: its two replay files
written, the pair's transaction and a refit of the ratings (the bootstrap below) with its ratings
row, repeated on a copy of a recorded pair. Bounded: about two minutes on two cores.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from rookery.arena.league import (
    LeagueOptions,
    LeagueServer,
    LeagueStore,
    RatingPoint,
    RayPairsOptions,
    VersionState,
    seat_name,
)
from rookery.arena.records import write_bytes_atomically
from rookery.arena.run import LOOPBACK_ONLY
from rookery.arena.stats import GameScore, fit_bradley_terry
from rookery.engine import Ruleset
from rookery.server import ServerConfig, TimeControl, configure_logging

MIXBOT = Path(__file__).resolve().parents[1] / "tests" / "league" / "mixbot"
COMMAND = f"{sys.executable} -m rookery.cli.main bot run mix_bot.py:MixBot"
STRENGTHS = (1.0, 1.0, 0.0, 0.0)
PAIRS = 100
"""Rated pairs timed per backend (10 to 15 s; 30 pairs were 3 to 5 s, in which one process start
or a burst of the machine's other work moved a figure by a third: the same Ray run unconfined
measured 5.3 to 8.9 pairs/s, and sandboxed above or below unconfined by turns)."""
WARMUP = 10
"""Rated pairs played before the timing starts, on either backend (each Ray worker starts its
warm processes of a version with the first pair it plays of it; the local league's were started
by the version's qualification)."""
BOOTSTRAP = 100
"""Refits behind each rating interval (the league's default)."""
CEILING_PAIRS = 40
"""Pairs recorded for the ceiling."""


def _options(root: Path, sandbox: str) -> LeagueOptions:
    return LeagueOptions(
        ruleset=Ruleset.preset("standard").replace(target=100),
        concurrency=4,
        min_pairs=1,
        bootstrap=BOOTSTRAP,
        time_control=TimeControl(action_ms=2000, grace_ms=5000),
        sandbox=sandbox,
        local_root=root,
        open_mode=True,
        submissions_per_day=0,
    )


async def _season(root: Path, ray: RayPairsOptions | None, sandbox: str) -> float:
    """Rated pairs/s of one league once its versions are active."""
    sources = root / "sources"
    for i, strength in enumerate(STRENGTHS):
        folder = sources / f"v{i}"
        shutil.copytree(MIXBOT, folder, ignore=shutil.ignore_patterns("__pycache__"))
        (folder / "strength.txt").write_text(f"{strength}\n")
        (folder / "extra.txt").write_text(f"version {i}\n")
    config = ServerConfig(address="127.0.0.1:0", log_level="error")
    running = await LeagueServer.start(
        root / "league" / "league.sqlite", config, _options(root, sandbox), ray=ray
    )
    league = running.league
    try:
        league.create_season("bench", time.time() + 3600)
        for i in range(len(STRENGTHS)):
            await league.submit(f"bot{i}", None, COMMAND, local_folder=str(sources / f"v{i}"))
        deadline = time.monotonic() + 240
        while sum(v.status == VersionState.ACTIVE for v in league.standings.playing_field()) < len(
            STRENGTHS
        ):
            if time.monotonic() > deadline:
                raise SystemExit(f"versions did not qualify: {league.store.versions()}")
            await asyncio.sleep(0.1)
        season = league.store.season().season_id
        first = league.store.count_pairs(season, ("rated",)) + WARMUP
        while league.store.count_pairs(season, ("rated",)) < first:
            if time.monotonic() > deadline + 300:
                raise SystemExit("the league stopped playing")
            await asyncio.sleep(0.05)
        started = time.monotonic()
        while league.store.count_pairs(season, ("rated",)) < first + PAIRS:
            if time.monotonic() > deadline + 300:
                raise SystemExit("the league stopped playing")
            await asyncio.sleep(0.05)
        return PAIRS / (time.monotonic() - started)
    finally:
        await running.stop()


def _ceiling(root: Path) -> tuple[float, int]:
    """Pairs/s the league records with instant bots, and the rated games the fits saw at the end."""
    store = LeagueStore(root / "league" / "league.sqlite")
    try:
        season = store.season()
        pairs = store.pairs(season.season_id, kinds=("rated",))
        template = pairs[-1]
        replays = [(root / "league" / g.replay_path).read_bytes() for g in template.games]
        by_seat = {seat_name(v.version_id): v.version_id for v in store.versions()}
        games = [
            GameScore(
                tuple(tuple(by_seat.get(s, s) for s in side) for side in g.sides),
                g.ranks,
                p.pair_id,
            )
            for p in pairs
            for g in p.games
        ]
        started = time.monotonic()
        for n in range(CEILING_PAIRS):
            copies = []
            for g, data in zip(template.games, replays, strict=True):
                game_id = f"ceiling-{n}-{g.game_id}"
                path = root / "league" / "replays" / f"{game_id}.jsonl.gz"
                digest = write_bytes_atomically(path, data)
                copies.append(dataclasses.replace(g, game_id=game_id, replay_sha256=digest))
            pair_id = store.record_pair(
                dataclasses.replace(template, pair_id=0, games=tuple(copies))
            )
            for g in copies:
                sides = tuple(tuple(by_seat.get(s, s) for s in side) for side in g.sides)
                games.append(GameScore(sides, g.ranks, pair_id))
            fit = fit_bradley_terry(
                games, None, bootstrap=BOOTSTRAP, seed=len(games), confidence=0.95
            )
            count = store.count_pairs(season.season_id)
            now = time.time()
            store.record_ratings(
                season.season_id,
                count,
                [
                    RatingPoint(count, now, r.name, r.elo, r.lower, r.upper, r.games)
                    for r in fit.ratings
                ],
            )
        return CEILING_PAIRS / (time.monotonic() - started), len(games)
    finally:
        store.close()


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def _compare(scratch: Path, sandbox: str, ceiling: bool, rounds: int) -> float:
    """Local and Ray alternately ``rounds`` times: the median of each and their ratio."""
    locals_: list[float] = []
    rays: list[float] = []
    for n in range(rounds):
        local_root = scratch / f"local-{sandbox}-{n}"
        load = _load()
        locals_.append(asyncio.run(_season(local_root, None, sandbox)))
        print(
            f"# round {n + 1} local sandbox {sandbox}: {locals_[-1]:.3f} pairs/s "
            f"(load average {load} -> {_load()})",
            flush=True,
        )
        if ceiling and n == 0:
            rate, games = _ceiling(local_root)
            print(f"league_recording_ceiling_pairs_per_s {rate:.1f} pairs/s", flush=True)
            print(f"league_recording_ceiling_rated_games {games} games", flush=True)
        os.environ.setdefault(LOOPBACK_ONLY, "0")
        os.environ["ROOKERY_LEAGUE_CACHE"] = str(scratch / f"cache-{sandbox}-{n}")
        load = _load()
        rays.append(
            asyncio.run(_season(scratch / f"ray-{sandbox}-{n}", RayPairsOptions(), sandbox))
        )
        print(
            f"# round {n + 1} ray sandbox {sandbox}: {rays[-1]:.3f} pairs/s "
            f"(load average {load} -> {_load()})",
            flush=True,
        )
    local, on_ray = statistics.median(locals_), statistics.median(rays)
    print(f"league_local_sandbox_{sandbox}_pairs_per_s {local:.3f} pairs/s", flush=True)
    print(f"league_ray_sandbox_{sandbox}_pairs_per_s {on_ray:.3f} pairs/s", flush=True)
    print(f"league_ray_vs_local_sandbox_{sandbox} {on_ray / local:.2f} x", flush=True)
    return local


def main() -> int:
    """``league_ray_bench.py [on|off ...] [--rounds N]``: the sandbox of the versions (default:
    both, off first), local and Ray alternating N times (default 1)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("modes", nargs="*", metavar="on|off")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    modes: list[str] = args.modes or ["off", "on"]
    if set(modes) - {"on", "off"}:
        parser.error(f"the sandbox modes are on and off, not {' '.join(modes)}")
    configure_logging("error", json=False, stream=sys.stderr)
    try:
        import ray  # noqa: F401
    except ImportError:
        print("ray: not installed (pip install 'rookery-arena[ray]'): league Ray figures skipped")
        return 0
    with tempfile.TemporaryDirectory(prefix="rookery-league-bench-") as scratch:
        local = {
            sandbox: _compare(Path(scratch), sandbox, ceiling=i == 0, rounds=max(1, args.rounds))
            for i, sandbox in enumerate(modes)
        }
        if {"on", "off"} <= set(local):
            # Sandboxed versions in warm lanes against unconfined ones, the same workload.
            ratio = local["on"] / local["off"]
            print(f"league_local_sandbox_on_vs_off {ratio:.2f} x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
