"""``rookery demo``: the reference bots in a duplicate round-robin, with ratings and a report."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

__all__ = ["demo_bots", "register"]

#: The reference bots of the demo, strongest last (``rookery.client.bots.BOTS`` names them).
_REFERENCE_BOTS = ("random", "heuristic", "pimc")


def demo_bots() -> list[tuple[str, str]]:
    """(name, ``module:Class``) of each reference bot of the demo, strongest last."""
    from rookery.client.bots import bot_reference

    return [(name, bot_reference(name)) for name in _REFERENCE_BOTS]


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
        TournamentConfig,
        duplicate_hand_seeds,
    )
    from rookery.arena.run import TournamentOptions
    from rookery.cli.arena import run_tournament
    from rookery.engine import Ruleset
    from rookery.server import TimeControl

    bots = demo_bots()
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
        time_control=TimeControl(action_ms=2000, grace_ms=2000),
        bootstrap=200,
    )
    started = time.monotonic()
    print(
        f"rookery demo: {', '.join(n for n, _ in bots)} in a duplicate round-robin, "
        f"{args.games} games per pairing, {concurrency} at once -> {out}"
    )
    code = run_tournament(config, out, TournamentOptions(), write_files=True)
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
