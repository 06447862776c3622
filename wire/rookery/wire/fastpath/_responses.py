"""The ``ConnectResponse`` envelope, both ways: the server's batches and the SDK's reader.

The server queues every message to a bot encoded (requests from :class:`RequestEncoder`, events
from the event encoders), so its stream's serializer passes bytes through and a batch is one
join. A bot's SDK reads each ``ConnectResponse`` (:func:`read_response`): where the native core
is built, the core splits it into its messages and reads each regular action request into plain
values (``rookery_core.RequestReader``, :func:`read_request_bytes` makes the engine's values of
them), the other messages parsed by protobuf one by one; elsewhere, or for what the core does not
read, protobuf parses it and each regular action request is read straight into engine values
(``read_request``). An irregular one is left as its message, for ``convert`` to decode with its
errors.
"""

from __future__ import annotations

from typing import Any, Final

from rookery.engine import LegalActions, build_info, new_observation, new_trick
from rookery.v1 import bot_service_pb2
from rookery.v1 import field_numbers as fields

from ..errors import WireError
from ._cards import CARD_BYTES
from ._protobuf import Irregular, field
from ._requests import (
    _NO_TRICK,
    _PHASES,
    _PLAY,
    _RULESETS,
    _SUITS,
    HandsRead,
    Request,
    read_request,
)

_ConnectResponse = bot_service_pb2.ConnectResponse
_ActionRequest = bot_service_pb2.ActionRequest
_BATCH: Final = fields.ConnectResponse.BATCH
_ACTION_REQUEST: Final = fields.ConnectResponse.ACTION_REQUEST
_KINDS: Final[dict[int, tuple[str, Any]]] = {
    one.number: (one.name, type(getattr(_ConnectResponse(), one.name)))
    for one in _ConnectResponse.DESCRIPTOR.oneofs_by_name["message"].fields
}
"""Each message of the ``ConnectResponse`` oneof by field number: its name and message class."""


def _native_reader() -> Any:
    """The native core's reader of the server's messages, where the engine runs on the core
    (``None``: no core, one built before the reader, or ``ROOKERY_PURE_ENGINE`` set)."""
    if build_info().kind != "core":
        return None
    try:
        from rookery_core import RequestReader
    except ImportError:
        return None
    return RequestReader(list(CARD_BYTES), _PHASES, _SUITS)


NATIVE_READER: Any = _native_reader()
"""The native core's ``RequestReader`` (``None`` where it is not built; the reading tests set it
to ``None`` to hold the Python reader alone to the reference)."""


def serialize_response(message: bytes) -> bytes:
    """The BotService response serializer: a session's messages come encoded already."""
    return message


def batch_bytes(messages: list[bytes]) -> bytes:
    """A ``ConnectResponse`` carrying a ``ResponseBatch`` of encoded ``ConnectResponse``s."""
    return field(_BATCH, b"".join([field(fields.ResponseBatch.MESSAGES, m) for m in messages]))


class Response:
    """One ``ConnectResponse`` read: its messages in order as ``(oneof kind, message)``.

    A batch gives its messages (``batched``); a message alone gives itself. An action request
    read for the SDK is a :class:`Request`; every other message (and an irregular request) is
    the protobuf message of its kind. ``kind`` is ``None`` for an empty ``ConnectResponse``.
    """

    __slots__ = ("batched", "messages")

    def __init__(self, batched: bool, messages: list[tuple[str | None, object]]) -> None:
        self.batched = batched
        self.messages = messages


def read_response(data: bytes) -> Response:
    """The Connect stream's response deserializer: ``data``, one ``ConnectResponse``, read.

    Raises protobuf's ``DecodeError`` for bytes protobuf refuses.
    """
    return _read(data, None)


class ResponseReader:
    """One stream's response deserializer: :func:`read_response` that reads each table's
    auction and completed tricks once (:class:`HandsRead`), for a stream's requests of a hand
    repeat them. Call it with the bytes of each ``ConnectResponse`` of the stream."""

    __slots__ = ("_hands",)

    def __init__(self) -> None:
        self._hands = HandsRead()

    def __call__(self, data: bytes) -> Response:
        return _read(data, self._hands)


