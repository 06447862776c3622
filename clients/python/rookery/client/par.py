"""The par of a hand: what the sides score when every seat bids perfectly, every card known.

A hand's *contracts* are every seat as the bidder with every trump. The seat takes the nest,
buries what the reference heuristic buries with that trump (``best_bury``), and the hand is
solved double-dummy from the first lead (``DoubleDummy``): the bidding side's total, buried
points included. A seat's *worth* is its best contract's total; the hand's own bidder also
has the trump and bury it chose, so its worth is never below what it played. A contract that
cannot beat its seat's best is only bounded under it (:func:`deal_contracts`).

With every worth known, the auction is a game of perfect information. Each seat, in the
ruleset's order, bids or passes to raise its side's *net* score of the hand: its score minus
the other side's (a bid made scores the bidding side's total, a set scores minus the bid, the
defenders score what they took; a hand every seat passed scores 0). The *par* is that game's
value, and its line the contract it reaches (:func:`auction_par`).

Against par, a hand's bidding side has two regrets, in the units of what each phase decides:

- the *auction's*, in net points: its net at par minus its net at the contract the auction
  reached (that bid, with the bidder's worth). Negative when the auction gained it points
  (the other side bid worse).
- the *nest and bury's*, in points of its total: the bidder's worth minus the total of the
  trump and bury it chose.

Both assume perfect play from the first card; the play's own regret is the cards' costs
(``rookery.wire.analysis``). The bury of a contract the hand did not play is the heuristic's,
not the best of every bury (18 cards choose 5 in 8,568 ways), so the par is the par of the
auctions whose bidders bury as the heuristic does, or better.

A search the node limit stops leaves bounds, so every figure is a :class:`Span`. Each figure
moves one way with each worth (a side's net rises with its seats' worths and falls with the
other side's), so the par's bounds are the game's values with every worth at its bound.

Two fixed sides only (``standard``, ``traditional`` and the other four-seat presets of fixed
partnerships): with a called partner or scores per player, the auction is not a game of two
sides.

>>> from rookery.engine import Ruleset
>>> line = auction_par(Ruleset.preset("standard"), dealer=3, worths=(95, 60, 85, 50), total=120)
>>> (line.declarer, line.bid, line.net)
(0, 70, 70)
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Sequence

from rookery.engine import (
    AllPass,
    Deal,
    DoubleDummy,
    FirstLead,
    HandResult,
    Partnership,
    Ruleset,
    Suit,
    mask_points,
)
from rookery.v1 import replay_pb2
from rookery.wire.analysis import analyze_replay
from rookery.wire.documents import JsonValue

from .bots.heuristic import best_bury, best_trump

__all__ = [
    "AuctionLine",
    "ContractWorth",
    "HandPar",
    "ParError",
    "PhaseRegret",
    "Span",
    "auction_par",
    "deal_contracts",
    "deal_par_net",
    "format_par",
    "hand_par",
    "par_to_json",
    "phase_regret_by_bot",
    "supports_par",
]


class ParError(ValueError):
    """A hand whose par cannot be worked out (its ruleset, or a hand with no contract)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Span:
    """A value known exactly (``low == high``) or within bounds."""

    low: int
    high: int

    @property
    def known(self) -> bool:
        """Whether the value is known exactly."""
        return self.low == self.high

    def __str__(self) -> str:
        return str(self.low) if self.known else f"{self.low}..{self.high}"

    def signed(self) -> str:
        """The value with its sign (``+5``, ``-10..+5``)."""
        return f"{self.low:+d}" if self.known else f"{self.low:+d}..{self.high:+d}"


@dataclasses.dataclass(frozen=True, slots=True)
class ContractWorth:
    """A seat as the bidder with a trump and a bury: the bidding side's double-dummy total."""

    seat: int
    trump: Suit
    buried: int
    total: Span


@dataclasses.dataclass(frozen=True, slots=True)
class AuctionLine:
    """The perfect auction's outcome: ``net`` is the side of seat 0's net score of the hand;
    ``declarer`` is -1 (and ``bid`` 0) when every seat passes and the hand is redealt."""

    net: int
    declarer: int
    bid: int


