"""The SDK's hot path from the server: the Connect stream's messages read from their bytes.

Every message a bot reads arrives as a ``ConnectResponse``; most are ``ActionRequest``\\ s (or
batches of them), and for each the SDK needs an engine ``Observation`` and ``LegalActions``.
Parsing the whole request with protobuf and converting it field by field (``wire.convert``)
reads every card twice (the repeated ``Card`` fields and their ``card_masks``) and builds a
message object per card, trick and auction entry. Here a request is read once from its bytes:
the card sets from their masks, the ruleset, each trick and the called card looked up by their
bytes (decoded by ``convert`` the first time), the rest as integers.

Only the regular case is read by hand: one message per ``ConnectResponse``, each submessage
once, known fields with their wire types, an ``ActionRequest`` with its observation, legal
actions and card masks, and values ``convert`` accepts. Anything else (a server without card
masks, a value ``convert`` refuses, a malformed message) is read as before: protobuf parses the
whole response and ``convert`` decodes it, with its own errors. The result is the same either
way: the tests compare both on random games. One leniency: the repeated card fields beside their
masks are skipped, not parsed, so bytes protobuf would refuse inside them go unseen.
"""

from __future__ import annotations

from typing import Any, Final

from rookery.engine import LegalActions, Observation, Phase, Ruleset, Suit, Trick, new_observation
from rookery.v1 import actions_pb2, bot_service_pb2, cards_pb2, ruleset_pb2
from rookery.wire import convert
from rookery.wire.memo import BoundedMemo
from rookery.wire.protobytes import field_number

__all__ = ["Request", "Response", "read_response"]

_ConnectResponse = bot_service_pb2.ConnectResponse
_ActionRequest = bot_service_pb2.ActionRequest
_Observation = actions_pb2.Observation
_LegalActions = actions_pb2.LegalActions
_CardMasks = actions_pb2.CardMasks

_VARINT: Final = 0
_FIXED64: Final = 1
_LENGTH: Final = 2
_FIXED32: Final = 5

_BATCH: Final = 9
_ACTION_REQUEST: Final = 4
_BATCH_MESSAGES: Final = 1
_KINDS: Final[dict[int, tuple[str, Any]]] = {
    field.number: (field.name, type(getattr(_ConnectResponse(), field.name)))
    for field in _ConnectResponse.DESCRIPTOR.oneofs_by_name["message"].fields
}
"""The ``ConnectResponse`` oneof by field number: its name and message class."""

_R_TABLE_ID: Final = 1
_R_REQUEST_ID: Final = 2
_R_SEAT: Final = 3
_R_OBSERVATION: Final = 4
_R_LEGAL: Final = 5
_R_DEADLINE: Final = 6
_R_BANK: Final = 7
_R_LAST_SEQ: Final = 8
_R_MASKS: Final = 20

_O_RULESET: Final = 1
_O_SEAT: Final = 2
_O_HAND_NUMBER: Final = 3
_O_DEALER: Final = 4
_O_PHASE: Final = 5
_O_CURRENT_PLAYER: Final = 6
_O_HAND: Final = 7
_O_NEST: Final = 8
_O_AUCTION: Final = 9
_O_HIGH_BID: Final = 10
_O_HIGH_BIDDER: Final = 11
_O_BIDDER: Final = 12
_O_BID: Final = 13
_O_TRUMP: Final = 14
_O_BURIED: Final = 15
_O_BURIED_COUNT: Final = 16
_O_CALLED_CARD: Final = 17
_O_PARTNER: Final = 18
_O_PARTNER_REVEALED: Final = 19
_O_CURRENT_TRICK: Final = 20
_O_COMPLETED_TRICKS: Final = 21
_O_POINTS_CAPTURED: Final = 22
_O_SCORES: Final = 23
_O_SIDES: Final = 24

_E_SEAT: Final = 1
_E_AMOUNT: Final = 2

