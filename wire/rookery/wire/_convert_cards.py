"""Cards, card sets, suits and phases between the engine and the proto: a card index ↔ ``Card``,
a card mask ↔ repeated ``Card`` or a ``CardMasks`` bit field, ``Suit`` and ``Phase``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeAlias

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer
from rookery.engine import (
    NUM_CARDS,
    LegalActions,
    Observation,
    Phase,
    Suit,
    card_name,
    card_rank,
    card_suit,
    cards_of,
)
from rookery.v1 import actions_pb2, cards_pb2

from .errors import MalformedMessageError

__all__ = [
    "CARD_BY_KEY",
    "CARD_PROTOS",
    "PHASE_TO_PROTO",
    "card_from_proto",
    "card_masks_to_proto",
    "card_to_proto",
    "cards_to_proto",
    "fill_cards",
    "mask_from_bits",
    "mask_from_proto",
    "optional_card_from_proto",
    "optional_suit_from_proto",
    "phase_from_proto",
    "phase_to_proto",
    "suit_from_proto",
    "suit_to_proto",
]

_Suit: TypeAlias = cards_pb2.Suit.ValueType
_Phase: TypeAlias = actions_pb2.Phase.ValueType


def _card_key(card: int) -> tuple[int, int, int]:
    suit = card_suit(card)
    if suit is None:
        return (0, 0, card - NUM_CARDS + 3)  # ROOK = 56 → rook 1, ROOK2 = 57 → rook 2
    return (int(suit) + 1, card_rank(card), 0)


_CARD_KEYS: tuple[tuple[int, int, int], ...] = tuple(_card_key(card) for card in range(NUM_CARDS))
CARD_BY_KEY: dict[tuple[int, int, int], int] = {key: card for card, key in enumerate(_CARD_KEYS)}
# Prebuilt messages, only ever copied (``extend`` and ``CopyFrom`` copy), never handed out.
CARD_PROTOS: tuple[cards_pb2.Card, ...] = tuple(
    cards_pb2.Card(suit=_Suit(suit), rank=rank, rook=rook) for suit, rank, rook in _CARD_KEYS
)
_SUIT_NAMES = {value.number: value.name for value in cards_pb2.Suit.DESCRIPTOR.values}


def card_to_proto(card: int) -> cards_pb2.Card:
    """The proto ``Card`` of the engine card index ``card``."""
    suit, rank, rook = _CARD_KEYS[card]
    return cards_pb2.Card(suit=_Suit(suit), rank=rank, rook=rook)


def card_from_proto(message: cards_pb2.Card, field: str = "card") -> int:
    """The engine card index of a proto ``Card``; ``MalformedMessageError`` when no card has it."""
    key = (message.suit, message.rank, message.rook)
    card = CARD_BY_KEY.get(key)
    if card is not None:
        return card
    suit, rank, rook = key
    if rook not in (0, 1, 2):
        raise MalformedMessageError(
            f"{field}.rook", f"must be 0, 1 (ROOK) or 2 (ROOK2), got {rook}"
        )
    if rook:
        raise MalformedMessageError(
            field,
            f"a Rook card (rook={rook}) has suit SUIT_UNSPECIFIED and rank 0, "
            f"got suit {_SUIT_NAMES.get(suit, suit)} and rank {rank}",
        )
    if suit == cards_pb2.SUIT_UNSPECIFIED:
        raise MalformedMessageError(
            f"{field}.suit", "a numbered card needs a suit (rook = 0), got SUIT_UNSPECIFIED"
        )
    if suit not in _SUIT_NAMES:
        raise MalformedMessageError(f"{field}.suit", f"unknown Suit value {suit}")
    raise MalformedMessageError(f"{field}.rank", f"must be 1 to 14, got {rank}")


def cards_to_proto(mask: int) -> list[cards_pb2.Card]:
    """The proto cards of a card mask, ascending by engine index."""
    return [card_to_proto(card) for card in cards_of(mask)]


def fill_cards(target: RepeatedCompositeFieldContainer[cards_pb2.Card], mask: int) -> None:
    target.extend(CARD_PROTOS[card] for card in cards_of(mask))


def mask_from_proto(cards: Iterable[cards_pb2.Card], field: str = "cards") -> int:
    """The card mask of repeated proto cards; a card given twice is malformed."""
    mask = 0
    get = CARD_BY_KEY.get
    for message in cards:  # the common case first: no field names built
        card = get((message.suit, message.rank, message.rook))
        if card is None or mask >> card & 1:
            return _checked_mask_from_proto(cards, field)
        mask |= 1 << card
    return mask


_NO_CARD_BITS = ~((1 << NUM_CARDS) - 1)


def mask_from_bits(bits: int, field: str = "cards") -> int:
    """The card mask of a ``CardMasks`` field: refused when a bit stands for no card."""
    if bits & _NO_CARD_BITS:
        raise MalformedMessageError(
            field, f"sets bit {(bits & _NO_CARD_BITS).bit_length() - 1}: only bits 0..57 are cards"
        )
    return bits


def card_masks_to_proto(observation: Observation, legal: LegalActions) -> actions_pb2.CardMasks:
    """The ``CardMasks`` of an ActionRequest: its observation's and legal actions' card sets."""
    return actions_pb2.CardMasks(
        hand=observation.hand,
        nest=observation.nest,
        buried=observation.buried,
        bury_candidates=legal.bury_from,
        callable_cards=legal.call_from,
        playable_cards=legal.play,
    )


def _checked_mask_from_proto(cards: Iterable[cards_pb2.Card], field: str) -> int:
    mask = 0
    for index, message in enumerate(cards):
        bit = 1 << card_from_proto(message, f"{field}[{index}]")
        if mask & bit:
            raise MalformedMessageError(
                f"{field}[{index}]", f"{card_name(bit.bit_length() - 1)} is given twice"
            )
        mask |= bit
    return mask


def optional_card_from_proto(message: cards_pb2.Card, present: bool, field: str) -> int:
    return card_from_proto(message, field) if present else -1


def suit_to_proto(suit: Suit | None) -> _Suit:
    """The proto ``Suit`` of an engine suit (``None``: ``SUIT_UNSPECIFIED``)."""
    return _Suit(0 if suit is None else int(suit) + 1)


def suit_from_proto(value: int, field: str = "suit") -> Suit:
    """The engine suit of a proto ``Suit``; UNSPECIFIED or an unknown value is malformed."""
    if 1 <= value <= 4:
        return Suit(value - 1)
    if value == cards_pb2.SUIT_UNSPECIFIED:
        raise MalformedMessageError(field, "SUIT_UNSPECIFIED is not a suit")
    raise MalformedMessageError(field, f"unknown Suit value {value}")


def optional_suit_from_proto(value: int, field: str) -> Suit | None:
    return None if value == cards_pb2.SUIT_UNSPECIFIED else suit_from_proto(value, field)


PHASE_TO_PROTO: dict[Phase, _Phase] = {
    Phase.BIDDING: actions_pb2.PHASE_BIDDING,
    Phase.NAME_TRUMP: actions_pb2.PHASE_NAME_TRUMP,
    Phase.BURY: actions_pb2.PHASE_BURY,
    Phase.CALL: actions_pb2.PHASE_CALL,
    Phase.PLAY: actions_pb2.PHASE_PLAY,
    Phase.GAME_OVER: actions_pb2.PHASE_GAME_OVER,
}
_PHASE_FROM_PROTO: dict[int, Phase] = {value: phase for phase, value in PHASE_TO_PROTO.items()}


def phase_to_proto(phase: Phase) -> _Phase:
    """The proto ``Phase`` of an engine phase."""
    return PHASE_TO_PROTO[phase]


def phase_from_proto(value: int, field: str = "phase") -> Phase:
    """The engine phase of a proto ``Phase``; UNSPECIFIED or an unknown value is malformed."""
    phase = _PHASE_FROM_PROTO.get(value)
    if phase is None:
        if value == actions_pb2.PHASE_UNSPECIFIED:
            raise MalformedMessageError(field, "PHASE_UNSPECIFIED is not a phase")
        raise MalformedMessageError(field, f"unknown Phase value {value}")
    return phase
