"""``rookery benchmark BOT...``: a bot against the frozen reference pool on fixed deals."""

from __future__ import annotations

import argparse
import inspect
import json
import math
import random
import sys
from collections.abc import Callable
from pathlib import Path

from rookery.arena.config import BotSpec, parse_bot_flag
from rookery.arena.errors import ArenaConfigError, ArenaError
from rookery.client import BotLoadError, load_bot
from rookery.client.benchmark import (
    REFERENCES,
    BenchmarkResult,
    DealSet,
    DealSetError,
    read_deal_set,
    run_benchmark,
)
from rookery.client.bots import Policy
from rookery.client.deal_pars import DEFAULT_NODE_LIMIT, pars_path, read_pars
from rookery.client.par import ContractWorth
from rookery.engine import Action, EngineError, LegalActions, Observation
from rookery.wire.analysis import AnalysisError

__all__ = ["register"]

#: Where the shipped deal sets are in a source tree.
DEALS_FOLDER = Path(__file__).resolve().parents[3] / "benchmark" / "deals"
DEAL_SETS = {"1000": "standard-1000.txt", "10000": "standard-10000.txt.gz"}

_DESCRIPTION = """\
Play each BOT against reference bots on a fixed set of duplicate deals: every deal is one hand
of 'standard' played twice, the bot's pair in seats 0 and 2 and then in 1 and 3, the same
cards in the same seats. Prints, per bot and reference, the points a deal (the bot's side's
hand score minus the reference's, averaged over the deal's two games) with its 95 % interval,
how often the bot's side won the auction and made its contract, how often it set the
reference's, and the deals every seat passed. Every seat's generator is seeded from its deal:
the same bot on the same deals gives the same numbers.

BOT is a reference name (random, heuristic, pimc-16, ddpimc-16) or a Python bot as
'rookery bot run' takes it (path/to/file.py:Class or package.module:Class), played in this
process through its act method. On the native core a game takes pimc-16 about 0.07 s and
ddpimc-16 about 0.15 s: the whole set, minutes a reference. See docs/benchmark.md for the
reference table.

A bot in any language is NAME=COMMAND, as 'rookery arena run --bot' takes it (a kit's bot, a
language-model seat NAME=llm:MODEL@URL): the arena launches it, sandboxed by default, and plays
it against the reference, itself a bot process, on the same deals (one duplicate round a
deal, the deal's seed dealing both games), scored as above. The games are kept in a run
directory (runs/benchmark-NAME-...) for 'rookery arena report'.
"""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``rookery benchmark``."""
    parser = subparsers.add_parser(
        "benchmark",
        help="score bots against the reference bots on fixed duplicate deals",
        description=_DESCRIPTION,
        epilog=(
            "examples:\n  rookery benchmark heuristic\n"
            "  rookery benchmark my_bot.py:MyBot --against heuristic --first 200\n"
            "  rookery benchmark heuristic --against pimc-16 --first 50 --json\n"
            "  rookery benchmark ddpimc-16 --against pimc-16 --jobs 2\n"
            "  rookery benchmark mybot=clients/go/bin/rookery-sample-bot --against heuristic "
            "--first 20"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("bots", nargs="+", metavar="BOT", help="bots to score")
    parser.add_argument(
        "--against",
        action="append",
        choices=sorted(REFERENCES),
        metavar="REFERENCE",
        help="a reference bot to play against (repeat for more; default: random and heuristic)",
    )
    parser.add_argument(
        "--deals",
        choices=sorted(DEAL_SETS),
        default="1000",
        help="the shipped deal set (default 1000)",
    )
    parser.add_argument(
        "--deal-set", type=Path, metavar="FILE", help="another deal set file instead"
    )
    parser.add_argument("--first", type=int, metavar="N", help="play only the set's first N deals")
    parser.add_argument(
        "--play-regret",
        type=int,
        default=0,
        metavar="TRICKS",
        help=(
            "value every card of each hand's last TRICKS tricks with the double-dummy solver and "
            "print each side's play regret, points a deal (the native core; 6 takes about 0.1 s "
            "a game)"
        ),
    )
    parser.add_argument(
        "--phase-regret",
        action="store_true",
        help=(
            "print each side's auction regret (net points a deal) and nest and bury regret "
            "(points a deal) against each deal's par, from the pars beside the deal set "
            "(*-par.txt); each game's own contract is solved (about 0.3 s a game)"
        ),
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help=(
            "play N deals at once, in worker processes (default 1); the results are the same, "
            "deal for deal"
        ),
    )
    parser.add_argument(
        "--sandbox",
        choices=["auto", "on", "off"],
        default="auto",
        help=(
            "how a NAME=COMMAND bot and its reference run, as in 'rookery arena run' (default "
            "auto: in the sandbox where this machine has one)"
        ),
    )
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(func=_benchmark)


def _policy_of_bot(reference: str) -> Callable[[], Policy]:
    """A factory of policies that ask a Python SDK bot (a fresh one per seat and game)."""
    factory = load_bot(reference)
    if inspect.iscoroutinefunction(getattr(factory(), "act", None)):
        raise ValueError(f"{reference}: its act is async; the benchmark plays bots in process")

    def make() -> Policy:
        bot = factory()

        def policy(obs: Observation, legal: LegalActions, rng: random.Random) -> Action:
            return bot.act(obs)  # type: ignore[return-value]

        return policy

    return make


def _command_benchmark(
    bot: BotSpec,
    reference: str,
    deals: DealSet,
    args: argparse.Namespace,
    pars: dict[int, tuple[ContractWorth, ...]] | None,
) -> BenchmarkResult:
    """``bot`` (a command) against ``reference`` in the arena, in a run directory of its own;
    the arena's messages (the sandbox, a bot's incidents) on standard error."""
    from rookery.arena.launch import SandboxMode
    from rookery.arena.run import LiveState
    from rookery.server import configure_logging

    from ._benchmark_command import run_command_benchmark
    from ._run_dirs import DEFAULT_RUNS, new_run_dir

    configure_logging("error", json=False, stream=sys.stderr)
    run_dir = new_run_dir(DEFAULT_RUNS, f"benchmark-{bot.name}-{reference}")
    print(f"{bot.name} against {reference}: the arena's games in {run_dir}", file=sys.stderr)
    shown = 0

    def messages(live: LiveState) -> None:
        nonlocal shown
        for message in live.messages[shown:]:
            print(f"  {message}", file=sys.stderr)
        shown = len(live.messages)

    return run_command_benchmark(
        bot,
        reference,
        deals,
        run_dir,
        sandbox=SandboxMode(args.sandbox),
        concurrency=args.jobs,
        regret_tricks=args.play_regret,
        pars=pars,
        on_progress=messages,
    )


def _row(result: BenchmarkResult) -> str:
    made = "-" if math.isnan(result.made_rate) else f"{100 * result.made_rate:.0f} %"
    set_ = "-" if math.isnan(result.set_rate) else f"{100 * result.set_rate:.0f} %"
    regrets = result.play_regrets
    regret = f" {regrets[0]:>7.1f} {regrets[1]:>8.1f}" if regrets is not None else ""
    phases = result.phase_regrets
    if phases is not None:
        regret += "".join(
            f" {_span(phase):>{width}}" for phase, width in zip(phases, _PHASE_WIDTHS, strict=True)
        )
    return (
        f"{result.bot:<14} {result.reference:<10} {result.deals:>6} "
        f"{result.mean:>+9.1f} {'±' + format(result.interval, '.1f'):>8} "
        f"{result.bids:>6} {made:>6} {result.opponent_bids:>6} {set_:>6} {result.passed_out:>7}"
        f"{regret}"
    )


_PHASE_TITLES = ("auction", "r.auction", "bury", "r.bury")
_PHASE_WIDTHS = (11, 11, 9, 9)


def _span(bounds: tuple[float, float]) -> str:
    """A mean's bounds: one number when they agree."""
    low, high = bounds
    return f"{low:+.1f}" if low == high else f"{low:+.1f}..{high:+.1f}"