_L_PHASE: Final = 1
_L_SEAT: Final = 2
_L_CAN_PASS: Final = 3
_L_BIDS: Final = 4
_L_TRUMP_SUITS: Final = 5
_L_BURY_CANDIDATES: Final = 6
_L_BURY_COUNT: Final = 7
_L_CALLABLE: Final = 8
_L_PLAYABLE: Final = 9

_M_HAND: Final = 1
_M_NEST: Final = 2
_M_BURIED: Final = 3
_M_BURY: Final = 4
_M_CALL: Final = 5
_M_PLAY: Final = 6


def _check_field_numbers() -> None:
    """The field numbers above are the contract's (they are literals so that the compiled reader
    compares integers, not looks them up)."""
    for number, message, name in _NUMBERS:
        if field_number(message, name) != number:
            raise AssertionError(f"{message.DESCRIPTOR.name}.{name} is not field {number}")


_NUMBERS: Final[list[tuple[int, Any, str]]] = [
    (_BATCH, _ConnectResponse, "batch"),
    (_ACTION_REQUEST, _ConnectResponse, "action_request"),
    (_BATCH_MESSAGES, bot_service_pb2.ResponseBatch, "messages"),
    (_R_TABLE_ID, _ActionRequest, "table_id"),
    (_R_REQUEST_ID, _ActionRequest, "request_id"),
    (_R_SEAT, _ActionRequest, "seat"),
    (_R_OBSERVATION, _ActionRequest, "observation"),
    (_R_LEGAL, _ActionRequest, "legal_actions"),
    (_R_DEADLINE, _ActionRequest, "deadline_ms"),
    (_R_BANK, _ActionRequest, "bank_ms"),
    (_R_LAST_SEQ, _ActionRequest, "last_seq"),
    (_R_MASKS, _ActionRequest, "card_masks"),
    (_O_RULESET, _Observation, "ruleset"),
    (_O_SEAT, _Observation, "seat"),
    (_O_HAND_NUMBER, _Observation, "hand_number"),
    (_O_DEALER, _Observation, "dealer"),
    (_O_PHASE, _Observation, "phase"),
    (_O_CURRENT_PLAYER, _Observation, "current_player"),
    (_O_HAND, _Observation, "hand"),
    (_O_NEST, _Observation, "nest"),
    (_O_AUCTION, _Observation, "auction"),
    (_O_HIGH_BID, _Observation, "high_bid"),
    (_O_HIGH_BIDDER, _Observation, "high_bidder"),
    (_O_BIDDER, _Observation, "bidder"),
    (_O_BID, _Observation, "bid"),
    (_O_TRUMP, _Observation, "trump"),
    (_O_BURIED, _Observation, "buried"),
    (_O_BURIED_COUNT, _Observation, "buried_count"),
    (_O_CALLED_CARD, _Observation, "called_card"),
    (_O_PARTNER, _Observation, "partner"),
    (_O_PARTNER_REVEALED, _Observation, "partner_revealed"),
    (_O_CURRENT_TRICK, _Observation, "current_trick"),
    (_O_COMPLETED_TRICKS, _Observation, "completed_tricks"),
    (_O_POINTS_CAPTURED, _Observation, "points_captured"),
    (_O_SCORES, _Observation, "scores"),
    (_O_SIDES, _Observation, "sides"),
    (_E_SEAT, actions_pb2.AuctionEntry, "seat"),
    (_E_AMOUNT, actions_pb2.AuctionEntry, "amount"),
    (_L_PHASE, _LegalActions, "phase"),
    (_L_SEAT, _LegalActions, "seat"),
    (_L_CAN_PASS, _LegalActions, "can_pass"),
    (_L_BIDS, _LegalActions, "bids"),
    (_L_TRUMP_SUITS, _LegalActions, "trump_suits"),
    (_L_BURY_CANDIDATES, _LegalActions, "bury_candidates"),
    (_L_BURY_COUNT, _LegalActions, "bury_count"),
    (_L_CALLABLE, _LegalActions, "callable_cards"),
    (_L_PLAYABLE, _LegalActions, "playable_cards"),
    (_M_HAND, _CardMasks, "hand"),
    (_M_NEST, _CardMasks, "nest"),
    (_M_BURIED, _CardMasks, "buried"),
    (_M_BURY, _CardMasks, "bury_candidates"),
    (_M_CALL, _CardMasks, "callable_cards"),
    (_M_PLAY, _CardMasks, "playable_cards"),
]
_check_field_numbers()

