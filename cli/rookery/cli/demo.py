"""``rookery demo``: the reference bots in a duplicate round-robin, with ratings and a report."""

from __future__ import annotations

import argparse
import importlib
import os
import shlex
import sys
import time
from pathlib import Path

__all__ = ["demo_bots", "register"]

#: (name, candidate "module:Class" paths) of the reference bots, strongest last.
_REFERENCE_BOTS = (
    ("random", ("rookery.client.bots:RandomBot", "rookery.client.bots.random_bot:RandomBot")),
    (
        "heuristic",
        ("rookery.client.bots:HeuristicBot", "rookery.client.bots.heuristic:HeuristicBot"),
    ),
    ("pimc", ("rookery.client.bots:PimcBot", "rookery.client.bots.pimc:PimcBot")),
)


def _exists(path: str) -> bool:
    module_name, _, attribute = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        return False
    return hasattr(module, attribute)


def demo_bots() -> list[tuple[str, str]]:
    """(name, ``module:Class``) of each reference bot this installation has."""
    found = []
    for name, candidates in _REFERENCE_BOTS:
        for path in candidates:
            if _exists(path):
                found.append((name, path))
                break
    return found


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery demo``."""
    demo = subparsers.add_parser(
        "demo",
        help="a duplicate round-robin of the reference bots, with ratings, replays and a report",
        description=(
            "Start an embedded server, launch the reference bots, play a duplicate round-robin "
            "and write the ratings, replays and an HTML report. About a minute on two cores."
        ),
    )
    demo.add_argument("--out", help="the run directory (default: runs/demo-<timestamp>)")
    demo.add_argument("--games", type=int, default=6, help="games per pairing (default 6)")
    demo.add_argument("--target", type=int, default=150, help="target score (default 150)")
    demo.add_argument("--concurrency", type=int, default=None, help="games at once")
    demo.add_argument("--seed", type=int, default=1, help="the schedule's seed")
    demo.set_defaults(func=_demo)


def _demo(args: argparse.Namespace) -> int:
    from rookery.arena.config import (
        BotSpec,
        TimeControlSpec,
        TournamentConfig,
        duplicate_hand_seeds,
    )
    from rookery.arena.runner import RunOptions
    from rookery.cli.arena import run_tournament
    from rookery.engine import Ruleset

    bots = demo_bots()
    if len(bots) < 2:
        print(
            "rookery demo: the reference bots are not installed (rookery.client.bots)",
            file=sys.stderr,
        )
        return 3
    python = shlex.quote(sys.executable)
    specs = tuple(
        BotSpec(name, f"{python} -m rookery.cli.main bot run {path} --version demo")
        for name, path in bots
    )
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(args.out) if args.out else Path("runs") / f"demo-{stamp}"
    concurrency = args.concurrency or max(2, os.cpu_count() or 2)
    config = TournamentConfig(
        name="demo",
        ruleset=duplicate_hand_seeds(Ruleset.preset("standard").replace(target=args.target), True),
        bots=specs,
        games=args.games,
        concurrency=concurrency,
        seed=args.seed,
        time_control=TimeControlSpec(action_ms=2000, grace_ms=2000),
        bootstrap=200,
    )
    started = time.monotonic()
    print(
        f"rookery demo: {', '.join(n for n, _ in bots)} in a duplicate round-robin, "
        f"{args.games} games per pairing, {concurrency} at once -> {out}"
    )
    code = run_tournament(config, out, RunOptions(), write_files=True)
    elapsed = time.monotonic() - started
    print(f"\ndemo finished in {elapsed:.1f} s. Everything is in {out}/:")
    print(f"  report      {out / 'report.html'}  (open in a browser)")
    print(f"  web pages   {out / 'web' / 'index.html'}  (leaderboard and replay viewer)")
    print(f"  standings   {out / 'standings.csv'}, {out / 'report.json'}")
    print(f"  games       {out / 'games.csv'}")
    print(f"  replays     {out / 'replays'}/<game>.jsonl.gz")
    print(f"  bot logs    {out / 'logs'}/<bot>.log")
    print(f"  database    {out / 'arena.sqlite'}")
    return code
