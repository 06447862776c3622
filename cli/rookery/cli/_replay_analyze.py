"""``rookery replay analyze``: every card's double-dummy cost, and each contract's outcome."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rookery.client.par import ParError, format_par, hand_par, par_to_json, supports_par
from rookery.engine import Ruleset
from rookery.wire.analysis import (
    DEFAULT_NODE_LIMIT,
    AnalysisError,
    GameAnalysis,
    analysis_to_json,
    analyze_replay,
    format_analysis,
)
from rookery.wire.documents import JsonValue
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

With --par, each hand also gets its par: every seat as the bidder with every trump (burying
what the heuristic reference buries) is solved whole, and the auction is played out perfectly
on those values; it prints the par contract, each seat's best contract, and what the hand's
auction (net points) and its bidder's nest and bury (points) cost the bidding side against
par. Sixteen whole hands a hand, each within --node-limit: a search the limit stops leaves
bounds (low..high). Two fixed sides only (standard, traditional and the like).
Exits 1 when the file cannot be read or does not re-simulate, or with --par when its ruleset
has no two fixed sides.
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
            "  rookery replay analyze --json replays/game-0001.jsonl.gz | jq '.hands[0]'\n"
            "  rookery replay analyze --par --hand 0 replays/game-0001.jsonl.gz"
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
        "--par",
        action="store_true",
        help=(
            "also give each hand's par and the regrets of its auction and its nest and bury "
            "against it (16 whole hands solved a hand; two fixed sides only)"
        ),
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
    if args.par and not supports_par(analysis.ruleset):
        print(
            f"{args.file}: --par: {analysis.ruleset.name} has no two fixed sides, so its "
            "auctions have no par",
            file=sys.stderr,
        )
        return 1
    pars = _pars(analysis, args.node_limit) if args.par else {}
    if args.json:
        document = analysis_to_json(analysis)
        hands = document["hands"]
        assert isinstance(hands, list)
        for hand in hands:
            assert isinstance(hand, dict)
            number = hand["hand"]
            assert isinstance(number, int)
            if args.par:
                hand["par"] = pars.get(number, (None,))[0]
        print(json.dumps(document, indent=2))
    else:
        notes = {number: lines for number, (_, lines) in pars.items()}
        sys.stdout.write(format_analysis(analysis, min_cost=args.min_cost, hand_notes=notes))
    return 0


def _pars(analysis: GameAnalysis, node_limit: int) -> dict[int, tuple[JsonValue, list[str]]]:
    """Each analysed hand's par, as JSON and as lines of text, by hand number."""
    rules: Ruleset = analysis.ruleset
    pars: dict[int, tuple[JsonValue, list[str]]] = {}
    for hand in analysis.hands:
        if hand.skipped:
            continue
        try:
            par = hand_par(rules, analysis.results[hand.hand_number], node_limit=node_limit)
        except ParError:
            continue
        pars[hand.hand_number] = (par_to_json(par), format_par(par, rules))
    return pars