@dataclasses.dataclass(frozen=True, slots=True)
class HandPar:
    """A hand's par and its bidding side's regrets against it (see the module's doc).

    ``contracts`` holds every seat and trump with the heuristic's bury (seat by seat, each in
    the order of the suits), ``played`` the hand's
    own contract (its bidder, trump and bury); ``worths`` each seat's best total; ``line`` the
    par contract when the bounds fix it (the auctions with every worth at one end of its
    bounds, and at the other, reach the same contract and net; ``None`` otherwise). Nets and
    regrets are the hand's bidding side's."""

    contracts: tuple[ContractWorth, ...]
    played: ContractWorth
    worths: tuple[Span, ...]
    line: AuctionLine | None
    par_net: Span
    contract_net: Span
    auction_regret: Span
    bury_regret: Span


@dataclasses.dataclass(frozen=True, slots=True)
class PhaseRegret:
    """One bot's regret against par over some hands: ``auction``, its side's auction regret
    summed over the ``hands`` it sat in (net points); ``bury``, its nest and bury regret summed
    over the ``bids`` hands it won the auction (points). Sums of each hand's spans."""

    bot: str
    hands: int = 0
    auction: Span = Span(0, 0)
    bids: int = 0
    bury: Span = Span(0, 0)

    def to_json(self) -> dict[str, JsonValue]:
        """The sums as JSON-able values (spans as ``[low, high]``), and their means."""
        return {
            "hands": self.hands,
            "auction": [self.auction.low, self.auction.high],
            "auction_per_hand": _mean(self.auction, self.hands),
            "bids": self.bids,
            "bury": [self.bury.low, self.bury.high],
            "bury_per_bid": _mean(self.bury, self.bids),
        }


def supports_par(rules: Ruleset) -> bool:
    """Whether ``rules`` has two fixed sides, so that its auctions have a par."""
    return rules.partnership is Partnership.FIXED and rules.num_sides == 2


def deal_contracts(rules: Ruleset, deal: Deal, *, node_limit: int) -> tuple[ContractWorth, ...]:
    """Every seat of ``deal`` as the bidder with every trump, burying what the heuristic buries
    with that trump, solved within ``node_limit`` nodes a contract (0: no limit): seat 0's
    black, red, yellow and green contracts, then seat 1's, and so on.

    Only a seat's best contract counts for the par, so each seat's trump the heuristic would
    name is solved first, and each other trump only as far as it could beat the best found
    before it: a contract that cannot is left as bounds at or under that best (one
    null-window search, often). ``ParError`` for a ruleset without two fixed sides;
    ``RuntimeError`` without the native core."""
    if not supports_par(rules):
        raise ParError(f"{rules.name} has no two fixed sides: its auctions have no par")
    contracts: list[ContractWorth] = []
    for side in range(rules.num_sides):
        # One table a trump serves both seats of the side.
        solvers = {trump: _solver(rules, trump, side, node_limit) for trump in Suit}
        for seat in rules.seats_of_side(side):
            taken = deal.hands[seat] | deal.nest
            named, _ = best_trump(taken, rules)
            best: int | None = None
            for trump in sorted(Suit, key=lambda suit: suit != named):
                buried = best_bury(taken, int(trump), rules.nest_size) if rules.nest_size else 0
                contract = _solve(rules, deal, solvers[trump], seat, trump, buried, above=best)
                best = contract.total.low if best is None else max(best, contract.total.low)
                contracts.append(contract)
    return tuple(sorted(contracts, key=lambda contract: (contract.seat, contract.trump)))


