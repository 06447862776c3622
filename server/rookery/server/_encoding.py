"""The hot path's encodings: messages to bots as bytes, each built once.

A table asks for an action after every move. Most of an ActionRequest does not change from one
request to the next (the ruleset, the hand's completed tricks) or comes from a small set (cards),
so those parts are encoded once, as bytes, and a request is assembled from bytes; an event is
encoded once per view and the same bytes go to every session that shares the view. The bytes are
exactly what ``convert`` plus ``SerializeToString`` give: the tests compare them byte for byte.

A session queues every message to its bot encoded (``Session.send`` encodes a message, the
hot path gives ``Session.send_encoded`` these bytes): the BotService handler's serializer
(:func:`serialize_response`) passes them through untouched.
"""

from __future__ import annotations

from google.protobuf.message import Message
from rookery.engine import (
    NUM_CARDS,
    BidMade,
    CardPlayed,
    EventBase,
    LegalActions,
    Observation,
    Passed,
    Phase,
    Ruleset,
    Suit,
    Trick,
    TrickWon,
)
from rookery.v1 import actions_pb2, bot_service_pb2, events_pb2
from rookery.wire import convert
from rookery.wire.memo import BoundedMemo
from rookery.wire.protobytes import field as _field
from rookery.wire.protobytes import field_number as _number
from rookery.wire.protobytes import fixed64_field as _fixed64
from rookery.wire.protobytes import packed_field as _packed
from rookery.wire.protobytes import scalar_field as _Scalar
from rookery.wire.protobytes import uint_field as _uint
from rookery.wire.protobytes import varint as _varint

__all__ = [
    "RequestEncoder",
    "batch_bytes",
    "event_bytes",
    "event_element",
    "event_message",
    "events_message",
    "public_event_bytes",
    "public_event_element",
    "serialize_response",
    "table_event_prefix",
]

_Observation = actions_pb2.Observation
_Legal = actions_pb2.LegalActions
_Trick = actions_pb2.Trick
_ActionRequest = bot_service_pb2.ActionRequest
_ConnectResponse = bot_service_pb2.ConnectResponse


def serialize_response(message: bytes) -> bytes:
    """The BotService response serializer: a session's messages come encoded already."""
    return message


