"""The hot path's encodings: messages to bots as bytes, each built once.

A table asks for an action after every move. Most of an ActionRequest does not change from one
request to the next (the ruleset, the hand's completed tricks) or comes from a small set (cards),
so those parts are encoded once, as bytes, and a request is assembled from bytes; an event is
encoded once per view and the same bytes go to every session that shares the view. The bytes are
exactly what ``convert`` plus ``SerializeToString`` give: the tests compare them byte for byte.

The BotService handler's serializer (:func:`serialize_response`) passes bytes through untouched.
"""

from __future__ import annotations

from typing import Any

from google.protobuf.message import Message
from rookery.engine import NUM_CARDS, LegalActions, Observation, Ruleset, Trick, cards_of
from rookery.v1 import actions_pb2, bot_service_pb2
from rookery.wire import convert

__all__ = [
    "RequestEncoder",
    "batch_bytes",
    "event_bytes",
    "serialize_response",
    "table_event_prefix",
]

_Observation = actions_pb2.Observation
_Legal = actions_pb2.LegalActions
_Trick = actions_pb2.Trick
_ActionRequest = bot_service_pb2.ActionRequest
_ConnectResponse = bot_service_pb2.ConnectResponse


def serialize_response(message: bytes | Message) -> bytes:
    """The BotService response serializer: encoded bytes as they are, a message serialized."""
    if type(message) is bytes:
        return message
    return message.SerializeToString()  # type: ignore[union-attr]


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _field(number: int, payload: bytes) -> bytes:
    """A length-delimited field (a message or a string) as protobuf encodes it."""
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _number(message: Any, name: str) -> int:
    return int(message.DESCRIPTOR.fields_by_name[name].number)


def _card_fields(message: Any, name: str) -> tuple[bytes, ...]:
    """Each card, encoded as one element of the repeated card field ``name`` of ``message``."""
    number = _number(message, name)
    return tuple(
        _field(number, convert.card_to_proto(card).SerializeToString()) for card in range(NUM_CARDS)
    )


_HAND = _card_fields(_Observation, "hand")
_NEST = _card_fields(_Observation, "nest")
_BURIED = _card_fields(_Observation, "buried")
_CALLED = _card_fields(_Observation, "called_card")
_BURY_FROM = _card_fields(_Legal, "bury_candidates")
_CALL_FROM = _card_fields(_Legal, "callable_cards")
_PLAYABLE = _card_fields(_Legal, "playable_cards")
_AUCTION = _number(_Observation, "auction")
_CURRENT_TRICK = _number(_Observation, "current_trick")
_COMPLETED_TRICK = _number(_Observation, "completed_tricks")
_RULESET = _number(_Observation, "ruleset")
_TRICK_CARD = _number(_Trick, "cards")
_OBSERVATION = _number(_ActionRequest, "observation")
_LEGAL_ACTIONS = _number(_ActionRequest, "legal_actions")
_ACTION_REQUEST = _number(_ConnectResponse, "action_request")
_EVENT = _number(_ConnectResponse, "event")
_TABLE_EVENT_EVENT = _number(bot_service_pb2.TableEvent, "event")
_PLAYED: dict[tuple[int, int], bytes] = {}
_AUCTION_ENTRIES: dict[tuple[int, int], bytes] = {}


def _played(seat: int, card: int) -> bytes:
    """One ``(seat, card)`` of a trick, encoded as an element of ``Trick.cards``."""
    encoded = _PLAYED.get((seat, card))
    if encoded is None:
        played = actions_pb2.PlayedCard(seat=seat, card=convert.card_to_proto(card))
        encoded = _PLAYED[seat, card] = _field(_TRICK_CARD, played.SerializeToString())
    return encoded


def _auction_entry(seat: int, amount: int) -> bytes:
    encoded = _AUCTION_ENTRIES.get((seat, amount))
    if encoded is None:
        entry = actions_pb2.AuctionEntry(seat=seat, amount=amount).SerializeToString()
        encoded = _field(_AUCTION, entry)
        if len(_AUCTION_ENTRIES) < 65536:
            _AUCTION_ENTRIES[seat, amount] = encoded
    return encoded


def _trick(trick: Trick) -> bytes:
    """A ``Trick`` message's bytes (fields in number order: leader, cards, winner, points)."""
    return (
        _Trick(leader=trick.leader).SerializeToString()
        + b"".join([_played(seat, card) for seat, card in trick.cards])
        + _Trick(winner=trick.winner, points=trick.points).SerializeToString()
    )


def _partner_revealed(observation: Observation) -> bool:
    """Whether the called card has been played (as ``convert.observation_to_proto`` derives it)."""
    called = observation.called_card
    if called < 0:
        return False
    for trick in (*observation.completed_tricks, observation.current_trick):
        for _, card in trick.cards:
            if card == called:
                return True
    return False


