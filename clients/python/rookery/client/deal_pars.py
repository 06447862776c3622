"""The deal sets' pars: every seat and trump's double-dummy total on each shipped deal.

Beside each deal set, its ``-par.txt`` file holds, for each deal, the sixteen contracts of
``rookery.client.par.deal_contracts``: every seat as the bidder with every trump, burying what
the heuristic buries with that trump, the bidding side's total under perfect play from the
first card (buried cards included). A line is the seed, then seat 0's totals with black, red,
yellow and green trump, then seat 1's, seat 2's and seat 3's: each a value, or ``low..high``
when the node limit the header names stopped its search, or when the contract cannot beat its
seat's best and was only bounded under it (``deal_contracts``). The buries are not written:
they are the heuristic's, worked out again from the deal when the file is read.

A hand's par needs these and its own contract, so with the file a benchmark game's auction
and bury regret cost one whole hand solved, not seventeen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

from rookery.engine import Deal, Suit
from rookery.wire.analysis import DEFAULT_NODE_LIMIT as ANALYSIS_NODE_LIMIT

from .benchmark import BENCHMARK_RULESET, DealSet, DealSetError, deal_file_lines
from .bots.heuristic import best_bury
from .par import ContractWorth, Span, deal_contracts

__all__ = [
    "DEFAULT_NODE_LIMIT",
    "DealPar",
    "pars_path",
    "parse_par",
    "read_pars",
    "solve_deal_par",
    "write_pars",
]

#: The most nodes a contract's search may take (as ``rookery replay analyze``'s limit).
DEFAULT_NODE_LIMIT = ANALYSIS_NODE_LIMIT

_CONTRACTS = BENCHMARK_RULESET.players * len(Suit)

_HEADER = (
    "# Rookery benchmark deals ({rules}): every seat and trump's double-dummy total, the\n"
    "# heuristic's bury; seed, then seats 0 to 3, each with black, red, yellow and green trump\n"
    "# (a value, or low..high: the node limit ({limit:,}) stopped the search, or the contract\n"
    "# cannot beat its seat's best and was only bounded under it)\n"
)


@dataclasses.dataclass(frozen=True, slots=True)
class DealPar:
    """One deal's sixteen contracts (seat by seat, each in the order of the suits)."""

    seed: int
    contracts: tuple[ContractWorth, ...]

    def line(self) -> str:
        """The deal as a line of a pars file (no newline)."""
        return " ".join([str(self.seed), *(str(contract.total) for contract in self.contracts)])


def solve_deal_par(seed: int, deal: Deal, *, node_limit: int = DEFAULT_NODE_LIMIT) -> DealPar:
    """The sixteen contracts of the deal of ``seed``, solved within ``node_limit`` nodes each
    (0: none). ``RuntimeError`` without the native core."""
    return DealPar(seed, deal_contracts(BENCHMARK_RULESET, deal, node_limit=node_limit))


def pars_path(deal_set: Path) -> Path:
    """Where the pars of a deal set's file are kept: beside it, ``-par.txt`` for ``.txt``."""
    name = deal_set.name.removesuffix(".gz").removesuffix(".txt")
    return deal_set.with_name(f"{name}-par.txt")


def write_pars(path: Path, pars: Iterable[DealPar], *, node_limit: int) -> None:
    """Write pars, one deal a line, in the order given (``node_limit``: the solves')."""
    lines = [_HEADER.format(rules=BENCHMARK_RULESET.name, limit=node_limit)]
    lines.extend(f"{par.line()}\n" for par in pars)
    path.write_text("".join(lines), encoding="utf-8")


def parse_par(line: str, deal: Deal) -> DealPar:
    """A line of a pars file, the deal's line (``ValueError`` saying what is wrong)."""
    rules = BENCHMARK_RULESET
    total = rules.deck_points + rules.last_trick_bonus
    parts = line.split()
    if len(parts) != 1 + _CONTRACTS:
        raise ValueError(f"expected a seed and {_CONTRACTS} totals, got {len(parts)} fields")
    contracts = []
    for position, text in enumerate(parts[1:]):
        low, _, high = text.partition("..")
        span = Span(int(low), int(high or low))
        if not 0 <= span.low <= span.high <= total:
            raise ValueError(f"a total must be 0 to {total}, or low..high, got {text}")
        seat, trump = divmod(position, len(Suit))
        buried = best_bury(deal.hands[seat] | deal.nest, trump, rules.nest_size)
        contracts.append(ContractWorth(seat, Suit(trump), buried, span))
    return DealPar(int(parts[0]), tuple(contracts))


def read_pars(path: Path, deals: DealSet) -> tuple[DealPar, ...]:
    """Read a pars file of ``deals``: one line per deal, in the set's order. ``DealSetError``
    names the line of a malformed one. (Its digest and node limit: ``results_digest`` and
    ``results_node_limit`` of ``rookery.client.deal_results``.)"""
    pars: list[DealPar] = []
    for index, (number, line) in enumerate(deal_file_lines(path)):
        try:
            seed = int(line.split()[0])
            if index >= len(deals) or deals.seeds[index] != seed:
                raise ValueError(f"seed {seed} is not the deal set's deal {index}")
            pars.append(parse_par(line, deals.deals[index]))
        except ValueError as error:
            raise DealSetError(f"{path}:{number}: {error}") from error
    if len(pars) != len(deals):
        raise DealSetError(f"{path}: {len(pars)} deals, not the deal set's {len(deals)}")
    return tuple(pars)