def hand_par(
    rules: Ruleset,
    result: HandResult,
    *,
    node_limit: int,
    contracts: Sequence[ContractWorth] | None = None,
) -> HandPar:
    """The par of the finished hand ``result`` of a game of ``rules``: every seat and trump's
    contract solved within ``node_limit`` nodes a contract (0: no limit), unless ``contracts``
    gives them (:func:`deal_contracts` of the hand's deal, solved before).

    Raises :class:`ParError` for a ruleset without two fixed sides or a hand with no contract,
    and ``RuntimeError`` without the native core."""
    if not supports_par(rules):
        raise ParError(f"{rules.name} has no two fixed sides: its auctions have no par")
    if result.redeal or result.trump is None or result.bidder < 0:
        raise ParError(f"hand {result.hand_number} had no contract")
    total = _hand_total(rules, result.deal)
    if contracts is None:
        contracts = deal_contracts(rules, result.deal, node_limit=node_limit)
    trump = result.trump
    same = [
        contract
        for contract in contracts
        if (contract.seat, contract.trump, contract.buried) == (result.bidder, trump, result.buried)
        and contract.total.known
    ]
    if same:  # the bidder buried as the heuristic would have, and that contract is solved
        played = same[0]
    else:
        solver = _solver(rules, trump, rules.side_of(result.bidder), node_limit)
        played = _solve(rules, result.deal, solver, result.bidder, trump, result.buried)
    worths = tuple(
        _most(
            [contract.total for contract in contracts if contract.seat == seat]
            + ([played.total] if seat == result.bidder else [])
        )
        for seat in range(rules.players)
    )
    sign = 1 if rules.side_of(result.bidder) == 0 else -1
    lowest, highest = _auction_ends(rules, result.dealer, worths, total)
    if sign < 0:
        lowest, highest = highest, lowest
    par_net = Span(sign * lowest.net, sign * highest.net)
    bidder_worth = worths[result.bidder]
    contract_net = Span(
        _net(bidder_worth.low, result.bid, total), _net(bidder_worth.high, result.bid, total)
    )
    # The bounds fix the par's contract when the auctions at their two ends reach the same.
    same_line = (lowest.declarer, lowest.bid) == (highest.declarer, highest.bid)
    return HandPar(
        contracts=tuple(contracts),
        played=played,
        worths=worths,
        line=lowest if same_line and par_net.known else None,
        par_net=par_net,
        contract_net=contract_net,
        auction_regret=Span(par_net.low - contract_net.high, par_net.high - contract_net.low),
        bury_regret=Span(
            max(0, bidder_worth.low - played.total.high),
            max(0, bidder_worth.high - played.total.low),
        ),
    )


def deal_par_net(
    rules: Ruleset, deal: Deal, dealer: int, contracts: Sequence[ContractWorth]
) -> Span:
    """The par of ``deal`` for the side of seat 0 (its net score of the hand), from its
    :func:`deal_contracts` alone: what a hand every seat passed, or no hand yet, is held to."""
    total = _hand_total(rules, deal)
    worths = tuple(
        _most([contract.total for contract in contracts if contract.seat == seat])
        for seat in range(rules.players)
    )
    lowest, highest = _auction_ends(rules, dealer, worths, total)
    return Span(lowest.net, highest.net)


def phase_regret_by_bot(
    replays: Iterable[replay_pb2.Replay], *, node_limit: int
) -> dict[str, PhaseRegret]:
    """Per bot (the header's seat names), its auction's and its nest and bury's regret against
    the par of every finished hand of ``replays`` whose ruleset has two fixed sides (the others
    are passed over). A bot at both sides' seats gets both sides' auction regrets. A replay
    that does not re-simulate raises ``AnalysisError``."""
    totals: dict[str, PhaseRegret] = {}
    for replay in replays:
        names = [seat.bot_name for seat in replay.header.seats]
        analysis = analyze_replay(replay, last_tricks=0)
        rules = analysis.ruleset
        if not supports_par(rules) or len(names) != rules.players:
            continue
        for hand in analysis.hands:
            if hand.skipped:
                continue
            result = analysis.results[hand.hand_number]
            par = hand_par(rules, result, node_limit=node_limit)
            bidding = rules.side_of(result.bidder)
            regret = par.auction_regret
            for name in sorted(set(names)):
                sides = {rules.side_of(seat) for seat, seated in enumerate(names) if seated == name}
                if len(sides) > 1:  # both sides' regrets: they cancel
                    auction = Span(0, 0)
                elif bidding in sides:
                    auction = regret
                else:
                    auction = Span(-regret.high, -regret.low)
                entry = totals.get(name, PhaseRegret(name))
                entry = dataclasses.replace(
                    entry,
                    hands=entry.hands + 1,
                    auction=Span(
                        entry.auction.low + auction.low, entry.auction.high + auction.high
                    ),
                )
                if names[result.bidder] == name:
                    entry = dataclasses.replace(
                        entry,
                        bids=entry.bids + 1,
                        bury=Span(
                            entry.bury.low + par.bury_regret.low,
                            entry.bury.high + par.bury_regret.high,
                        ),
                    )
                totals[name] = entry
    return dict(sorted(totals.items()))