_PHASES: Final[dict[int, Phase]] = {convert.phase_to_proto(phase): phase for phase in Phase}
_SUITS: Final[dict[int, Suit]] = {int(convert.suit_to_proto(suit)): suit for suit in Suit}
_NO_TRICK: Final = Trick(-1, (), -1, 0)


class _Irregular(Exception):
    """Bytes this reader leaves to protobuf and ``convert``."""


class Request:
    """What the SDK uses of an ``ActionRequest``, read from its bytes."""

    __slots__ = ("deadline_ms", "legal", "observation", "request_id", "table_id")

    def __init__(
        self,
        table_id: str,
        request_id: int,
        deadline_ms: int,
        observation: Observation,
        legal: LegalActions,
    ) -> None:
        self.table_id = table_id
        self.request_id = request_id
        self.deadline_ms = deadline_ms
        self.observation = observation
        self.legal = legal


class Response:
    """One ``ConnectResponse`` read: its messages in order as ``(oneof kind, message)``.

    A batch gives its messages (``batched``); a message alone gives itself. An action request
    read by hand is a :class:`Request`; every other message (and a request read by protobuf) is
    the protobuf message of its kind. ``kind`` is ``None`` for an empty ``ConnectResponse``.
    """

    __slots__ = ("batched", "messages")

    def __init__(self, batched: bool, messages: list[tuple[str | None, Any]]) -> None:
        self.batched = batched
        self.messages = messages


def read_response(data: bytes) -> Response:
    """The Connect stream's response deserializer: ``data``, one ``ConnectResponse``, read.

    Raises protobuf's ``DecodeError`` for bytes protobuf refuses.
    """
    try:
        return _read_response(data)
    except Exception:  # irregular: protobuf and convert decide, as without this reader
        return _parsed_response(data)


def _parsed_response(data: bytes) -> Response:
    message = _ConnectResponse.FromString(data)
    kind = message.WhichOneof("message")
    if kind == "batch":
        return Response(
            True,
            [
                (inner.WhichOneof("message"), _inner(inner, inner.WhichOneof("message")))
                for inner in message.batch.messages
            ],
        )
    return Response(False, [(kind, _inner(message, kind))])


def _inner(message: Any, kind: str | None) -> Any:
    return None if kind is None else getattr(message, kind)


# Reading bytes ---------------------------------------------------------------------------------


def _varint(data: bytes, at: int, end: int) -> tuple[int, int]:
    """The varint at ``at`` and the position after it."""
    value = 0
    shift = 0
    while True:
        if at >= end or shift > 63:
            raise _Irregular
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            if value >> 64:
                raise _Irregular
            return value, at
        shift += 7


def _int32(value: int) -> int:
    """An ``int32`` field's value from its varint (the low 32 bits, signed)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def _length(data: bytes, at: int, end: int) -> tuple[int, int]:
    """A length-delimited field's payload: (start, end)."""
    size, at = _varint(data, at, end)
    stop = at + size
    if stop > end:
        raise _Irregular
    return at, stop


def _skip(data: bytes, at: int, end: int, wire_type: int) -> int:
    """The position after an unknown field's value."""
    if wire_type == _VARINT:
        return _varint(data, at, end)[1]
    if wire_type == _LENGTH:
        return _length(data, at, end)[1]
    if wire_type == _FIXED64:
        stop = at + 8
    elif wire_type == _FIXED32:
        stop = at + 4
    else:  # groups: never in this protocol
        raise _Irregular
    if stop > end:
        raise _Irregular
    return stop


