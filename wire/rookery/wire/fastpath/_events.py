"""The ``TableEvent`` family: the server's events to bots as bytes, each encoded once per view.

An event is encoded once per view and the same bytes go to every session that shares the view;
the most frequent ones (a card played, a trick won, a bid, a pass: public, the same for every
seat) are assembled from bytes encoded once, and a hand's score from its card masks. The bytes
are exactly what ``convert`` plus ``SerializeToString`` give. The SDK reads events with
protobuf (they are few beside requests).
"""

from __future__ import annotations

from google.protobuf.message import Message
from rookery.engine import (
    NUM_CARDS,
    BidMade,
    CardPlayed,
    EventBase,
    HandResult,
    HandScored,
    Passed,
    Suit,
    TrickWon,
)
from rookery.v1 import bot_service_pb2, events_pb2
from rookery.v1 import field_numbers as fields

from .. import convert
from ..memo import BoundedMemo
from ._cards import card_elements, card_list
from ._protobuf import field, packed_field, scalar_field, uint_field

_Event = fields.Event
_TABLE_EVENT_EVENT = fields.TableEvent.EVENT
# A TableEvents is a TableEvent whose event repeats: the same table id field, and each event an
# element of the same field number, so one event's bytes serve both messages.
assert fields.TableEvents.TABLE_ID == fields.TableEvent.TABLE_ID
assert fields.TableEvents.EVENTS == _TABLE_EVENT_EVENT
_EVENT_HAND_NUMBER = scalar_field(_Event.HAND_NUMBER)


def table_event_prefix(table_id: str) -> bytes:
    """The encoded ``TableEvent.table_id`` of a table (the start of each of its events)."""
    return bot_service_pb2.TableEvent(table_id=table_id).SerializeToString()


def event_element(event: Message) -> bytes:
    """An event as the ``event`` field of a ``TableEvent`` (and so as one element of
    ``TableEvents.events``)."""
    return field(_TABLE_EVENT_EVENT, event.SerializeToString())


def event_message(prefix: bytes, element: bytes) -> bytes:
    """A ``ConnectResponse`` carrying a ``TableEvent`` (``prefix``: the table's id, ``element``:
    as :func:`event_element` or :func:`public_event_element` give it), as bytes."""
    return field(fields.ConnectResponse.EVENT, prefix + element)


def events_message(prefix: bytes, elements: list[bytes]) -> bytes:
    """A ``ConnectResponse`` carrying a ``TableEvents`` of these events, in order, as bytes."""
    return field(fields.ConnectResponse.TABLE_EVENTS, prefix + b"".join(elements))


def event_bytes(prefix: bytes, event: Message) -> bytes:
    """A ``ConnectResponse`` carrying a ``TableEvent``, as bytes (``prefix``: the table's id)."""
    return event_message(prefix, event_element(event))


_CARD_PLAYED: tuple[tuple[bytes, ...], ...] = tuple(
    tuple(
        field(
            _Event.CARD_PLAYED,
            events_pb2.CardPlayed(seat=seat, card=convert.card_to_proto(card)).SerializeToString(),
        )
        for card in range(NUM_CARDS)
    )
    for seat in range(8)  # a ruleset seats at most 6
)
"""``_CARD_PLAYED[seat][card]``: the ``Event.card_played`` field of that play."""
_TRICK_WON: BoundedMemo[tuple[int, int, int], bytes] = BoundedMemo(
    65536,
    lambda key: field(
        _Event.TRICK_WON,
        events_pb2.TrickWon(seat=key[0], points=key[1], trick_index=key[2]).SerializeToString(),
    ),
)
"""The ``Event.trick_won`` field, by (seat, points, trick index)."""
_BID_MADE: BoundedMemo[tuple[int, int], bytes] = BoundedMemo(
    65536,
    lambda key: field(
        _Event.BID_MADE, events_pb2.BidMade(seat=key[0], amount=key[1]).SerializeToString()
    ),
)
"""The ``Event.bid_made`` field, by (seat, amount)."""
_PASSED: BoundedMemo[int, bytes] = BoundedMemo(
    64, lambda seat: field(_Event.PASSED, events_pb2.Passed(seat=seat).SerializeToString())
)
"""The ``Event.passed`` field, by seat."""


