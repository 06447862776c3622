"""The ``ConnectResponse`` envelope, both ways: the server's batches and the SDK's reader.

The server queues every message to a bot encoded (requests from :class:`RequestEncoder`, events
from the event encoders), so its stream's serializer passes bytes through and a batch is one
join. A bot reads each ``ConnectResponse`` once from its bytes (:func:`read_response`): an
action request by hand (``read_request``), every other message with protobuf; anything outside
the regular case is parsed whole by protobuf, with its own errors, so the result is the same
either way.
"""

from __future__ import annotations

from typing import Any, Final

from rookery.v1 import bot_service_pb2
from rookery.v1 import field_numbers as fields

from ._protobuf import LENGTH, Irregular, field, read_length, read_varint, tag
from ._requests import read_request

_ConnectResponse = bot_service_pb2.ConnectResponse
_BATCH: Final = fields.ConnectResponse.BATCH
_ACTION_REQUEST: Final = fields.ConnectResponse.ACTION_REQUEST
_BATCH_MESSAGE_TAG: Final = tag(fields.ResponseBatch.MESSAGES, LENGTH)
_BATCH_MESSAGE_KEY: Final = fields.ResponseBatch.MESSAGES << 3 | LENGTH
_KINDS: Final[dict[int, tuple[str, Any]]] = {
    one.number: (one.name, type(getattr(_ConnectResponse(), one.name)))
    for one in _ConnectResponse.DESCRIPTOR.oneofs_by_name["message"].fields
}
"""The ``ConnectResponse`` oneof by field number: its name and message class."""


def serialize_response(message: bytes) -> bytes:
    """The BotService response serializer: a session's messages come encoded already."""
    return message


def batch_bytes(messages: list[bytes]) -> bytes:
    """A ``ConnectResponse`` carrying a ``ResponseBatch`` of encoded ``ConnectResponse``s."""
    return field(_BATCH, b"".join([field(fields.ResponseBatch.MESSAGES, m) for m in messages]))


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


def _read_response(data: bytes) -> Response:
    end = len(data)
    number, start, stop = _only_field(data, 0, end)
    if number != _BATCH:
        return Response(False, [_message(data, number, start, stop)])
    messages: list[tuple[str | None, Any]] = []
    at = start
    while at < stop:
        key, at = read_varint(data, at, stop)
        if key != _BATCH_MESSAGE_KEY:
            raise Irregular
        inner_start, at = read_length(data, at, stop)
        inner, first, last = _only_field(data, inner_start, at)
        if inner == _BATCH:
            raise Irregular
        messages.append(_message(data, inner, first, last))
    return Response(True, messages)


def _only_field(data: bytes, at: int, end: int) -> tuple[int, int, int]:
    """The one field of a ``ConnectResponse`` in ``data[at:end]``: (number, start, end)."""
    key, at = read_varint(data, at, end)
    number = key >> 3
    if key & 7 != LENGTH or number not in _KINDS:
        raise Irregular
    start, stop = read_length(data, at, end)
    if stop != end:
        raise Irregular
    return number, start, stop


def _message(data: bytes, number: int, start: int, end: int) -> tuple[str | None, Any]:
    kind, cls = _KINDS[number]
    if number == _ACTION_REQUEST:
        return kind, read_request(data, start, end)
    return kind, cls.FromString(data[start:end])
