"""Determinization: every seat's current cards, sampled consistently with one observation.

A thin adapter over the engine's ``sample_deal`` (own hand, cards seen played, voids shown,
nest and bury for the bidder, the called card's constraints), turning its "as dealt" deal into
what the search needs: each seat's cards now, and the nest (or the bury) and the dead pile.
``Inference`` biases those samples by what the auction said: bids imply strength, passes
weakness, the bidder's trump its longest strong suit.
"""

from __future__ import annotations

import math
import random
from typing import NamedTuple

from rookery.engine import Deal, Observation, Ruleset, sample_deal

from ._play import known_friends
from ._simulate import HandSimulation, called_partner, core_playouts
from .heuristic import HeuristicParameters, bid_model, bid_value, estimate_points, normal_cdf

__all__ = ["Inference", "PlayReader", "Sample", "bid_need", "play_likelihood", "sample_hands"]


class Sample(NamedTuple):
    """Every seat's current cards; the nest (after the bury: the buried cards); the dead pile."""

    hands: list[int]
    nest: int
    dead: int


def sample_hands(obs: Observation, rng: random.Random) -> Sample:
    """One sample of every seat's current cards and of the cards out of every hand."""
    return _current(obs, sample_deal(obs, rng))


def _current(obs: Observation, deal: Deal) -> Sample:
    """Every seat's cards now, from a deal "as dealt"."""
    played = 0
    for trick in obs.completed_tricks:
        for _, card in trick.cards:
            played |= 1 << card
    for _, card in obs.current_trick.cards:
        played |= 1 << card
    hands = [hand & ~played for hand in deal.hands]
    hands[obs.seat] = obs.hand
    return Sample(hands, deal.nest, deal.dead)


class _Constraint(NamedTuple):
    """What one seat's auction (and trump choice) says of its hand as the heuristic reads it."""

    seat: int
    at_least: float  # its estimate reached this (it bid); -inf: no bid
    below: float  # its estimate fell short of this (it passed); +inf: no telling pass
    trump: int  # the trump it named as the bidder; -1: none
    spread: float


_NEEDS: dict[tuple[str, int, int, int, int], float] = {}


def bid_need(rules: Ruleset, amount: int) -> float:
    """The least estimated hand total at which the heuristic bids ``amount`` (pass value 0)."""
    key = (rules.name, rules.deck_points, rules.players, rules.num_sides, amount)
    cached = _NEEDS.get(key)
    if cached is not None:
        return cached
    _, spread = bid_model(rules)
    low, high = -2.0 * rules.deck_points, 3.0 * rules.deck_points
    for _ in range(60):
        middle = (low + high) / 2
        if bid_value(middle, spread, amount, rules) >= 0.0:
            high = middle
        else:
            low = middle
    _NEEDS[key] = high
    return high


