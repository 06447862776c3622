"""Cards as ``int`` indices and sets of cards as ``int`` bit masks.

A numbered card of suit ``s`` (0=B, 1=R, 2=Y, 3=G) and rank ``r`` (1..14) is the index
``s * 14 + (r - 1)``; the Rook cards are ``ROOK = 56`` and ``ROOK2 = 57``. A set of cards is the
``int`` with bit ``1 << card`` set for each card, in the manner of python-chess's square sets.

>>> card_name(make_card(Suit.RED, 14))
'R14'
>>> format_cards(mask_of([parse_card("ROOK"), parse_card("B5")]))
'B5 ROOK'
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum
from typing import Final

from ._errors import CardParseError

__all__ = [
    "ALL_CARDS_MASK",
    "CARD_POINTS",
    "NUM_CARDS",
    "ROOK",
    "ROOK2",
    "ROOK_MASK",
    "SUIT_MASKS",
    "Suit",
    "card_name",
    "card_points",
    "card_rank",
    "card_suit",
    "cards_of",
    "format_cards",
    "make_card",
    "mask_of",
    "mask_points",
    "parse_card",
    "parse_cards",
    "popcount",
]


class Suit(IntEnum):
    """The four suits, in the order of the card indices."""

    BLACK = 0
    RED = 1
    YELLOW = 2
    GREEN = 3

    @property
    def letter(self) -> str:
        """The suit's one-letter text form: ``B``, ``R``, ``Y`` or ``G``."""
        return "BRYG"[self.value]

    @classmethod
    def from_letter(cls, letter: str) -> Suit:
        """The suit whose letter is ``letter`` (case-insensitive); ``CardParseError`` otherwise."""
        index = "BRYG".find(letter.strip().upper()) if len(letter.strip()) == 1 else -1
        if index < 0:
            raise CardParseError(f"not a suit letter: {letter!r} (expected one of B, R, Y, G)")
        return cls(index)


NUM_CARDS: Final = 58
ROOK: Final = 56
ROOK2: Final = 57
ROOK_MASK: Final = (1 << ROOK) | (1 << ROOK2)
ALL_CARDS_MASK: Final = (1 << NUM_CARDS) - 1
SUIT_MASKS: Final[tuple[int, int, int, int]] = (
    ((1 << 14) - 1) << 0,
    ((1 << 14) - 1) << 14,
    ((1 << 14) - 1) << 28,
    ((1 << 14) - 1) << 42,
)

_SUITS: Final = tuple(Suit)
_CARD_SUIT: tuple[Suit | None, ...] = tuple(_SUITS[c // 14] for c in range(56)) + (None, None)
_CARD_RANK: tuple[int, ...] = tuple(c % 14 + 1 for c in range(56)) + (0, 0)
_CARD_NAMES: Final[tuple[str, ...]] = tuple(f"{'BRYG'[c // 14]}{c % 14 + 1}" for c in range(56)) + (
    "ROOK",
    "ROOK2",
)
_NAME_TO_CARD: dict[str, int] = {name: card for card, name in enumerate(_CARD_NAMES)}


def _rank_points(rank: int) -> int:
    return 5 if rank == 5 else 10 if rank in (10, 14) else 0


CARD_POINTS: Final[tuple[int, ...]] = tuple(_rank_points(c % 14 + 1) for c in range(56)) + (20, 20)
"""``CARD_POINTS[card]``: 5 for a 5, 10 for a 10 or a 14, 20 for a Rook card, else 0."""

_FIVES_MASK: Final = sum(1 << c for c in range(56) if _CARD_RANK[c] == 5)
_TENS_MASK: Final = sum(1 << c for c in range(56) if _CARD_RANK[c] in (10, 14))


def card_suit(card: int) -> Suit | None:
    """The suit of a numbered card; ``None`` for a Rook card (it takes the trump suit in play)."""
    return _CARD_SUIT[card]


def card_rank(card: int) -> int:
    """The rank 1..14 of a numbered card; 0 for a Rook card."""
    return _CARD_RANK[card]


def make_card(suit: Suit | int, rank: int) -> int:
    """The card index of ``rank`` (1..14) in ``suit``."""
    if not 0 <= int(suit) <= 3 or not 1 <= rank <= 14:
        raise ValueError(f"no card of suit {suit!r} and rank {rank!r}")
    return int(suit) * 14 + rank - 1


def card_name(card: int) -> str:
    """The text form of a card: ``B1`` … ``G14``, ``ROOK``, ``ROOK2``."""
    return _CARD_NAMES[card]


def parse_card(text: str) -> int:
    """The card whose text form is ``text`` (case-insensitive, surrounding spaces ignored).

    >>> parse_card("r14"), parse_card("ROOK")
    (27, 56)
    """
    card = _NAME_TO_CARD.get(text.strip().upper())
    if card is None:
        raise CardParseError(f"not a card: {text!r} (expected B1..G14, ROOK or ROOK2)")
    return card


def parse_cards(text: str) -> int:
    """The mask of the space- or comma-separated card text forms in ``text``.

    Duplicates are refused: a card set cannot hold a card twice.
    """
    mask = 0
    for word in text.replace(",", " ").split():
        bit = 1 << parse_card(word)
        if mask & bit:
            raise CardParseError(f"card {word!r} given twice")
        mask |= bit
    return mask


def card_points(card: int) -> int:
    """The points a card is worth (RULES.md §2)."""
    return CARD_POINTS[card]


def mask_points(mask: int) -> int:
    """The points of every card in ``mask``, by bit counting."""
    return (
        5 * (mask & _FIVES_MASK).bit_count()
        + 10 * (mask & _TENS_MASK).bit_count()
        + 20 * (mask & ROOK_MASK).bit_count()
    )


def popcount(mask: int) -> int:
    """The number of cards in ``mask`` (``mask.bit_count()``)."""
    return mask.bit_count()


def mask_of(cards: Iterable[int]) -> int:
    """The mask of a collection of card indices."""
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def cards_of(mask: int) -> list[int]:
    """The card indices in ``mask``, ascending."""
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def format_cards(mask: int) -> str:
    """The text forms of the cards in ``mask``, ascending, separated by spaces ("" when empty)."""
    return " ".join(_CARD_NAMES[card] for card in cards_of(mask))
