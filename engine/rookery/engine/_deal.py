"""Dealing: each hand's cards come from a hand seed derived from the game seed and hand number."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from ._cards import cards_of, format_cards
from ._ruleset import Ruleset

__all__ = ["Deal", "deal_for_hand", "hand_seed"]


@dataclass(frozen=True, slots=True)
class Deal:
    """Where every card of a hand lies, as masks: each seat's hand, the nest and the dead pile.

    ``buried`` is 0 in a deal as dealt; a deal sampled for search after the bidder has buried
    carries the buried cards there (see ``sample_deals``), and ``hands[bidder]`` then includes them
    as the cards the bidder held before burying.
    """

    hands: tuple[int, ...]
    nest: int
    dead: int
    buried: int = 0

    def __str__(self) -> str:
        lines = [f"seat {seat}: {format_cards(hand)}" for seat, hand in enumerate(self.hands)]
        lines.append(f"nest: {format_cards(self.nest)}")
        if self.dead:
            lines.append(f"dead: {format_cards(self.dead)}")
        return "\n".join(lines)


def hand_seed(game_seed: int, hand_number: int) -> int:
    """The seed of hand ``hand_number``: the 64-bit blake2b digest of ``"{game_seed}:{hand_number}"``."""
    digest = hashlib.blake2b(f"{game_seed}:{hand_number}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big")


def deal_for_hand(ruleset: Ruleset, game_seed: int, hand_number: int) -> Deal:
    """The deal of hand ``hand_number`` of a game seeded ``game_seed``.

    The deck's cards in ascending index order are shuffled by ``random.Random(hand_seed)``; seat 0
    receives the first ``hand_size`` cards, seat 1 the next, and so on by absolute seat; then come
    the nest and the dead pile. The deal depends on nothing else, so duplicate tables with the same
    seed see the same cards on the same seats whoever sits there.
    """
    deck = cards_of(ruleset.deck_mask)
    random.Random(hand_seed(game_seed, hand_number)).shuffle(deck)
    size = ruleset.hand_size
    hands = []
    position = 0
    for _ in range(ruleset.players):
        mask = 0
        for card in deck[position : position + size]:
            mask |= 1 << card
        hands.append(mask)
        position += size
    nest = 0
    for card in deck[position : position + ruleset.nest_size]:
        nest |= 1 << card
    dead = 0
    for card in deck[position + ruleset.nest_size :]:
        dead |= 1 << card
    return Deal(tuple(hands), nest, dead)
