"""Dealing: each hand's cards come from a hand seed derived from the game seed and hand number."""

from __future__ import annotations

import hashlib
import sys
from array import array
from dataclasses import dataclass

from ._cards import NUM_CARDS, format_cards
from ._ruleset import Ruleset

__all__ = ["Deal", "deal_for_hand"]


@dataclass(frozen=True, slots=True)
class Deal:
    """Where every card of a hand lies as dealt: a mask per seat, the nest and the dead pile."""

    hands: tuple[int, ...]
    nest: int
    dead: int

    def __str__(self) -> str:
        lines = [f"seat {seat}: {format_cards(hand)}" for seat, hand in enumerate(self.hands)]
        lines.append(f"nest: {format_cards(self.nest)}")
        if self.dead:
            lines.append(f"dead: {format_cards(self.dead)}")
        return "\n".join(lines)

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Rebuilt by the constructor: a compiled frozen dataclass has no default pickling.
        return (Deal, (self.hands, self.nest, self.dead))


def deal_for_hand(ruleset: Ruleset, game_seed: int, hand_number: int, *, redeals: int = 0) -> Deal:
    """The deal of hand ``hand_number`` of a game seeded ``game_seed``.

    The hand seed is ``f"{game_seed}:{hand_number}"``, or when ``redeals`` is positive
    ``f"{game_seed}:{hand_number}:r{redeals}"``. ``Game`` passes the number of hands dealt
    before and no redeals under ``hand_seeds = DEALT``; under ``PLAYED`` the number of hands
    played out before and the redeals since the last one (``HandSeeds``).

    The shuffle: ``shake_256(hand seed)`` yields one little-endian 64-bit key
    per card of the deck (cards in ascending index order); the deck sorted by ``(key, card)`` is
    the shuffled deck. Seat 0 receives the first ``hand_size`` cards, seat 1 the next, and so on by
    absolute seat; then come the nest and the dead pile. The deal depends on nothing else, so
    duplicate tables with the same seed see the same cards on the same seats whoever sits there,
    and any language with SHAKE-256 can reproduce it.
    """
    cards = ruleset.deck_cards
    hand_seed = f"{game_seed}:{hand_number}:r{redeals}" if redeals else f"{game_seed}:{hand_number}"
    keys = array("Q", hashlib.shake_256(hand_seed.encode()).digest(8 * len(cards)))
    if sys.byteorder != "little":
        keys.byteswap()
    key_of = keys.tolist().__getitem__
    order = sorted(range(len(cards)), key=key_of)  # positions in the ascending deck
    bit = _position_bits(ruleset.deck_mask).__getitem__
    size = ruleset.hand_size
    dealt = size * ruleset.players
    hands = tuple([sum(map(bit, order[start : start + size])) for start in range(0, dealt, size)])
    nest = sum(map(bit, order[dealt : dealt + ruleset.nest_size]))
    dead = sum(map(bit, order[dealt + ruleset.nest_size :]))
    return Deal(hands, nest, dead)


def _position_bits(deck_mask: int) -> tuple[int, ...]:
    """The bit of each card of the deck, in ascending card order (cached per deck)."""
    bits = _POSITION_BITS.get(deck_mask)
    if bits is None:
        bits = _POSITION_BITS[deck_mask] = tuple(
            1 << card for card in range(NUM_CARDS) if deck_mask >> card & 1
        )
    return bits


_POSITION_BITS: dict[int, tuple[int, ...]] = {}