_TITLE = (
    f"{'bot':<14} {'reference':<10} {'deals':>6} {'pts/deal':>9} {'95 %':>8} "
    f"{'bids':>6} {'made':>6} {'r.bids':>6} {'set':>6} {'passed':>7}"
)


def _json(result: BenchmarkResult) -> dict[str, object]:
    regrets = result.play_regrets
    return {
        "bot": result.bot,
        "reference": result.reference,
        "deals": result.deals,
        "points_per_deal": result.mean,
        "interval_95": result.interval,
        "bids": result.bids,
        "made": result.made,
        "reference_bids": result.opponent_bids,
        "sets": result.sets,
        "passed_out": result.passed_out,
        "play_regret_tricks": result.regret_tricks,
        "play_regret": None if regrets is None else regrets[0],
        "reference_play_regret": None if regrets is None else regrets[1],
        **_phases_json(result),
    }


def _phases_json(result: BenchmarkResult) -> dict[str, object]:
    """The regrets against par as ``[low, high]`` means a deal (``None``: not measured)."""
    phases = result.phase_regrets
    names = ("auction_regret", "reference_auction_regret", "bury_regret", "reference_bury_regret")
    return {
        name: None if phases is None else list(phases[index]) for index, name in enumerate(names)
    }


def _read_pars(path: Path, deals: DealSet) -> dict[int, tuple[ContractWorth, ...]] | None:
    """The deal set's pars by seed; None (the reason on standard error) when there are none."""
    found = pars_path(path)
    if not found.exists():
        print(
            f"--phase-regret: no pars beside the deal set ({found}); "
            f"'python bench/deal_pars.py {path}' solves them",
            file=sys.stderr,
        )
        return None
    try:
        pars = read_pars(found, deals)
    except DealSetError as error:
        print(f"--phase-regret: {error}", file=sys.stderr)
        return None
    return {par.seed: par.contracts for par in pars}


