"""``rookery replay analyze``: every card's double-dummy cost, and each contract's outcome."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rookery.wire.analysis import (
    DEFAULT_NODE_LIMIT,
    AnalysisError,
    analysis_to_json,
    analyze_replay,
    format_analysis,
)
from rookery.wire.errors import WireError
from rookery.wire.notation import read_replays

__all__ = ["add_analyze"]

_DESCRIPTION = """\
Value every position of every finished hand's play with the double-dummy solver (every hand
known, both sides perfect from there on) and print, per hand, the contract's double-dummy outcome
(makeable or not) and the bidding side's actual total, then every card and what it cost its own
side: '-20: seat 2 G14 gave the opponents 20 points (G5 lost none)'. Along a hand the bidding
side's costs minus the defenders' equal the double-dummy value minus the points taken.

Positions are solved from the last card back; a position whose search passes --node-limit
nodes stops its hand's analysis there: its card and the earlier ones print '?'. Within the
default limit most standard hands of good players are valued from their first card, the others
from a card of their first few tricks; --node-limit 0 values every hand whole, at up to a
minute or more for the hardest (docs/benchmark.md).
Exits 1 when the file cannot be read or does not re-simulate.
"""


def add_analyze(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``analyze`` to the ``replay`` command group."""
    analyze = commands.add_parser(
        "analyze",
        help="every card's double-dummy cost and each contract's double-dummy outcome",
        description=_DESCRIPTION,
        epilog=(
            "examples:\n  rookery replay analyze replays/game-0001.jsonl.gz\n"
            "  rookery replay analyze --min-cost 10 --hand 0 replays/game-0001.jsonl.gz\n"
            "  rookery replay analyze --json replays/game-0001.jsonl.gz | jq '.hands[0]'"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    analyze.add_argument("file", type=Path, metavar="FILE", help="a replay file")
    analyze.add_argument(
        "--hand",
        type=int,
        action="append",
        metavar="N",
        help="analyse only hand N (0-based; repeat for more): all finished hands by default",
    )
    analyze.add_argument(
        "--node-limit",
        type=_node_limit,
        default=DEFAULT_NODE_LIMIT,
        metavar="NODES",
        help=(
            f"the most nodes one position's search may take (default {DEFAULT_NODE_LIMIT:,}; "
            "0: no limit)"
        ),
    )
    analyze.add_argument(
        "--min-cost",
        type=int,
        default=0,
        metavar="POINTS",
        help="print only the cards that cost at least POINTS (default 0: every card)",
    )
    analyze.add_argument(
        "--json", action="store_true", help="print the analysis as one JSON document"
    )
    analyze.set_defaults(func=_analyze)


def _node_limit(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of nodes (0 for no limit), got {text}")
    return value


def _analyze(args: argparse.Namespace) -> int:
    try:
        games = read_replays(args.file)
    except WireError as error:
        print(error, file=sys.stderr)
        return 1
    if len(games) != 1:
        print(f"{args.file}: holds {len(games)} games; this command reads one", file=sys.stderr)
        return 1
    count = len(games[0].replay.hands)
    missing = [hand for hand in args.hand or () if not 0 <= hand < count]
    if missing:
        print(
            f"{args.file}: no hand {missing[0]} (the game has hands 0 to {count - 1})",
            file=sys.stderr,
        )
        return 1
    try:
        analysis = analyze_replay(games[0].replay, node_limit=args.node_limit, hands=args.hand)
    except AnalysisError as error:
        print(
            f"{args.file}: cannot analyse: {error} (run 'rookery replay verify' for every problem)",
            file=sys.stderr,
        )
        return 1
    if args.json:
        print(json.dumps(analysis_to_json(analysis), indent=2))
    else:
        sys.stdout.write(format_analysis(analysis, min_cost=args.min_cost))
    return 0
