"""The ``ConnectResponse`` envelope, both ways: the server's batches and the SDK's reader.

The server queues every message to a bot encoded (requests from :class:`RequestEncoder`, events
from the event encoders), so its stream's serializer passes bytes through and a batch is one
join. A bot's SDK parses each ``ConnectResponse`` with protobuf (:func:`read_response`) and reads
each regular action request straight into engine values (``read_request``); an irregular one is
left as its message, for ``convert`` to decode with its errors.
"""

from __future__ import annotations

from typing import Final

from rookery.v1 import bot_service_pb2
from rookery.v1 import field_numbers as fields

from ._protobuf import Irregular, field
from ._requests import HandsRead, Request, read_request

_ConnectResponse = bot_service_pb2.ConnectResponse
_BATCH: Final = fields.ConnectResponse.BATCH


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