def _read(data: bytes, hands: HandsRead | None) -> Response:
    native = NATIVE_READER
    if native is not None:  # the core splits the batch and reads the requests
        split = native.split(data)
        if split is not None:
            batched, parts = split
            return Response(batched, [_native_item(number, raw, hands) for number, raw in parts])
    message = _ConnectResponse.FromString(data)
    if message.WhichOneof("message") != "batch":
        return Response(False, [_item(message, hands)])
    items: list[tuple[str | None, object]] = []
    add = items.append
    for inner in message.batch.messages:  # most messages: one loop, no call per message
        kind = inner.WhichOneof("message")
        if kind == "action_request":
            add(_request(inner.action_request, hands))
        elif kind is None:
            add((None, None))
        else:
            add((kind, getattr(inner, kind)))
    return Response(True, items)


def _native_item(number: int, raw: bytes, hands: HandsRead | None) -> tuple[str | None, object]:
    """One message of a response the core split: an action request read by the core where it
    is regular, else as protobuf parses it (and :func:`read_request` reads it where it can)."""
    if number == _ACTION_REQUEST:
        request = read_request_bytes(raw, hands)
        if request is not None:
            return "action_request", request
        return _request(_ActionRequest.FromString(raw), hands)
    kind = _KINDS.get(number)
    if kind is None:  # a message this version does not know: protobuf gives no kind
        return None, None
    name, message_class = kind
    return name, message_class.FromString(raw)


def _item(
    message: bot_service_pb2.ConnectResponse, hands: HandsRead | None
) -> tuple[str | None, object]:
    """One message of a response: an action request read for the SDK where it is regular."""
    kind = message.WhichOneof("message")
    if kind is None:
        return None, None
    if kind == "action_request":
        return _request(message.action_request, hands)
    return kind, getattr(message, kind)


def _request(
    request: bot_service_pb2.ActionRequest, hands: HandsRead | None
) -> tuple[str, Request | bot_service_pb2.ActionRequest]:
    """An action request read for the SDK, or left as its message where it is irregular."""
    try:
        return "action_request", read_request(request, hands)
    except Irregular:  # convert decodes it, with its errors
        return "action_request", request


def read_request_bytes(message: bytes, hands: HandsRead | None = None) -> Request | None:
    """:func:`read_request` of an ``ActionRequest``'s bytes, read by the native core where it is
    built; ``None`` where it is not, or outside the regular case (protobuf and
    :func:`read_request` then read it)."""
    if NATIVE_READER is None:
        return None
    known = None if hands is None else hands.known_tricks
    read = NATIVE_READER.read(message, known)
    if read is None:
        return None
    (
        table_id, request_id, deadline_ms, ruleset_bytes, seat, hand_number, dealer, phase,
        current_player, hand, nest, auction, high_bid, high_bidder, bidder, bid, trump, buried,
        buried_count, called, partner, current, since, new_tricks, points_captured, scores, sides,
        legal_phase, legal_seat, can_pass, bids, bury_count, bury_from, call_from, play,
    ) = read  # fmt: skip
    try:
        ruleset = _RULESETS[ruleset_bytes]
    except WireError:
        return None
    if not -1 <= seat < ruleset.players:
        return None
    tricks = tuple([new_trick(*trick) for trick in new_tricks])
    if hands is not None:
        tricks = hands.add_tricks(table_id, hand_number, since, tricks)
    observation = new_observation(
        ruleset, seat, hand_number, dealer, phase, current_player, hand, nest, auction,
        high_bid, high_bidder, bidder, bid, trump, buried, buried_count, called,
        partner, _NO_TRICK if current is None else new_trick(*current), tricks,
        points_captured, scores, sides,
    )  # fmt: skip
    if legal_phase is _PLAY:  # most requests: the cards to play are all there is
        allowed = LegalActions(_PLAY, legal_seat, play=play)
    else:
        allowed = LegalActions(
            legal_phase,
            legal_seat,
            can_pass=can_pass,
            bids=bids,
            bury_from=bury_from,
            bury_count=bury_count,
            call_from=call_from,
            play=play,
        )
    return Request(table_id, request_id, deadline_ms, observation, allowed)