_HAND = convert.card_field_encoder(_Observation, "hand")
_NEST = convert.card_field_encoder(_Observation, "nest")
_BURIED = convert.card_field_encoder(_Observation, "buried")
_CALLED = convert.card_field_elements(_Observation, "called_card")
_BURY_FROM = convert.card_field_encoder(_Legal, "bury_candidates")
_CALL_FROM = convert.card_field_encoder(_Legal, "callable_cards")
_PLAYABLE = convert.card_field_encoder(_Legal, "playable_cards")
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
_BATCH = _number(_ConnectResponse, "batch")
_BATCH_MESSAGES = _number(bot_service_pb2.ResponseBatch, "messages")
_OBS_SEAT = _Scalar(_Observation, "seat")
_OBS_HAND_NUMBER = _Scalar(_Observation, "hand_number")
_OBS_DEALER = _Scalar(_Observation, "dealer")
_OBS_PHASE = _Scalar(_Observation, "phase")
_OBS_CURRENT_PLAYER = _Scalar(_Observation, "current_player")
_OBS_HIGH_BID = _Scalar(_Observation, "high_bid")
_OBS_HIGH_BIDDER = _Scalar(_Observation, "high_bidder")
_OBS_BIDDER = _Scalar(_Observation, "bidder")
_OBS_BID = _Scalar(_Observation, "bid")
_OBS_TRUMP = _Scalar(_Observation, "trump")
_OBS_BURIED_COUNT = _Scalar(_Observation, "buried_count")
_OBS_PARTNER = _Scalar(_Observation, "partner")
_OBS_PARTNER_REVEALED = _Scalar(_Observation, "partner_revealed")
_OBS_POINTS_CAPTURED = _number(_Observation, "points_captured")
_OBS_SCORES = _number(_Observation, "scores")
_OBS_SIDES = _number(_Observation, "sides")
_TRICK_LEADER = _Scalar(_Trick, "leader")
_TRICK_WINNER = _Scalar(_Trick, "winner")
_TRICK_POINTS = _Scalar(_Trick, "points")
_LEGAL_PHASE = _Scalar(_Legal, "phase")
_LEGAL_SEAT = _Scalar(_Legal, "seat")
_LEGAL_CAN_PASS = _Scalar(_Legal, "can_pass")
_LEGAL_BIDS = _number(_Legal, "bids")
_LEGAL_TRUMP_SUITS = _number(_Legal, "trump_suits")
_LEGAL_BURY_COUNT = _Scalar(_Legal, "bury_count")
_REQUEST_TABLE_ID = _number(_ActionRequest, "table_id")
_REQUEST_ID = _number(_ActionRequest, "request_id")
_REQUEST_SEAT = _Scalar(_ActionRequest, "seat")
_REQUEST_DEADLINE_MS = _Scalar(_ActionRequest, "deadline_ms")
_REQUEST_BANK_MS = _Scalar(_ActionRequest, "bank_ms")
_REQUEST_LAST_SEQ = _number(_ActionRequest, "last_seq")
_REQUEST_CARD_MASKS = _number(_ActionRequest, "card_masks")
_MASKS_HAND = _number(actions_pb2.CardMasks, "hand")
_MASKS_NEST = _number(actions_pb2.CardMasks, "nest")
_MASKS_BURIED = _number(actions_pb2.CardMasks, "buried")
_MASKS_BURY_FROM = _number(actions_pb2.CardMasks, "bury_candidates")
_MASKS_CALL_FROM = _number(actions_pb2.CardMasks, "callable_cards")
_MASKS_PLAYABLE = _number(actions_pb2.CardMasks, "playable_cards")
_PHASES = {phase: int(convert.phase_to_proto(phase)) for phase in Phase}
_SUITS: dict[Suit | None, int] = {suit: int(convert.suit_to_proto(suit)) for suit in Suit}
_SUITS[None] = int(convert.suit_to_proto(None))


_PLAYED: tuple[tuple[bytes, ...], ...] = tuple(
    tuple(
        _field(
            _TRICK_CARD,
            actions_pb2.PlayedCard(seat=seat, card=convert.card_to_proto(card)).SerializeToString(),
        )
        for card in range(NUM_CARDS)
    )
    for seat in range(8)  # a ruleset seats at most 6
)
"""``_PLAYED[seat][card]``: one card of a trick, encoded as an element of ``Trick.cards``."""


def _auction_entry(key: tuple[int, int]) -> bytes:
    seat, amount = key
    return _field(_AUCTION, actions_pb2.AuctionEntry(seat=seat, amount=amount).SerializeToString())


_AUCTION_ENTRIES: BoundedMemo[tuple[int, int], bytes] = BoundedMemo(65536, _auction_entry)
"""An auction entry encoded as an element of ``Observation.auction``, by (seat, amount) (a hit:
75× faster than encoding)."""


def _trick(trick: Trick) -> bytes:
    """A ``Trick`` message's bytes (fields in number order: leader, cards, winner, points)."""
    return b"".join(
        [
            _TRICK_LEADER[trick.leader],
            *[_PLAYED[seat][card] for seat, card in trick.cards],
            _TRICK_WINNER[trick.winner],
            _TRICK_POINTS[trick.points],
        ]
    )


def _legal(legal: LegalActions) -> bytes:
    """A ``LegalActions`` message's bytes (as ``convert.legal_actions_to_proto``)."""
    phase = legal.phase
    if phase is _PLAY:  # most requests: the phase, the seat and the playable cards
        return _PLAY_HEADS[legal.player] + _PLAYABLE(legal.play)
    parts = [
        _LEGAL_PHASE[_PHASES[phase]],
        _LEGAL_SEAT[legal.player],
        _LEGAL_CAN_PASS[legal.can_pass],
        _packed(_LEGAL_BIDS, legal.bids),
        _packed(_LEGAL_TRUMP_SUITS, tuple([_SUITS[suit] for suit in legal.suits])),
    ]
    if legal.bury_from:
        parts.append(_BURY_FROM(legal.bury_from))
    parts.append(_LEGAL_BURY_COUNT[legal.bury_count])
    if legal.call_from:
        parts.append(_CALL_FROM(legal.call_from))
    if legal.play:
        parts.append(_PLAYABLE(legal.play))
    return b"".join(parts)