def auction_par(rules: Ruleset, dealer: int, worths: Sequence[int], total: int) -> AuctionLine:
    """The auction of perfect information: the seat left of ``dealer`` acts first, every seat
    bids or passes as ``rules`` allow to raise its side's net score, a seat that wins the
    auction takes ``worths[seat]`` points of the hand's ``total``. Of equal choices a seat
    passes, or bids the least. The line's bid is then, as bridge's par contract, the least bid
    above the most the other side can make, as far as the declarer makes it: the other side
    would bid up to that rather than pass (an equal net), so the declarer must go past it."""
    players = rules.players
    sides = rules.sides

    def contract(declarer: int, bid: int) -> AuctionLine:
        net = _net(worths[declarer], bid, total)
        return AuctionLine(net if sides[declarer] == 0 else -net, declarer, bid)

    def after(high: int, bidder: int, passed: int, seat: int) -> AuctionLine:
        remaining = players - passed.bit_count()
        if remaining == 1 and bidder >= 0:
            return contract(bidder, high)
        if remaining == 0:
            if rules.all_pass is AllPass.DEALER_FORCED:
                return contract(dealer, rules.min_bid)
            return AuctionLine(0, -1, 0)
        following = (seat + 1) % players
        while passed >> following & 1:
            following = (following + 1) % players
        return turn(high, bidder, passed, following)

    @functools.cache
    def turn(high: int, bidder: int, passed: int, seat: int) -> AuctionLine:
        sign = 1 if sides[seat] == 0 else -1
        choices = [after(high, bidder, passed | 1 << seat, seat)]
        choices += [after(amount, seat, passed, seat) for amount in rules.bids_above(high)]
        return max(choices, key=lambda line: sign * line.net)

    line = turn(0, -1, 0, (dealer + 1) % players)
    if line.declarer < 0:
        return line
    step = rules.bid_step
    other = max(worth for seat, worth in enumerate(worths) if sides[seat] != sides[line.declarer])
    makes = worths[line.declarer] - worths[line.declarer] % step
    if other >= rules.min_bid:
        over = other - other % step + step
        return dataclasses.replace(line, bid=max(line.bid, min(makes, over)))
    return line


def _solver(rules: Ruleset, trump: Suit, side: int, node_limit: int) -> DoubleDummy:
    """A solver for one trump and the seats of one side (its table serves both seats)."""
    return DoubleDummy(
        rules.players,
        int(trump),
        sum(1 << seat for seat in rules.seats_of_side(side)),
        rook_free_play=rules.rook_free_play,
        last_trick_bonus=rules.last_trick_bonus,
        node_limit=node_limit,
    )


def _solve(
    rules: Ruleset,
    deal: Deal,
    solver: DoubleDummy,
    seat: int,
    trump: Suit,
    buried: int,
    *,
    above: int | None = None,
) -> ContractWorth:
    """The contract's total; with ``above``, only as far as it could exceed that total."""
    hands = list(deal.hands)
    hands[seat] = (hands[seat] | deal.nest) & ~buried
    leader = seat if rules.first_lead is FirstLead.BIDDER else (seat + 1) % rules.players
    points = mask_points(buried)
    only_above = None if above is None else above - points
    low, high = solver.bounds(hands, leader, only_above=only_above)
    return ContractWorth(seat, trump, buried, Span(points + low, points + high))