def _ints(data: bytes, at: int, end: int, wire_type: int, into: list[int]) -> int:
    """A repeated ``int32`` field's values, packed or not, appended to ``into``."""
    if wire_type == _VARINT:
        value, at = _varint(data, at, end)
        into.append(_int32(value))
        return at
    if wire_type != _LENGTH:
        raise _Irregular
    start, stop = _length(data, at, end)
    while start < stop:
        value, start = _varint(data, start, stop)
        into.append(_int32(value))
    return stop


# The envelope ----------------------------------------------------------------------------------


def _read_response(data: bytes) -> Response:
    end = len(data)
    number, start, stop = _only_field(data, 0, end)
    if number != _BATCH:
        return Response(False, [_message(data, number, start, stop)])
    messages: list[tuple[str | None, Any]] = []
    at = start
    while at < stop:
        key, at = _varint(data, at, stop)
        if key != _BATCH_MESSAGES << 3 | _LENGTH:
            raise _Irregular
        inner_start, at = _length(data, at, stop)
        inner, first, last = _only_field(data, inner_start, at)
        if inner == _BATCH:
            raise _Irregular
        messages.append(_message(data, inner, first, last))
    return Response(True, messages)


def _only_field(data: bytes, at: int, end: int) -> tuple[int, int, int]:
    """The one field of a ``ConnectResponse`` in ``data[at:end]``: (number, start, end)."""
    key, at = _varint(data, at, end)
    number = key >> 3
    if key & 7 != _LENGTH or number not in _KINDS:
        raise _Irregular
    start, stop = _length(data, at, end)
    if stop != end:
        raise _Irregular
    return number, start, stop


def _message(data: bytes, number: int, start: int, end: int) -> tuple[str | None, Any]:
    kind, cls = _KINDS[number]
    if number == _ACTION_REQUEST:
        return kind, _request(data, start, end)
    return kind, cls.FromString(data[start:end])


# An ActionRequest ------------------------------------------------------------------------------
# Each reader walks its message's fields once, comparing field numbers as integers: a known
# field with another wire type than the contract's is irregular (protobuf would keep it as an
# unknown field), an unknown field is skipped, as protobuf does.


def _request(data: bytes, at: int, end: int) -> Request:
    table_id = ""
    request_id = deadline_ms = 0
    observation_at = observation_end = legal_at = legal_end = masks_at = masks_end = -1
    while at < end:
        key, at = _varint(data, at, end)
        number = key >> 3
        wire_type = key & 7
        if number in (_R_OBSERVATION, _R_LEGAL, _R_MASKS):
            if wire_type != _LENGTH:
                raise _Irregular
            start, at = _length(data, at, end)
            if number == _R_OBSERVATION:
                if observation_at >= 0:
                    raise _Irregular  # protobuf would merge the two
                observation_at, observation_end = start, at
            elif number == _R_LEGAL:
                if legal_at >= 0:
                    raise _Irregular
                legal_at, legal_end = start, at
            else:
                if masks_at >= 0:
                    raise _Irregular
                masks_at, masks_end = start, at
        elif number == _R_TABLE_ID:
            if wire_type != _LENGTH:
                raise _Irregular
            start, at = _length(data, at, end)
            table_id = data[start:at].decode()
        elif number in (_R_REQUEST_ID, _R_DEADLINE):
            if wire_type != _VARINT:
                raise _Irregular
            value, at = _varint(data, at, end)
            if number == _R_REQUEST_ID:
                request_id = value
            else:
                deadline_ms = _int32(value)
        elif number in (_R_SEAT, _R_BANK, _R_LAST_SEQ):
            if wire_type != _VARINT:
                raise _Irregular
            at = _varint(data, at, end)[1]
        else:
            at = _skip(data, at, end, wire_type)
    if observation_at < 0 or legal_at < 0 or masks_at < 0:
        raise _Irregular  # convert's errors, or a server without card masks
    masks = _masks(data, masks_at, masks_end)
    return Request(
        table_id,
        request_id,
        deadline_ms,
        _observation(data, observation_at, observation_end, masks),
        _legal(data, legal_at, legal_end, masks),
    )


class _Masks:
    """A request's ``CardMasks``."""

    def __init__(self) -> None:
        self.hand = 0
        self.nest = 0
        self.buried = 0
        self.bury_from = 0
        self.call_from = 0
        self.play = 0


