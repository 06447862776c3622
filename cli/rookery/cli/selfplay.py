"""``rookery selfplay``: random legal players, one replay file per game."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from rookery.engine import PRESETS
from rookery.wire.selfplay import run_selfplay

__all__ = ["register"]

_EXAMPLES = """\
examples:
  rookery selfplay --preset standard --games 100 --seed 1 --out replays/
  rookery selfplay --preset cutthroat --games 5 --seed 7 --out /tmp/cut && \\
      rookery replay verify /tmp/cut/*.jsonl.gz

Game i (from 0) is dealt from seed S+i: the same --seed always gives the same games.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery selfplay``."""
    parser = subparsers.add_parser(
        "selfplay",
        help="play games of random legal players and write their replays",
        description=(
            "Play N games of seeded random legal players under a preset and write one replay "
            "file per game (DIR/game-0001.jsonl.gz, ...), then print a summary."
        ),
        epilog=_EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--preset", default="standard", metavar="NAME", help="a preset (see 'rookery rules')"
    )
    parser.add_argument("--games", type=int, default=10, metavar="N", help="games to play")
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the first game")
    parser.add_argument("--out", type=Path, required=True, metavar="DIR", help="replay directory")
    parser.set_defaults(func=_selfplay)


def _selfplay(args: argparse.Namespace) -> int:
    ruleset = PRESETS.get(args.preset)
    if ruleset is None:
        print(
            f"rookery selfplay: unknown preset {args.preset!r}; valid presets: "
            f"{', '.join(PRESETS)}",
            file=sys.stderr,
        )
        return 2
    if args.games < 1:
        print(f"rookery selfplay: --games must be at least 1, got {args.games}", file=sys.stderr)
        return 2
    if not 0 <= args.seed < 2**64:
        print(f"rookery selfplay: --seed must be in 0..2**64-1, got {args.seed}", file=sys.stderr)
        return 2
    try:
        summary = run_selfplay(ruleset, args.games, args.seed, args.out)
    except OSError as error:
        print(f"rookery selfplay: cannot write to {args.out}: {error}", file=sys.stderr)
        return 1
    print("\n".join(summary.lines()))
    return 0