def _card_masks(observation: Observation, legal: LegalActions) -> bytes:
    """A ``CardMasks`` message's bytes (as ``convert.card_masks_to_proto``)."""
    return b"".join(
        (
            _fixed64(_MASKS_HAND, observation.hand),
            _fixed64(_MASKS_NEST, observation.nest),
            _fixed64(_MASKS_BURIED, observation.buried),
            _fixed64(_MASKS_BURY_FROM, legal.bury_from),
            _fixed64(_MASKS_CALL_FROM, legal.call_from),
            _fixed64(_MASKS_PLAYABLE, legal.play),
        )
    )


_PLAY = Phase.PLAY
_PLAY_HEADS: BoundedMemo[int, bytes] = BoundedMemo(
    64, lambda seat: _LEGAL_PHASE[_PHASES[_PLAY]] + _LEGAL_SEAT[seat]
)
"""By seat: the fields of a PLAY phase's ``LegalActions`` before its cards."""


class RequestEncoder:
    """One table's (one game's) ActionRequest encoder: the ruleset and each completed trick
    encoded once."""

    __slots__ = (
        "_auction",
        "_hand_number",
        "_joined",
        "_last_trick",
        "_ruleset",
        "_table_id",
        "_tail",
        "_tricks",
    )

    def __init__(self, ruleset: Ruleset) -> None:
        self._ruleset = _field(_RULESET, convert.ruleset_to_proto(ruleset).SerializeToString())
        self._hand_number = -1
        self._tricks: list[bytes] = []
        self._joined = b""
        self._last_trick: Trick | None = None
        self._table_id = ("", b"")
        self._auction: tuple[tuple[tuple[int, int], ...], bytes] = ((), b"")
        self._tail: tuple[tuple[tuple[int, ...], ...], bytes] = ((), b"")

    def _completed_tricks(self, observation: Observation) -> bytes:
        """The encoded ``completed_tricks`` of the hand, new tricks encoded as they complete."""
        tricks = observation.completed_tricks
        encoded = self._tricks
        known = len(encoded)
        if (
            observation.hand_number != self._hand_number
            or len(tricks) < known
            or (
                known
                and tricks[known - 1] is not self._last_trick  # the engine's own, usually
                and tricks[known - 1] != self._last_trick
            )
        ):
            self._hand_number = observation.hand_number
            encoded.clear()
            known = 0
            self._joined = b""
        if len(tricks) > known:
            encoded += [_field(_COMPLETED_TRICK, _trick(trick)) for trick in tricks[known:]]
            self._joined = b"".join(encoded)
        if tricks:
            self._last_trick = tricks[-1]
        return self._joined

    def observation(self, observation: Observation) -> bytes:
        """An ``Observation`` message's bytes (as ``convert.observation_to_proto``): its fields
        in number order, each encoded as protobuf does (zero values omitted)."""
        o = observation
        parts = [
            self._ruleset,
            _OBS_SEAT[o.seat],
            _OBS_HAND_NUMBER[o.hand_number],
            _OBS_DEALER[o.dealer],
            _OBS_PHASE[_PHASES[o.phase]],
            _OBS_CURRENT_PLAYER[o.current_player],
        ]
        parts.append(_HAND(o.hand))
        if o.nest:
            parts.append(_NEST(o.nest))
        if o.auction:
            parts.append(self._auction_bytes(o.auction))
        parts += (
            _OBS_HIGH_BID[o.high_bid],
            _OBS_HIGH_BIDDER[o.high_bidder],
            _OBS_BIDDER[o.bidder],
            _OBS_BID[o.bid],
            _OBS_TRUMP[_SUITS[o.trump]],
        )
        if o.buried:
            parts.append(_BURIED(o.buried))
        parts.append(_OBS_BURIED_COUNT[o.buried_count])
        if o.called_card >= 0:
            parts.append(_CALLED[o.called_card])
        parts += (
            _OBS_PARTNER[o.partner],
            _OBS_PARTNER_REVEALED[convert.is_partner_revealed(o)],
            _field(_CURRENT_TRICK, _trick(o.current_trick)),
            self._completed_tricks(o),
            self._tail_bytes(o.points_captured, o.scores, o.sides),
        )
        return b"".join(parts)

    def _auction_bytes(self, auction: tuple[tuple[int, int], ...]) -> bytes:
        """The encoded auction entries, remembered: after the auction they repeat to the end of
        the hand."""
        known, encoded = self._auction
        if auction != known:
            encoded = b"".join([_AUCTION_ENTRIES[entry] for entry in auction])
            self._auction = (auction, encoded)
        return encoded

    def _tail_bytes(
        self, points: tuple[int, ...], scores: tuple[int, ...], sides: tuple[int, ...]
    ) -> bytes:
        """The encoded points captured, scores and sides, remembered (they change by tricks)."""
        known, encoded = self._tail
        if (points, scores, sides) != known:
            encoded = b"".join(
                [
                    _packed(_OBS_POINTS_CAPTURED, points),
                    _packed(_OBS_SCORES, scores),
                    _packed(_OBS_SIDES, sides),
                ]
            )
            self._tail = ((points, scores, sides), encoded)
        return encoded

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
        masks: bool = False,
    ) -> bytes:
        """A ``ConnectResponse`` carrying an ``ActionRequest``, as bytes; with ``masks``, its
        card sets as ``card_masks`` too (for a session whose Hello asked: ``Hello.card_masks``)."""
        known_id, encoded_id = self._table_id
        if table_id != known_id:
            encoded_id = _field(_REQUEST_TABLE_ID, table_id.encode()) if table_id else b""
            self._table_id = (table_id, encoded_id)
        observed = self.observation(observation)
        allowed = _legal(legal)
        body = b"".join(
            [
                encoded_id,
                _uint(_REQUEST_ID, request_id),
                _REQUEST_SEAT[seat],
                _OBSERVATION_TAG,
                _varint(len(observed)),
                observed,
                _LEGAL_ACTIONS_TAG,
                _varint(len(allowed)),
                allowed,
                _REQUEST_DEADLINE_MS[deadline_ms],
                _REQUEST_BANK_MS[bank_ms],
                _uint(_REQUEST_LAST_SEQ, last_seq),
                _field(_REQUEST_CARD_MASKS, _card_masks(observation, legal)) if masks else b"",
            ]
        )
        return b"".join((_ACTION_REQUEST_TAG, _varint(len(body)), body))