class Inference:
    """Weights sampled deals by what the other seats' bids, passes and trump choice imply.

    A seat that bid ``b`` is taken to hold a hand the heuristic's model values at least at what
    bidding ``b`` needs; a seat that passed, below what the lowest bid open to it needed (or,
    passing under its partner's high bid, what overbidding the partner needs); the bidder, a
    hand whose best suit is the trump it named. Each condition is soft — a normal distribution
    around the threshold, ``spread`` times the model's residual spread wide — so a bot that
    bids otherwise only blunts it.
    The deals are drawn by rejection: a deal is kept with probability its weight (at most
    ``tries`` draws; after that the heaviest drawn is kept).
    """

    def __init__(self, obs: Observation, *, spread: float = 0.5, tries: int = 8) -> None:
        rules = obs.ruleset
        self.tries = max(tries, 1)
        self.rules = rules
        _, model_spread = bid_model(rules)
        sides = obs.sides
        partners = not rules.is_per_player
        high, high_seat = 0, -1
        at_least: dict[int, float] = {}
        below: dict[int, float] = {}
        for seat, amount in obs.auction:
            if amount:
                at_least[seat] = bid_need(rules, amount)
                high, high_seat = amount, seat
                continue
            lowest = rules.min_bid if high == 0 else high + rules.bid_step
            if partners and high_seat >= 0 and sides[high_seat] == sides[seat]:
                lowest = high + HeuristicParameters.overbid_partner
            if lowest <= rules.effective_max_bid:
                below[seat] = bid_need(rules, lowest)
        constraints = []
        for seat in range(rules.players):
            if seat == obs.seat:
                continue
            trump = int(obs.trump) if seat == obs.bidder and obs.trump is not None else -1
            low = at_least.get(seat, -math.inf)
            up = below.get(seat, math.inf)
            if low == -math.inf and up == math.inf and trump < 0:
                continue
            # The bidder's hand is seen after the nest and the bury: a looser reading.
            width = spread * model_spread * (2.0 if seat == obs.bidder else 1.0)
            constraints.append(_Constraint(seat, low, up, trump, width))
        self.constraints = constraints

    def weight(self, hands: list[int], *, floor: float = 0.0) -> float:
        """The likelihood, up to a constant, of the auction given every seat's dealt cards
        (once it falls below ``floor``, the product so far: an upper bound)."""
        rules = self.rules
        weight = 1.0
        for seat, low, up, trump, width in self.constraints:
            values = [estimate_points(hands[seat], suit, rules) for suit in range(4)]
            best = max(values)
            if low != -math.inf:
                weight *= normal_cdf((best - low) / width)
            if up != math.inf:
                weight *= normal_cdf((up - best) / width)
            if trump >= 0:
                weight *= math.exp((values[trump] - best) / width)
            if weight < floor:
                return weight
        return weight

    def sample(self, obs: Observation, rng: random.Random) -> Sample:
        """One sample of every seat's current cards, drawn in proportion to ``weight``."""
        if not self.constraints:
            return sample_hands(obs, rng)
        best_deal, best_weight = None, -1.0
        for _ in range(self.tries):
            deal = sample_deal(obs, rng)
            threshold = rng.random()
            weight = self.weight(list(deal.hands), floor=threshold)
            if weight >= threshold:
                return _current(obs, deal)
            if weight > best_weight:
                best_deal, best_weight = deal, weight
        assert best_deal is not None
        return _current(obs, best_deal)


def play_likelihood(obs: Observation, hands: list[int], miss: float) -> float:
    """How well a sample explains the opponents' cards played so far, read as heuristic play.

    The hand is replayed from its first lead with ``hands`` (every seat's cards now) plus the
    cards each seat has played: at every card an opponent played where it had a choice, the
    heuristic (``_play.choose_play``, on what that seat could know then) is asked what it would
    have played; each card it would not have chosen multiplies the likelihood by ``miss``
    (between 0 and 1; 1 reads nothing). Partners are not read: the observer's side may be
    another bot entirely.
    """
    tricks = [trick.cards for trick in obs.completed_tricks]
    if obs.current_trick.cards:
        tricks.append(obs.current_trick.cards)
    if not tricks or miss >= 1.0 or obs.trump is None:
        return 1.0
    rules = obs.ruleset
    start = list(hands)
    for cards in tricks:
        for seat, card in cards:
            start[seat] |= 1 << card
    sim = HandSimulation(
        rules,
        start,
        trump=int(obs.trump),
        bidder=obs.bidder,
        bid=obs.bid,
        leader=tricks[0][0][0],
        buried_points=0,
        called=obs.called_card,
        partner=called_partner(obs, start),
    )
    friends = known_friends(obs)
    likelihood = 1.0
    for cards in tricks:
        for seat, card in cards:
            if not friends >> seat & 1:
                legal = sim.legal()
                if legal & (legal - 1) and sim.heuristic_card() != card:
                    likelihood *= miss
            sim.play(card)
    return likelihood


class PlayReader:
    """Draws samples for a card to play on the native core: the likeliest of ``tries`` deals
    given the opponents' play so far (``play_likelihood``, read by the core's heuristic), the
    first of them that explains every card, all in one call (``HeuristicPlayouts.likeliest``).
    The same law as drawing and reading one at a time.
    """

    def __init__(self, obs: Observation, tries: int, miss: float) -> None:
        self.obs = obs
        self.tries = max(tries, 1)
        self.miss = miss
        self.playouts = core_playouts(obs)
        self.friends = known_friends(obs)

    def __call__(self, rng: random.Random) -> Sample:
        hands, nest, dead = self.playouts.likeliest(
            self.obs, rng, self.tries, self.friends, self.miss
        )
        return Sample(hands, nest, dead)
