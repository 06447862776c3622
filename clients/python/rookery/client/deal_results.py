"""The deal sets' double-dummy results: what each shipped deal is worth under perfect play.

A deal's result is the contract the heuristic reference reaches with every seat its own (the
bidder, the bid, the trump and the buried cards: the benchmark's ``heuristic`` against
``heuristic`` game) and the bidding side's total for the hand when, from the first card on,
both sides play perfectly with every card known (the buried cards included): the native core's
double-dummy solver. Beside it, what the heuristic's own play took.

The solver's first search tests whether the contract makes; a whole hand can take it minutes,
so each deal has a node limit (:data:`DEFAULT_NODE_LIMIT`), and a deal whose searches it
stops keeps the bounds they proved (``dd_low`` to ``dd_high``; equal when solved, and whether
the contract makes is known as soon as the first search finished).

So a deal's result says whether the heuristic's contract was makeable, and by how much its
play fell short of perfect: what a paper can quote for every deal of a set, as bridge papers
quote a deal's double-dummy tricks. The results of each shipped set are beside it
(``standard-1000-dd.txt``, ``standard-10000-dd.txt``); ``tests/analysis/test_deal_results.py``
pins the files and solves some of their deals again.

>>> from rookery.client.deal_results import results_path
>>> from pathlib import Path
>>> results_path(Path("benchmark/deals/standard-1000.txt")).name
'standard-1000-dd.txt'
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from rookery.engine import (
    DoubleDummy,
    Game,
    HandResult,
    Phase,
    Suit,
    bidding_seats,
    mask_points,
)

from .benchmark import (
    BENCHMARK_RULESET,
    DealSet,
    DealSetError,
    deal_file_lines,
    deal_file_text,
    play_deal,
)
from .bots import HeuristicPolicy

__all__ = [
    "DEFAULT_NODE_LIMIT",
    "ContractPosition",
    "DealResult",
    "contract_position",
    "read_results",
    "results_digest",
    "results_node_limit",
    "results_path",
    "solve_deal",
    "summary",
    "write_results",
]

#: The most nodes a deal's solve may search (about 2.5 s on one core of a 2-core machine).
DEFAULT_NODE_LIMIT = 10_000_000

_HEADER = (
    "# Rookery benchmark deals ({rules}): the heuristic's contract and its double-dummy value\n"
    "# seed bidder bid trump buried dd taken (buried: card mask; dd: the bidding side's points\n"
    "# under perfect play from the first card, buried cards included, or low..high when the\n"
    "# solver's node limit ({limit:,}) stopped it there; taken: the heuristic's own)\n"
)


@dataclasses.dataclass(frozen=True, slots=True)
class DealResult:
    """One deal's double-dummy result: the heuristic's contract and the bidding side's
    double-dummy total (or its bounds; see the module's doc). A deal every seat passed has no
    contract: ``bidder`` -1 and ``trump`` ``None`` (:meth:`passed_out`)."""

    seed: int
    bidder: int
    bid: int
    trump: Suit | None
    buried: int
    dd_low: int
    dd_high: int
    taken: int

    @classmethod
    def passed_out(cls, seed: int) -> DealResult:
        """The result of a deal every seat passed: no contract, no play."""
        return cls(seed, -1, 0, None, 0, 0, 0, 0)

    @property
    def contract(self) -> bool:
        """Whether a seat bid (the deal was not passed out)."""
        return self.trump is not None

    @property
    def solved(self) -> bool:
        """Whether the double-dummy value is known (not only bounds)."""
        return self.contract and self.dd_low == self.dd_high

    @property
    def makeable(self) -> bool | None:
        """Whether the contract makes under perfect play by both sides (``None``: the bounds
        do not tell, or no contract)."""
        if not self.contract:
            return None
        if self.dd_low >= self.bid:
            return True
        if self.dd_high < self.bid:
            return False
        return None

    @property
    def made(self) -> bool:
        """Whether the heuristic's play made it."""
        return self.contract and self.taken >= self.bid

    def line(self) -> str:
        """The result as a line of a results file (no newline)."""
        if self.trump is None:
            return f"{self.seed} passed"
        dd = str(self.dd_low) if self.solved else f"{self.dd_low}..{self.dd_high}"
        return (
            f"{self.seed} {self.bidder} {self.bid} {self.trump.name.lower()} "
            f"{self.buried:x} {dd} {self.taken}"
        )


@dataclasses.dataclass(frozen=True, slots=True)
class ContractPosition:
    """A deal's hand once the heuristic's auction and bury are over: every seat's cards at the
    first card, the first trick's leader, and the hand's result as the heuristic played it."""

    hands: tuple[int, ...]
    leader: int
    side: int
    result: HandResult


def contract_position(seed: int) -> ContractPosition | None:
    """The heuristic's game at every seat on the deal of ``seed``, and its first card's position
    (``None`` when every seat passed)."""
    first: list[tuple[tuple[int, ...], int]] = []

    def at_first_card(game: Game) -> None:
        if not first and game.phase is Phase.PLAY:
            first.append((game.hands, game.public_view().current_trick.leader))

    game = play_deal(seed, [HeuristicPolicy() for _ in range(4)], watch=at_first_card)
    result = game.hand_results[0]
    if not first or result.trump is None:
        return None
    hands, leader = first[0]
    side = sum(1 << seat for seat in bidding_seats(game.ruleset, result.bidder, result.partner))
    return ContractPosition(hands, leader, side, result)


def solve_deal(seed: int, *, node_limit: int = DEFAULT_NODE_LIMIT) -> DealResult:
    """The result of the deal of ``seed``: the heuristic's game at every seat, then its first
    card's position solved, within ``node_limit`` nodes (0: none). ``RuntimeError`` without
    the native core."""
    position = contract_position(seed)
    if position is None:
        return DealResult.passed_out(seed)
    result = position.result
    assert result.trump is not None
    rules = BENCHMARK_RULESET
    solver = DoubleDummy(
        rules.players,
        int(result.trump),
        position.side,
        rook_free_play=rules.rook_free_play,
        last_trick_bonus=rules.last_trick_bonus,
        node_limit=node_limit,
    )
    buried = mask_points(result.buried)
    low, high = solver.bounds(list(position.hands), position.leader, test_first=result.bid - buried)
    return DealResult(
        seed=seed,
        bidder=result.bidder,
        bid=result.bid,
        trump=result.trump,
        buried=result.buried,
        dd_low=buried + low,
        dd_high=buried + high,
        taken=result.bidding_total,
    )


def results_path(deal_set: Path) -> Path:
    """Where the results of a deal set's file are kept: beside it, ``-dd.txt`` for ``.txt``."""
    name = deal_set.name.removesuffix(".gz").removesuffix(".txt")
    return deal_set.with_name(f"{name}-dd.txt")


def write_results(
    path: Path, results: Iterable[DealResult], *, node_limit: int = DEFAULT_NODE_LIMIT
) -> None:
    """Write results, one deal a line, in the order given (``node_limit``: the solves')."""
    lines = [_HEADER.format(rules=BENCHMARK_RULESET.name, limit=node_limit)]
    lines.extend(f"{result.line()}\n" for result in results)
    path.write_text("".join(lines), encoding="utf-8")


def _parse(line: str) -> DealResult:
    parts = line.split()
    if len(parts) == 2 and parts[1] == "passed":
        return DealResult.passed_out(int(parts[0]))
    if len(parts) != 7:
        raise ValueError(
            f"expected 7 fields (seed bidder bid trump buried dd taken) or 'seed passed', "
            f"got {len(parts)}"
        )
    seed, bidder, bid = (int(part) for part in parts[:3])
    try:
        trump = Suit[parts[3].upper()]
    except KeyError:
        raise ValueError(f"trump must be black, red, yellow or green, got {parts[3]!r}") from None
    low, _, high = parts[5].partition("..")
    result = DealResult(
        seed, bidder, bid, trump, int(parts[4], 16), int(low), int(high or low), int(parts[6])
    )
    if not 0 <= bidder < BENCHMARK_RULESET.players:
        raise ValueError(f"bidder must be a seat, got {bidder}")
    total = BENCHMARK_RULESET.deck_points + BENCHMARK_RULESET.last_trick_bonus
    for name, value in (("dd", result.dd_low), ("dd", result.dd_high), ("taken", result.taken)):
        if not 0 <= value <= total:
            raise ValueError(f"{name} must be 0 to {total}, got {value}")
    if result.dd_low > result.dd_high:
        raise ValueError(f"dd's bounds must be low..high, got {parts[5]}")
    if result.buried.bit_count() != BENCHMARK_RULESET.nest_size:
        raise ValueError(f"buried must be {BENCHMARK_RULESET.nest_size} cards, got {parts[4]}")
    return result


def read_results(path: Path, deals: DealSet | None = None) -> tuple[DealResult, ...]:
    """Read a results file; with ``deals``, check that it holds one result per deal, in order.

    ``DealSetError`` names the line of a malformed result.
    """
    results: list[DealResult] = []
    for number, line in deal_file_lines(path):
        try:
            results.append(_parse(line))
        except ValueError as error:
            raise DealSetError(f"{path}:{number}: {error}") from error
    if deals is not None:
        seeds = tuple(result.seed for result in results)
        if seeds != deals.seeds:
            raise DealSetError(
                f"{path}: its {len(seeds)} results are not the deal set's {len(deals)} seeds "
                "in order"
            )
    return tuple(results)


def results_node_limit(path: Path) -> int:
    """The node limit a results file's deals were solved with (its header says it; a pars
    file's too, ``rookery.client.deal_pars``)."""
    found = re.search(r"^#.*node limit \(([\d,]+)\)", deal_file_text(path), re.MULTILINE)
    if found is None:
        raise DealSetError(f"{path}: its header does not say the node limit")
    return int(found[1].replace(",", ""))


def results_digest(path: Path) -> str:
    """The SHA-256 of a results file (or a pars file): what the checksum test pins."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def summary(results: Sequence[DealResult]) -> str:
    """A line for people: how many deals were solved, how many contracts were makeable, and
    how many the heuristic made."""
    contracts = [result for result in results if result.contract]
    solved = sum(result.solved for result in contracts)
    makeable = sum(result.makeable is True for result in contracts)
    unknown = sum(result.makeable is None for result in contracts)
    made = sum(result.made for result in contracts)
    passed = len(results) - len(contracts)
    passed_text = f" ({passed} passed out)" if passed else ""
    return (
        f"{len(results)} deals{passed_text}, {solved} solved (the others bounded): {makeable} "
        f"contracts makeable, {len(contracts) - makeable - unknown} not, {unknown} not told; "
        f"{made} made by the heuristic"
    )