_OBSERVATION_TAG = _varint(_OBSERVATION << 3 | 2)
_LEGAL_ACTIONS_TAG = _varint(_LEGAL_ACTIONS << 3 | 2)
_ACTION_REQUEST_TAG = _varint(_ACTION_REQUEST << 3 | 2)


def table_event_prefix(table_id: str) -> bytes:
    """The encoded ``TableEvent.table_id`` of a table (the start of each of its events)."""
    return bot_service_pb2.TableEvent(table_id=table_id).SerializeToString()


_TABLE_EVENTS = _number(_ConnectResponse, "table_events")
# A TableEvents is a TableEvent whose event repeats: the same table id field, and each event an
# element of the same field number, so one event's bytes serve both messages.
assert _number(bot_service_pb2.TableEvents, "table_id") == _number(
    bot_service_pb2.TableEvent, "table_id"
)
assert _number(bot_service_pb2.TableEvents, "events") == _TABLE_EVENT_EVENT


def event_element(event: Message) -> bytes:
    """An event as the ``event`` field of a ``TableEvent`` (and so as one element of
    ``TableEvents.events``)."""
    return _field(_TABLE_EVENT_EVENT, event.SerializeToString())


def event_message(prefix: bytes, element: bytes) -> bytes:
    """A ``ConnectResponse`` carrying a ``TableEvent`` (``prefix``: the table's id, ``element``:
    as :func:`event_element` or :func:`public_event_element` give it), as bytes."""
    return _field(_EVENT, prefix + element)


