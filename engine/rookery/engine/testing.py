"""Helpers for tests of code built on the engine: small decks, hand-built deals, scripted actions.

Like ``structlog.testing``, a public module for tests, not imported by ``rookery.engine`` itself.

>>> rules = small_rules()
>>> deal = make_deal(rules, ["ROOK B14 B13 B12", "R14 R13 R12 R11", "Y14 Y13 Y12 Y11",
...                          "G14 G13 G12 G11"], nest="B11")
>>> game = Game.from_deal(rules, deal)
>>> act(game, "pass", "pass", "pass", "bid 5"); game.bidder
0
"""

from __future__ import annotations

import random

from ._actions import parse_action
from ._cards import format_cards, parse_cards
from ._choice import Game
from ._deal import Deal
from ._golden import lowest_bid_or_sample
from ._observation import Observation
from ._ruleset import Ruleset

__all__ = [
    "act",
    "all_observations",
    "fill_deal",
    "lowest_bid_or_sample",
    "make_deal",
    "played_game",
    "seat_zero_bids",
    "small_rules",
]


def small_rules(**changes: object) -> Ruleset:
    """A 17-card deck (ranks 11..14 and the Rook), 4 players, hands of 4 and a nest of 1.

    Its points: each 14 is worth 10 and the Rook 20: 60 in all.
    """
    params: dict[str, object] = {
        "name": "small",
        "lowest_rank": 11,
        "nest_size": 1,
        "min_bid": 5,
        "bid_step": 5,
        "target": 300,
    }
    params.update(changes)
    return Ruleset(**params)  # type: ignore[arg-type]


def make_deal(ruleset: Ruleset, hands: list[str], nest: str = "", dead: str = "") -> Deal:
    """A deal from text forms; ``ValueError`` unless the cards cover the deck exactly once."""
    deal = Deal(tuple(parse_cards(hand) for hand in hands), parse_cards(nest), parse_cards(dead))
    union = 0
    for mask in (*deal.hands, deal.nest, deal.dead):
        if union & mask:
            raise ValueError(f"dealt twice: {format_cards(union & mask)}")
        union |= mask
    if union != ruleset.deck_mask:
        raise ValueError(f"not a partition of the {ruleset.name} deck")
    return deal


def act(game: Game, *texts: str) -> None:
    """Apply each action text in turn (for whoever is to act)."""
    for text in texts:
        game.apply(parse_action(text))


def played_game(ruleset: Ruleset, seed: int, steps: int) -> Game:
    """A game of ``ruleset`` on deal ``seed`` after ``steps`` random legal actions (fewer if it
    ends), drawn from the first 30 of each position's: a game at any point, for property tests."""
    game, rng = Game(ruleset, seed), random.Random(seed)
    for _ in range(steps):
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(min(len(legal), 30))])
    return game


def all_observations(game: Game) -> list[Observation]:
    """The public view and every seat's observation."""
    return [game.public_view()] + [
        game.observation_for(seat) for seat in range(game.ruleset.players)
    ]


def fill_deal(ruleset: Ruleset, fixed: dict[int, str], nest: str = "", dead: str = "") -> Deal:
    """A deal where ``fixed`` seats hold (at least) the given cards and the nest and dead pile
    start with the given ones; the rest of the deck fills the gaps in ascending card order."""
    hands = {seat: parse_cards(cards) for seat, cards in fixed.items()}
    nest_mask, dead_mask = parse_cards(nest), parse_cards(dead)
    used = nest_mask | dead_mask
    for mask in hands.values():
        used |= mask
    free = [card for card in ruleset.deck_cards if not used >> card & 1]

    def take(mask: int, size: int) -> int:
        while mask.bit_count() < size:
            mask |= 1 << free.pop(0)
        return mask

    full = tuple(take(hands.get(seat, 0), ruleset.hand_size) for seat in range(ruleset.players))
    nest_mask = take(nest_mask, ruleset.nest_size)
    dead_mask = take(dead_mask, ruleset.dead_count)
    return make_deal(
        ruleset,
        [format_cards(hand) for hand in full],
        format_cards(nest_mask),
        format_cards(dead_mask),
    )


def seat_zero_bids(
    ruleset: Ruleset, deal: Deal, trump: str, bury: str = "", **kwargs: object
) -> Game:
    """A game on ``deal`` (dealer 0) where seats 1..n-1 pass, seat 0 bids the minimum, names
    ``trump`` and buries ``bury`` (by default the nest), in the ruleset's order."""
    game = Game.from_deal(ruleset, deal, **kwargs)  # type: ignore[arg-type]
    act(game, *["pass"] * (ruleset.players - 1), f"bid {ruleset.min_bid}")
    burying = f"bury {bury or format_cards(deal.nest)}"
    steps = [f"trump {trump}"]
    if ruleset.nest_size:
        steps = [steps[0], burying] if ruleset.trump_first else [burying, steps[0]]
    act(game, *steps)
    return game
