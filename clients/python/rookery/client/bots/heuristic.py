"""The heuristic bot: the rule sources' strategy advice made concrete.

Bidding counts the point cards and the trump length of the best trump suit (with the nest's
expected worth); the bidder names the longest strong suit, buries exposed point cards and
short-suit losers rather than trumps and 14s, and calls the highest trump it lacks; the play
draws trumps when long, wins tricks cheaply, feeds points to a partner who holds the trick and
discards losers (see ``_play.choose_play``).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from itertools import combinations

from rookery.engine import (
    CARD_POINTS,
    PASS,
    PLAY,
    ROOK_MASK,
    SUIT_MASKS,
    TRUMP,
    Action,
    Bury,
    CallCard,
    LegalActions,
    Observation,
    Phase,
    Ruleset,
    Suit,
    bid_action,
    mask_points,
)

from ._bot import PolicyBot
from ._play import KEYS, TRUMP_MASKS, choose_play, known_friends, play_view_from_observation

__all__ = [
    "HeuristicBot",
    "HeuristicParameters",
    "HeuristicPolicy",
    "best_bury",
    "best_trump",
    "bid_model",
    "bid_value",
    "bury_candidates",
    "call_card",
    "estimate_points",
    "normal_cdf",
]

# Per preset: least-squares coefficients of the bidding side's hand total on the features of the
# bidder's hand before the nest (``_features``), and the residual standard deviation. Fitted on
# 1,000 deals per preset, every seat playing the heuristic, the bidder burying and calling with
# it: the hand evaluation behind ``estimate_points``.
_MODELS: dict[str, tuple[tuple[float, ...], float]] = {
    "standard": ((52.96, 0.37, 2.72, 5.94, 2.19, 3.04, 0.95), 18.1),
    "traditional": ((57.64, 0.37, 3.73, 10.58, 3.03, 0.87, 1.21), 20.1),
    "nest-4": ((48.41, 0.41, 2.65, 5.31, 1.92, 3.34, 1.00), 17.9),
    "nest-6": ((53.63, 0.37, 2.59, 5.94, 2.52, 3.01, 0.39), 17.9),
    "straight": ((34.54, 0.23, 2.23, 10.56, 2.49, 5.85, 3.63), 18.5),
    "double-bird": ((61.43, 0.41, 3.05, 6.32, 1.44, 2.38, 0.96), 21.0),
    "called-partner": ((73.86, 0.23, 3.04, -0.78, 1.87, 3.62, 0.52), 14.0),
    "cutthroat": ((28.21, 0.37, 4.07, 10.87, 2.70, 3.10, 2.02), 14.3),
    "five-handed": ((72.47, 0.24, 4.30, 0.57, 2.41, 3.15, 0.20), 16.5),
    "six-handed": ((30.94, 0.39, 4.78, 9.94, 4.71, 2.02, 2.08), 20.5),
}


@dataclass(frozen=True)
class HeuristicParameters:
    """The heuristic's knobs.

    ``pass_value``: the expected score difference of passing; a bid must be worth more;
    ``overbid_partner``: how far above a partner's high bid the estimate must reach before
    bidding over them; ``void_bonus``: worth of a side suit emptied by the bury, in points.
    """

    pass_value: float = 0.0
    overbid_partner: int = 20
    void_bonus: float = 7.0


def _features(hand: int, trump: int) -> tuple[float, ...]:
    trumps = hand & TRUMP_MASKS[trump]
    high_trumps = sum(1 for rank in (14, 13, 12) if hand >> (trump * 14 + rank - 1) & 1)
    side_aces = sum(1 for suit in range(4) if suit != trump and hand >> (suit * 14 + 13) & 1)
    short = sum(
        1 for suit in range(4) if suit != trump and (hand & SUIT_MASKS[suit]).bit_count() <= 1
    )
    return (
        1.0,
        float(mask_points(hand)),
        float(trumps.bit_count()),
        float(bool(hand & ROOK_MASK)),
        float(high_trumps),
        float(side_aces),
        float(short),
    )


def bid_model(rules: Ruleset) -> tuple[tuple[float, ...], float]:
    """The hand evaluation of ``rules``: its coefficients (on ``_features``) and residual spread."""
    model = _MODELS.get(rules.name)
    if model is not None:
        return model
    # A custom ruleset: the standard model, its constant scaled to the deck and the side's share.
    coefficients, spread = _MODELS["standard"]
    seats = 1 if rules.is_per_player else rules.players // rules.num_sides
    share = (rules.hand_size * seats + rules.nest_size) / max(rules.deck_size, 1)
    constant = coefficients[0] * rules.deck_points / 120 * share / ((13 * 2 + 5) / 57)
    return (constant, *coefficients[1:]), spread


def estimate_points(hand: int, trump: int, rules: Ruleset) -> float:
    """The expected hand total of the bidding side if ``hand`` (before the nest) bids ``trump``.

    A linear model of counted points, trump length, the Rook, top trumps, side 14s and short
    suits, fitted per preset (the nest's expected worth is in the constant).
    """
    coefficients, _ = bid_model(rules)
    return sum(c * f for c, f in zip(coefficients, _features(hand, trump), strict=True))


def normal_cdf(z: float) -> float:
    """The standard normal distribution function at ``z``."""
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def bid_value(mean: float, spread: float, bid: int, rules: Ruleset) -> float:
    """The expected score difference of bidding ``bid`` with a hand total ~ N(mean, spread).

    Made: the total; set: minus the bid; less what the other sides can expect to capture.
    """
    z = (bid - mean) / spread
    p_set = normal_cdf(z)
    density = math.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    made_part = mean * (1 - p_set) + spread * density
    others = rules.players - 1 if rules.is_per_player else rules.num_sides - 1
    return made_part - bid * p_set - (rules.deck_points - mean) / max(others, 1)


def best_trump(hand: int, rules: Ruleset) -> tuple[int, float]:
    """The suit with the highest estimate for ``hand`` (after the bury when there is a nest)."""
    best, best_value = 0, float("-inf")
    for trump in range(4):
        if rules.nest_size and hand.bit_count() > rules.hand_size:
            bury = best_bury(hand, trump, rules.nest_size)
            value = estimate_points(hand & ~bury, trump, rules) + mask_points(bury) * 0.5
        else:
            value = estimate_points(hand, trump, rules)
        if value > best_value:
            best, best_value = trump, value
    return best, best_value


def _bury_value(hand: int, bury: int, trump: int, void_bonus: float) -> float:
    kept = hand & ~bury
    trump_mask = TRUMP_MASKS[trump]
    value = float(mask_points(bury))
    for suit in range(4):
        if suit == trump:
            continue
        suit_mask = SUIT_MASKS[suit]
        if hand & suit_mask and not kept & suit_mask:
            value += void_bonus
        ace = suit * 14 + 13
        if bury >> ace & 1:
            value -= 14
        if not kept >> ace & 1:
            # Point cards kept without their suit's 14 are exposed: likely lost.
            exposed = kept & suit_mask & ~(1 << ace)
            value -= 0.6 * sum(CARD_POINTS[c] for c in _bits(exposed))
    value -= 20 * (bury & trump_mask).bit_count()
    return value


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def bury_candidates(
    hand: int, trump: int, count: int, limit: int = 1, void_bonus: float = 7.0
) -> list[int]:
    """Up to ``limit`` buries of ``count`` cards, best first by ``_bury_value``.

    Tries voiding every set of side suits that fits, fills the rest with the cheapest side
    cards (exposed points first, 14s last), never burying a trump unless it must.
    """
    keys = KEYS[trump]
    trump_mask = TRUMP_MASKS[trump]
    side = hand & ~trump_mask
    if side.bit_count() <= count:
        trumps = sorted(_bits(hand & trump_mask), key=lambda c: (CARD_POINTS[c] > 0, keys[c]))
        bury = side
        for card in trumps[: count - side.bit_count()]:
            bury |= 1 << card
        return [bury]
    suits = [s for s in range(4) if s != trump and hand & SUIT_MASKS[s]]

    def fill_order(card: int) -> tuple[float, int]:
        suit_length = (hand & SUIT_MASKS[card // 14]).bit_count()
        is_ace = card % 14 == 13
        return (-(CARD_POINTS[card] * 2 - suit_length - 30 * is_ace), keys[card])

    order = sorted(_bits(side), key=fill_order)
    scored: dict[int, float] = {}
    for size in range(len(suits) + 1):
        for chosen in combinations(suits, size):
            bury = 0
            for suit in chosen:
                bury |= hand & SUIT_MASKS[suit]
            if bury.bit_count() > count:
                continue
            for card in order:
                if bury.bit_count() == count:
                    break
                bury |= 1 << card
            if bury not in scored:
                scored[bury] = _bury_value(hand, bury, trump, void_bonus)
    return sorted(scored, key=lambda b: (-scored[b], b))[:limit]


def best_bury(hand: int, trump: int, count: int, void_bonus: float = 7.0) -> int:
    """The ``count`` cards to bury: exposed points and short-suit losers, keeping trumps and 14s."""
    return bury_candidates(hand, trump, count, 1, void_bonus)[0]


def call_card(call_from: int, trump: int) -> int:
    """The card to call: the highest trump the bidder lacks, else the highest 14 it lacks."""
    keys = KEYS[trump]
    trumps = call_from & TRUMP_MASKS[trump]
    if trumps:
        return max(_bits(trumps), key=keys.__getitem__)
    aces = [c for c in _bits(call_from) if c < 56 and c % 14 == 13]
    if aces:
        return aces[0]
    return max(_bits(call_from), key=lambda c: (CARD_POINTS[c], c % 14))


class HeuristicPolicy:
    """A deterministic rule-based policy: ``policy(observation, legal, rng) -> action``."""

    def __init__(self, parameters: HeuristicParameters | None = None) -> None:
        self.parameters = parameters or HeuristicParameters()

    def __call__(self, obs: Observation, legal: LegalActions, rng: random.Random) -> Action:
        phase = legal.phase
        if phase is Phase.PLAY:
            return PLAY[choose_play(play_view_from_observation(obs, legal.play))]
        if phase is Phase.BIDDING:
            return self.bid(obs, legal)
        if phase is Phase.NAME_TRUMP:
            return TRUMP[self.trump(obs)]
        if phase is Phase.BURY:
            trump = int(obs.trump) if obs.trump is not None else self.trump(obs)
            return Bury(best_bury(obs.hand, trump, legal.bury_count, self.parameters.void_bonus))
        if phase is Phase.CALL:
            assert obs.trump is not None
            return CallCard(call_card(legal.call_from, int(obs.trump)))
        raise ValueError(f"no action to choose in phase {phase.name}")

    def bid_limit(self, obs: Observation) -> int:
        """The highest bid this hand is worth (below ``min_bid``: pass at once)."""
        rules = obs.ruleset
        _, mean = best_trump_before_nest(obs.hand, rules)
        _, spread = bid_model(rules)
        limit = 0
        for amount in range(rules.min_bid, rules.effective_max_bid + 1, rules.bid_step):
            if bid_value(mean, spread, amount, rules) < self.parameters.pass_value:
                break
            limit = amount
        return limit

    def bid(self, obs: Observation, legal: LegalActions) -> Action:
        """Bid the lowest legal amount up to the hand's limit; respect a partner's high bid."""
        if not legal.bids:
            return PASS
        limit = self.bid_limit(obs)
        friends = known_friends(obs)
        partner_high = obs.high_bidder not in (-1, obs.seat) and friends >> obs.high_bidder & 1
        if partner_high and limit < obs.high_bid + self.parameters.overbid_partner:
            return PASS
        amount = legal.bids[0]
        return bid_action(amount) if amount <= limit else PASS

    def trump(self, obs: Observation) -> int:
        """The trump to name: the best suit for the whole hand, the buried cards included."""
        return best_trump(obs.hand | obs.buried, obs.ruleset)[0]

    def reason(self, obs: Observation, action: Action) -> tuple[str, dict[str, float]]:
        """Why this policy chose ``action`` for ``obs``: a sentence and the numbers behind it."""
        phase = obs.phase
        if phase is Phase.BIDDING:
            limit = self.bid_limit(obs)
            if action == PASS:
                friends = known_friends(obs)
                if obs.high_bidder not in (-1, obs.seat) and friends >> obs.high_bidder & 1:
                    return "pass: my partner holds the high bid", {"limit": limit}
                return "pass: the next bid is over what this hand is worth", {"limit": limit}
            return "bid: the hand is worth up to the limit", {"limit": limit}
        if phase is Phase.NAME_TRUMP:
            trump, value = best_trump(obs.hand | obs.buried, obs.ruleset)
            return f"trump {Suit(trump).name.lower()}: the best estimate of the hand", {
                "estimate": round(value, 2)
            }
        if phase is Phase.BURY:
            return "bury: the cards least useful in play, points kept for the last trick", {}
        if phase is Phase.CALL:
            return "call: the highest trump I do not hold", {}
        return "play: the card rules (win cheaply, feed points to a winning partner)", {}


def best_trump_before_nest(hand: int, rules: Ruleset) -> tuple[int, float]:
    """The best trump and its estimate for a hand still to receive the nest."""
    best, best_value = 0, float("-inf")
    for trump in range(4):
        value = estimate_points(hand, trump, rules)
        if value > best_value:
            best, best_value = trump, value
    return best, best_value


class HeuristicBot(PolicyBot):
    """The ``heuristic`` reference bot; each reply carries a note with its reason."""

    def __init__(self, parameters: HeuristicParameters | None = None, *, seed: int = 0) -> None:
        self.heuristic = HeuristicPolicy(parameters)
        super().__init__(self.heuristic, seed=seed)

    def act(self, observation: Observation) -> Action:
        action = super().act(observation)
        text, values = self.heuristic.reason(observation, action)
        self.note(text, **values)
        return action