def _masks(data: bytes, at: int, end: int) -> _Masks:
    masks = _Masks()
    while at < end:
        key, at = _varint(data, at, end)
        number = key >> 3
        wire_type = key & 7
        if _M_HAND <= number <= _M_PLAY:
            if wire_type != _FIXED64 or at + 8 > end:
                raise _Irregular
            bits = convert.mask_from_bits(int.from_bytes(data[at : at + 8], "little"))
            at += 8
            if number == _M_HAND:
                masks.hand = bits
            elif number == _M_NEST:
                masks.nest = bits
            elif number == _M_BURIED:
                masks.buried = bits
            elif number == _M_BURY:
                masks.bury_from = bits
            elif number == _M_CALL:
                masks.call_from = bits
            else:
                masks.play = bits
        else:
            at = _skip(data, at, end, wire_type)
    return masks


# An Observation --------------------------------------------------------------------------------

_RULESETS: Final[BoundedMemo[bytes, Ruleset]] = BoundedMemo(
    64, lambda raw: convert.ruleset_from_proto(ruleset_pb2.Ruleset.FromString(raw))
)
"""Rulesets by their bytes (every observation carries one)."""
_TRICKS: Final[BoundedMemo[bytes, Trick]] = BoundedMemo(
    4096, lambda raw: convert.trick_from_proto(actions_pb2.Trick.FromString(raw))
)
"""Tricks by their bytes (a completed trick comes again in every later observation of its
hand)."""
_CARDS: Final[BoundedMemo[bytes, int]] = BoundedMemo(
    256, lambda raw: convert.card_from_proto(cards_pb2.Card.FromString(raw))
)
"""Cards by their bytes (the called card)."""


def _observation(data: bytes, at: int, end: int, masks: _Masks) -> Observation:
    ruleset: Ruleset | None = None
    seat = hand_number = dealer = phase_value = current_player = 0
    high_bid = high_bidder = bidder = bid = trump_value = buried_count = partner = 0
    auction: list[tuple[int, int]] = []
    called_card = -1
    current_trick: Trick | None = None
    tricks: list[Trick] = []
    points: list[int] = []
    scores: list[int] = []
    sides: list[int] = []
    while at < end:
        key, at = _varint(data, at, end)
        number = key >> 3
        wire_type = key & 7
        if number == _O_COMPLETED_TRICKS:
            if wire_type != _LENGTH:
                raise _Irregular
            start, at = _length(data, at, end)
            tricks.append(_TRICKS[data[start:at]])
        elif number in (_O_HAND, _O_NEST, _O_BURIED):
            if wire_type != _LENGTH:
                raise _Irregular
            at = _length(data, at, end)[1]  # read from the card masks
        elif number == _O_AUCTION:
            if wire_type != _LENGTH:
                raise _Irregular
            start, at = _length(data, at, end)
            auction.append(_entry(data, start, at))
        elif number == _O_CURRENT_TRICK:
            if wire_type != _LENGTH or current_trick is not None:
                raise _Irregular
            start, at = _length(data, at, end)
            current_trick = _TRICKS[data[start:at]]
        elif number == _O_RULESET:
            if wire_type != _LENGTH or ruleset is not None:
                raise _Irregular
            start, at = _length(data, at, end)
            ruleset = _RULESETS[data[start:at]]
        elif number == _O_CALLED_CARD:
            if wire_type != _LENGTH or called_card >= 0:
                raise _Irregular
            start, at = _length(data, at, end)
            called_card = _CARDS[data[start:at]]
        elif number == _O_POINTS_CAPTURED:
            at = _ints(data, at, end, wire_type, points)
        elif number == _O_SCORES:
            at = _ints(data, at, end, wire_type, scores)
        elif number == _O_SIDES:
            at = _ints(data, at, end, wire_type, sides)
        elif _O_SEAT <= number <= _O_PARTNER_REVEALED:  # the scalars (every card field is above)
            if wire_type != _VARINT:
                raise _Irregular
            raw, at = _varint(data, at, end)
            value = _int32(raw)
            if number == _O_SEAT:
                seat = value
            elif number == _O_HAND_NUMBER:
                hand_number = value
            elif number == _O_DEALER:
                dealer = value
            elif number == _O_PHASE:
                phase_value = value
            elif number == _O_CURRENT_PLAYER:
                current_player = value
            elif number == _O_HIGH_BID:
                high_bid = value
            elif number == _O_HIGH_BIDDER:
                high_bidder = value
            elif number == _O_BIDDER:
                bidder = value
            elif number == _O_BID:
                bid = value
            elif number == _O_TRUMP:
                trump_value = value
            elif number == _O_BURIED_COUNT:
                buried_count = value
            elif number == _O_PARTNER:
                partner = value
            # partner_revealed: not an engine field
        else:
            at = _skip(data, at, end, wire_type)
    if ruleset is None or not -1 <= seat < ruleset.players:
        raise _Irregular
    phase = _PHASES.get(phase_value)
    if phase is None:
        raise _Irregular
    trump: Suit | None = None
    if trump_value:
        trump = _SUITS.get(trump_value)
        if trump is None:
            raise _Irregular
    return new_observation(
        ruleset,
        seat,
        hand_number,
        dealer,
        phase,
        current_player,
        masks.hand,
        masks.nest,
        tuple(auction),
        high_bid,
        high_bidder,
        bidder,
        bid,
        trump,
        masks.buried,
        buried_count,
        called_card,
        partner,
        _NO_TRICK if current_trick is None else current_trick,
        tuple(tricks),
        tuple(points),
        tuple(scores),
        tuple(sides),
    )