_RESULT = fields.HandResult
_DEAL = fields.Deal
_DEALT_HAND = card_list(fields.CardList.CARDS)
_DEAL_NEST = card_list(_DEAL.NEST)
_DEAL_DEAD = card_list(_DEAL.DEAD)
_RESULT_BURIED = card_list(_RESULT.BURIED)
_RESULT_CALLED = card_elements(_RESULT.CALLED_CARD)
_RESULT_HAND_NUMBER = scalar_field(_RESULT.HAND_NUMBER)
_RESULT_DEALER = scalar_field(_RESULT.DEALER)
_RESULT_BIDDER = scalar_field(_RESULT.BIDDER)
_RESULT_BID = scalar_field(_RESULT.BID)
_RESULT_TRUMP = scalar_field(_RESULT.TRUMP)
_RESULT_MADE = scalar_field(_RESULT.MADE)
_RESULT_PARTNER = scalar_field(_RESULT.PARTNER)
_SUIT_NUMBERS = {suit: int(convert.suit_to_proto(suit)) for suit in (*Suit, None)}


def _hand_scored(result: HandResult) -> bytes:
    """The ``Event.hand_scored`` field of a scored hand (not a redeal), as
    ``convert.hand_result_to_proto`` builds its result: the fields in number order, the deal's
    hands and every card list from card masks (protobuf's copy of each ``Card`` took most of
    an event encoded once a hand: about 150 µs)."""
    deal = result.deal
    dealt = b"".join(
        [
            *[field(_DEAL.HANDS, _DEALT_HAND(hand)) for hand in deal.hands],
            _DEAL_NEST(deal.nest),
            _DEAL_DEAD(deal.dead),
        ]
    )
    called = result.called_card
    encoded = b"".join(
        (
            _RESULT_HAND_NUMBER[result.hand_number],
            _RESULT_DEALER[result.dealer],
            _RESULT_BIDDER[result.bidder],
            _RESULT_BID[result.bid],
            _RESULT_TRUMP[_SUIT_NUMBERS[result.trump]],
            _RESULT_MADE[result.made],
            packed_field(_RESULT.POINTS, result.points_per_side),
            packed_field(_RESULT.SCORE_DELTAS, result.score_deltas),
            packed_field(_RESULT.SCORES, result.scores_after),
            field(_RESULT.DEAL, dealt),
            _RESULT_BURIED(result.buried),
            _RESULT_CALLED[called] if called >= 0 else b"",
            _RESULT_PARTNER[result.partner],
        )
    )
    return field(_Event.HAND_SCORED, field(fields.HandScored.RESULT, encoded))


def public_event_element(event: EventBase) -> bytes | None:
    """The most frequent events (a card played, a trick won, a bid, a pass: public, the same for
    every seat) and a hand's score (public, and costly to build as a message), as
    ``event_element`` gives them from ``convert.event_to_proto(event, ruleset, None)``, from bytes
    encoded once; ``None`` for any other event (encode its proto)."""
    if isinstance(event, CardPlayed):
        body = _CARD_PLAYED[event.seat][event.card]
    elif isinstance(event, TrickWon):
        body = _TRICK_WON[event.seat, event.points, event.trick_index]
    elif isinstance(event, BidMade):
        body = _BID_MADE[event.seat, event.amount]
    elif isinstance(event, Passed):
        body = _PASSED[event.seat]
    elif type(event) is HandScored and not event.result.redeal:
        body = _hand_scored(event.result)
    else:
        return None
    encoded = b"".join(
        (uint_field(_Event.SEQ, event.seq), _EVENT_HAND_NUMBER[event.hand_number], body)
    )
    return field(_TABLE_EVENT_EVENT, encoded)


def public_event_bytes(prefix: bytes, event: EventBase) -> bytes | None:
    """:func:`public_event_element` as a ``ConnectResponse`` carrying its ``TableEvent``."""
    element = public_event_element(event)
    return None if element is None else event_message(prefix, element)