def _auction_ends(
    rules: Ruleset, dealer: int, worths: Sequence[Span], total: int
) -> tuple[AuctionLine, AuctionLine]:
    """The auctions at the two ends of the worths' bounds: the side of seat 0's par is least
    with its seats' worths at their lows and the other side's at their highs, and most the
    other way round."""
    lowest = auction_par(rules, dealer, _ends(rules, worths, low_side=0), total)
    highest = auction_par(rules, dealer, _ends(rules, worths, low_side=1), total)
    return lowest, highest


def _hand_total(rules: Ruleset, deal: Deal) -> int:
    """The points the two sides share in a hand of ``deal``: the deck's but the dead cards',
    and the last trick's bonus."""
    return rules.deck_points - mask_points(deal.dead) + rules.last_trick_bonus


def _most(spans: Sequence[Span]) -> Span:
    return Span(max(span.low for span in spans), max(span.high for span in spans))


def _ends(rules: Ruleset, worths: Sequence[Span], *, low_side: int) -> tuple[int, ...]:
    return tuple(
        worth.low if rules.side_of(seat) == low_side else worth.high
        for seat, worth in enumerate(worths)
    )


def _mean(span: Span, count: int) -> list[JsonValue]:
    return [span.low / count, span.high / count] if count else [0.0, 0.0]


def _net(worth: int, bid: int, total: int) -> int:
    """The bidding side's net score of a hand: its score minus the defenders'."""
    return (worth if worth >= bid else -bid) - (total - worth)


def format_par(par: HandPar, rules: Ruleset) -> list[str]:
    """The par as lines of ``rookery replay analyze --par``'s text (indented as its hands'):
    the par contract, each seat's best contract, and the bidding side's two regrets."""
    if par.line is None:
        reached = (
            f"its contract is not fixed by the bounds; the bidding side nets "
            f"{par.par_net.signed()} there"
        )
    elif par.line.declarer < 0:
        reached = "every seat passes (the hand is redealt, net 0)"
    else:
        worth = par.worths[par.line.declarer]
        outcome = "makes" if worth.low >= par.line.bid else "goes set with"
        reached = (
            f"seat {par.line.declarer} bids {par.line.bid} and {outcome} {worth}; "
            f"the bidding side nets {par.par_net.signed()} there"
        )
    best = ", ".join(
        f"seat {seat} {worth} ({_best_trump(par, seat)})" for seat, worth in enumerate(par.worths)
    )
    return [
        f"  par: {reached}, {par.contract_net.signed()} in this contract",
        f"  best contracts (the heuristic's bury): {best}",
        f"  regret against par: the auction {par.auction_regret} net points (below 0: a gain), "
        f"the nest and bury {par.bury_regret} points",
    ]


def par_to_json(par: HandPar) -> dict[str, JsonValue]:
    """The par as JSON-able values (spans as ``[low, high]``; see :class:`HandPar`)."""

    def span(value: Span) -> list[JsonValue]:
        return [value.low, value.high]

    def contract(worth: ContractWorth) -> dict[str, JsonValue]:
        return {
            "seat": worth.seat,
            "trump": worth.trump.name.lower(),
            "buried": f"{worth.buried:x}",
            "total": span(worth.total),
        }

    line = par.line
    return {
        "line": None
        if line is None
        else {"declarer": line.declarer, "bid": line.bid, "net_side_0": line.net},
        "worths": [span(worth) for worth in par.worths],
        "contracts": [contract(worth) for worth in par.contracts],
        "played": contract(par.played),
        "par_net": span(par.par_net),
        "contract_net": span(par.contract_net),
        "auction_regret": span(par.auction_regret),
        "bury_regret": span(par.bury_regret),
    }


def _best_trump(par: HandPar, seat: int) -> str:
    worth = par.worths[seat]
    if seat == par.played.seat and par.played.total.low >= worth.low:
        return f"{par.played.trump.name.lower()}, its own bury"
    best = max(
        (contract for contract in par.contracts if contract.seat == seat),
        key=lambda contract: (contract.total.low, contract.total.high),
    )
    return best.trump.name.lower()