def events_message(prefix: bytes, elements: list[bytes]) -> bytes:
    """A ``ConnectResponse`` carrying a ``TableEvents`` of these events, in order, as bytes."""
    return _field(_TABLE_EVENTS, prefix + b"".join(elements))


def event_bytes(prefix: bytes, event: Message) -> bytes:
    """A ``ConnectResponse`` carrying a ``TableEvent``, as bytes (``prefix``: the table's id)."""
    return event_message(prefix, event_element(event))


_Event = events_pb2.Event
_EVENT_SEQ = _number(_Event, "seq")
_EVENT_HAND_NUMBER = _Scalar(_Event, "hand_number")


def _kind_bytes(kind: str, message: Message) -> bytes:
    """One ``Event.kind`` field (its tag, length and message)."""
    return _field(_number(_Event, kind), message.SerializeToString())


_CARD_PLAYED: tuple[tuple[bytes, ...], ...] = tuple(
    tuple(
        _kind_bytes(
            "card_played",
            events_pb2.CardPlayed(seat=seat, card=convert.card_to_proto(card)),
        )
        for card in range(NUM_CARDS)
    )
    for seat in range(8)  # a ruleset seats at most 6
)
"""``_CARD_PLAYED[seat][card]``: the ``Event.card_played`` field of that play."""
_TRICK_WON: BoundedMemo[tuple[int, int, int], bytes] = BoundedMemo(
    65536,
    lambda key: _kind_bytes(
        "trick_won", events_pb2.TrickWon(seat=key[0], points=key[1], trick_index=key[2])
    ),
)
"""The ``Event.trick_won`` field, by (seat, points, trick index)."""
_BID_MADE: BoundedMemo[tuple[int, int], bytes] = BoundedMemo(
    65536,
    lambda key: _kind_bytes("bid_made", events_pb2.BidMade(seat=key[0], amount=key[1])),
)
"""The ``Event.bid_made`` field, by (seat, amount)."""
_PASSED: BoundedMemo[int, bytes] = BoundedMemo(
    64, lambda seat: _kind_bytes("passed", events_pb2.Passed(seat=seat))
)
"""The ``Event.passed`` field, by seat."""


def public_event_element(event: EventBase) -> bytes | None:
    """The most frequent events (a card played, a trick won, a bid, a pass: public, the same for
    every seat), as ``event_element`` gives them from ``convert.event_to_proto(event, ruleset,
    None)``, from bytes encoded once; ``None`` for any other event (encode its proto)."""
    if isinstance(event, CardPlayed):
        body = _CARD_PLAYED[event.seat][event.card]
    elif isinstance(event, TrickWon):
        body = _TRICK_WON[event.seat, event.points, event.trick_index]
    elif isinstance(event, BidMade):
        body = _BID_MADE[event.seat, event.amount]
    elif isinstance(event, Passed):
        body = _PASSED[event.seat]
    else:
        return None
    encoded = b"".join((_uint(_EVENT_SEQ, event.seq), _EVENT_HAND_NUMBER[event.hand_number], body))
    return _field(_TABLE_EVENT_EVENT, encoded)


def public_event_bytes(prefix: bytes, event: EventBase) -> bytes | None:
    """:func:`public_event_element` as a ``ConnectResponse`` carrying its ``TableEvent``."""
    element = public_event_element(event)
    return None if element is None else event_message(prefix, element)


def batch_bytes(messages: list[bytes]) -> bytes:
    """A ``ConnectResponse`` carrying a ``ResponseBatch`` of encoded ``ConnectResponse``s."""
    return _field(_BATCH, b"".join([_field(_BATCH_MESSAGES, message) for message in messages]))