def _legal(legal: LegalActions) -> bytes:
    """A ``LegalActions`` message's bytes (as ``convert.legal_actions_to_proto``)."""
    message = _Legal(
        phase=convert.phase_to_proto(legal.phase),
        seat=legal.player,
        can_pass=legal.can_pass,
        bids=legal.bids,
        trump_suits=[convert.suit_to_proto(suit) for suit in legal.suits],
        bury_count=legal.bury_count,
    )
    cards = [_BURY_FROM[card] for card in cards_of(legal.bury_from)]
    cards += [_CALL_FROM[card] for card in cards_of(legal.call_from)]
    cards += [_PLAYABLE[card] for card in cards_of(legal.play)]
    if cards:
        message.MergeFromString(b"".join(cards))  # re-encoded below in field order
    return message.SerializeToString()


class RequestEncoder:
    """One table's (one game's) ActionRequest encoder: the ruleset and each completed trick
    encoded once."""

    __slots__ = ("_hand_number", "_last_trick", "_ruleset", "_tricks")

    def __init__(self, ruleset: Ruleset) -> None:
        self._ruleset = _field(_RULESET, convert.ruleset_to_proto(ruleset).SerializeToString())
        self._hand_number = -1
        self._tricks: list[bytes] = []
        self._last_trick: Trick | None = None

    def _completed_tricks(self, observation: Observation) -> bytes:
        """The encoded ``completed_tricks`` of the hand, new tricks encoded as they complete."""
        tricks = observation.completed_tricks
        encoded = self._tricks
        known = len(encoded)
        if (
            observation.hand_number != self._hand_number
            or len(tricks) < known
            or (known and tricks[known - 1] != self._last_trick)
        ):
            self._hand_number = observation.hand_number
            encoded.clear()
            known = 0
        for trick in tricks[known:]:
            encoded.append(_field(_COMPLETED_TRICK, _trick(trick)))
        if tricks:
            self._last_trick = tricks[-1]
        return b"".join(encoded)

    def observation(self, observation: Observation) -> bytes:
        """An ``Observation`` message's bytes (as ``convert.observation_to_proto``)."""
        o = observation
        head = _Observation(
            seat=o.seat,
            hand_number=o.hand_number,
            dealer=o.dealer,
            phase=convert.phase_to_proto(o.phase),
            current_player=o.current_player,
            high_bid=o.high_bid,
            high_bidder=o.high_bidder,
            bidder=o.bidder,
            bid=o.bid,
            trump=convert.suit_to_proto(o.trump),
            buried_count=o.buried_count,
            partner=o.partner,
            partner_revealed=_partner_revealed(o),
        )
        parts = [_HAND[card] for card in cards_of(o.hand)]
        if o.nest:
            parts += [_NEST[card] for card in cards_of(o.nest)]
        if o.buried:
            parts += [_BURIED[card] for card in cards_of(o.buried)]
        parts += [_auction_entry(seat, amount) for seat, amount in o.auction]
        if o.called_card >= 0:
            parts.append(_CALLED[o.called_card])
        parts.append(_field(_CURRENT_TRICK, _trick(o.current_trick)))
        head.MergeFromString(b"".join(parts))  # re-encoded below in field order
        tail = _Observation(points_captured=o.points_captured, scores=o.scores, sides=o.sides)
        return (
            self._ruleset
            + head.SerializeToString()
            + self._completed_tricks(o)
            + tail.SerializeToString()
        )

    def action_request(
        self,
        *,
        table_id: str,
        request_id: int,
        seat: int,
        observation: Observation,
        legal: LegalActions,
        deadline_ms: int,
        bank_ms: int,
        last_seq: int,
    ) -> bytes:
        """A ``ConnectResponse`` carrying an ``ActionRequest``, as bytes."""
        body = (
            _ActionRequest(table_id=table_id, request_id=request_id, seat=seat).SerializeToString()
            + _field(_OBSERVATION, self.observation(observation))
            + _field(_LEGAL_ACTIONS, _legal(legal))
            + _ActionRequest(
                deadline_ms=deadline_ms, bank_ms=bank_ms, last_seq=last_seq
            ).SerializeToString()
        )
        return _field(_ACTION_REQUEST, body)


def table_event_prefix(table_id: str) -> bytes:
    """The encoded ``TableEvent.table_id`` of a table (the start of each of its events)."""
    return bot_service_pb2.TableEvent(table_id=table_id).SerializeToString()


def event_bytes(prefix: bytes, event: Message) -> bytes:
    """A ``ConnectResponse`` carrying a ``TableEvent``, as bytes (``prefix``: the table's id)."""
    return _field(_EVENT, prefix + _field(_TABLE_EVENT_EVENT, event.SerializeToString()))


_BATCH = _number(_ConnectResponse, "batch")
_BATCH_MESSAGES = _number(bot_service_pb2.ResponseBatch, "messages")


def batch_bytes(messages: list[bytes]) -> bytes:
    """A ``ConnectResponse`` carrying a ``ResponseBatch`` of encoded ``ConnectResponse``s."""
    return _field(_BATCH, b"".join([_field(_BATCH_MESSAGES, message) for message in messages]))
