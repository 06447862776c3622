"""Cards as protobuf bytes: each ``Card`` message encoded once, and card fields built from them."""

from __future__ import annotations

from collections.abc import Callable

from rookery.engine import NUM_CARDS

from .. import convert
from ._protobuf import card_field_elements, card_field_encoder

CARD_BYTES: tuple[bytes, ...] = tuple(
    convert.card_to_proto(card).SerializeToString() for card in range(NUM_CARDS)
)
"""Each card's ``Card`` message encoded, by engine index."""


def card_list(number: int) -> Callable[[int], bytes]:
    """The encoder of the repeated ``Card`` field ``number``: a card mask to its elements."""
    return card_field_encoder(number, CARD_BYTES)


def card_elements(number: int) -> tuple[bytes, ...]:
    """Each card as one element of the ``Card`` field ``number``, by engine index."""
    return card_field_elements(number, CARD_BYTES)