def _benchmark(args: argparse.Namespace) -> int:
    path = args.deal_set or DEALS_FOLDER / DEAL_SETS[args.deals]
    try:
        whole = deals = read_deal_set(path)
    except DealSetError as error:
        print(error, file=sys.stderr)
        if args.deal_set is None:
            print("the shipped deal sets are in a source tree of Rookery", file=sys.stderr)
        return 1
    if not 0 <= args.play_regret <= 13:
        print(f"--play-regret: expected 0 to 13 tricks, got {args.play_regret}", file=sys.stderr)
        return 2
    if args.jobs < 1:
        print(f"--jobs: expected 1 or more, got {args.jobs}", file=sys.stderr)
        return 2
    if args.first is not None:
        if args.first < 1:
            print(f"--first: expected 1 or more deals, got {args.first}", file=sys.stderr)
            return 2
        deals = deals.first(args.first)
    pars = None
    if args.phase_regret:
        pars = _read_pars(path, whole)
        if pars is None:
            return 1
    bots: dict[str, Callable[[], Policy] | BotSpec] = {}
    for bot in args.bots:
        if bot in REFERENCES:
            bots[bot] = REFERENCES[bot]
        elif "=" in bot:  # a command, launched by the arena
            try:
                spec = parse_bot_flag(bot)
            except ArenaConfigError as error:
                print(f"rookery benchmark: {error}", file=sys.stderr)
                return 2
            bots[spec.name] = spec
        else:
            try:
                bots[bot] = _policy_of_bot(bot)
            except (
                BotLoadError, ImportError, AttributeError, OSError, ValueError, TypeError
            ) as error:  # fmt: skip
                print(f"cannot load bot {bot!r}: {error}", file=sys.stderr)
                return 1
    references = args.against or ["random", "heuristic"]
    results = []
    if not args.json:
        title = _TITLE + (f" {'regret':>7} {'r.regret':>8}" if args.play_regret else "")
        if pars is not None:
            title += "".join(
                f" {name:>{width}}"
                for name, width in zip(_PHASE_TITLES, _PHASE_WIDTHS, strict=True)
            )
        print(f"{len(deals)} deals of {path.name}, each played twice (duplicate)\n{title}")
    for bot, make in bots.items():
        for reference in references:
            try:
                if isinstance(make, BotSpec):
                    result = _command_benchmark(make, reference, deals, args, pars)
                else:
                    result = run_benchmark(
                        bot,
                        make,
                        reference,
                        deals,
                        regret_tricks=args.play_regret,
                        pars=pars,
                        par_node_limit=DEFAULT_NODE_LIMIT,
                        jobs=args.jobs,
                    )
            except EngineError as error:
                print(f"{bot} against {reference}: an illegal action: {error}", file=sys.stderr)
                return 1
            except AnalysisError as error:
                flag = "--play-regret" if args.play_regret else "--phase-regret"
                print(f"{flag}: {error}", file=sys.stderr)
                return 1
            except ArenaError as error:
                print(f"{bot} against {reference}: {error}", file=sys.stderr)
                return 1
            except RuntimeError as error:
                print(f"{bot} against {reference}: {error}", file=sys.stderr)
                return 1
            results.append(result)
            if not args.json:
                print(_row(result), flush=True)
    if args.json:
        print(json.dumps([_json(result) for result in results], indent=2))
    return 0