def _entry(data: bytes, at: int, end: int) -> tuple[int, int]:
    seat = amount = 0
    while at < end:
        key, at = _varint(data, at, end)
        number = key >> 3
        wire_type = key & 7
        if number in (_E_SEAT, _E_AMOUNT):
            if wire_type != _VARINT:
                raise _Irregular
            value, at = _varint(data, at, end)
            if number == _E_SEAT:
                seat = _int32(value)
            else:
                amount = _int32(value)
        else:
            at = _skip(data, at, end, wire_type)
    return seat, amount


# LegalActions ----------------------------------------------------------------------------------


def _legal(data: bytes, at: int, end: int, masks: _Masks) -> LegalActions:
    phase_value = seat = bury_count = 0
    can_pass = False
    bids: list[int] = []
    suits: list[int] = []
    while at < end:
        key, at = _varint(data, at, end)
        number = key >> 3
        wire_type = key & 7
        if number == _L_BIDS:
            at = _ints(data, at, end, wire_type, bids)
        elif number == _L_TRUMP_SUITS:
            at = _ints(data, at, end, wire_type, suits)
        elif number in (_L_BURY_CANDIDATES, _L_CALLABLE, _L_PLAYABLE):
            if wire_type != _LENGTH:
                raise _Irregular
            at = _length(data, at, end)[1]  # read from the card masks
        elif number in (_L_PHASE, _L_SEAT, _L_BURY_COUNT):
            if wire_type != _VARINT:
                raise _Irregular
            value, at = _varint(data, at, end)
            if number == _L_PHASE:
                phase_value = _int32(value)
            elif number == _L_SEAT:
                seat = _int32(value)
            else:
                bury_count = _int32(value)
        elif number == _L_CAN_PASS:
            if wire_type != _VARINT:
                raise _Irregular
            value, at = _varint(data, at, end)
            can_pass = value != 0
        else:
            at = _skip(data, at, end, wire_type)
    phase = _PHASES.get(phase_value)
    if phase is None:
        raise _Irregular
    for suit in suits:
        if suit not in _SUITS:
            raise _Irregular
    return LegalActions(
        phase,
        seat,
        can_pass=can_pass,
        bids=tuple(bids),
        bury_from=masks.bury_from,
        bury_count=bury_count,
        call_from=masks.call_from,
        play=masks.play,
    )
