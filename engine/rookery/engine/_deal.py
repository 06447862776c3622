"""Dealing: each hand's cards come from a hand seed derived from the game seed and hand number."""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from typing import Final

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
    count = len(ruleset.deck_cards)
    hand_seed = f"{game_seed}:{hand_number}:r{redeals}" if redeals else f"{game_seed}:{hand_number}"
    digest = hashlib.shake_256(hand_seed.encode()).digest(8 * count)
    order = _shuffle_order(digest, count)  # each entry's low _POSITION_WIDTH bits: a position
    bits = _position_bits(ruleset.deck_mask)
    size = ruleset.hand_size
    hands: list[int] = []
    position = 0
    for _ in range(ruleset.players):
        hand = 0
        for _ in range(size):
            hand |= bits[order[position] & _POSITION_MASK]
            position += 1
        hands.append(hand)
    nest = 0
    for _ in range(ruleset.nest_size):
        nest |= bits[order[position] & _POSITION_MASK]
        position += 1
    dead = 0
    while position < count:
        dead |= bits[order[position] & _POSITION_MASK]
        position += 1
    return Deal(tuple(hands), nest, dead)


# The shuffle's sort, fast: each card's sort key is its key's top three bytes above its position
# (_POSITION_WIDTH bits), a small int that CPython's sort compares natively. Two keys that share
# their top bytes (about one deal in ten thousand) leave the order undecided there: the exact sort
# by (whole key, position) decides it then.
_POSITION_WIDTH: Final = 6  # a deck has at most 58 cards
_POSITION_MASK: Final = (1 << _POSITION_WIDTH) - 1


def _shuffle_order(digest: bytes, count: int) -> list[int]:
    """The deck's positions sorted by ``(key, position)``, ``key`` the little-endian 64-bit
    word of ``digest`` at each position (the shuffle of ``deal_for_hand``): each entry's low
    ``_POSITION_WIDTH`` bits are the position (the bits above, when any, its fast sort key)."""
    fast = [0] * count
    top = 7  # the key's most significant byte, then the two below it
    for i in range(count):
        fast[i] = (
            digest[top] << 16 | digest[top - 1] << 8 | digest[top - 2]
        ) << _POSITION_WIDTH | i
        top += 8
    fast.sort()
    previous = -1
    for entry in fast:
        if entry >> _POSITION_WIDTH == previous:
            return _exact_order(digest, count)
        previous = entry >> _POSITION_WIDTH
    return fast


def _exact_order(digest: bytes, count: int) -> list[int]:
    """``_shuffle_order`` by the whole keys (the definition; used when the fast keys tie)."""
    keys: tuple[int, ...] = struct.unpack(f"<{count}Q", digest)
    return sorted(range(count), key=keys.__getitem__)


def _position_bits(deck_mask: int) -> tuple[int, ...]:
    """The bit of each card of the deck, in ascending card order (cached per deck)."""
    bits = _POSITION_BITS.get(deck_mask)
    if bits is None:
        bits = _POSITION_BITS[deck_mask] = tuple(
            1 << card for card in range(NUM_CARDS) if deck_mask >> card & 1
        )
    return bits


_POSITION_BITS: dict[int, tuple[int, ...]] = {}
