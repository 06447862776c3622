"""The ``ActionReply`` family: the SDK's replies to the server as bytes, each action encoded once.

A bot sends a reply per request. Building an ``ActionReply``, wrapping it in a
``ConnectRequest`` and packing runs of them into a ``ReplyBatch`` copies each message at every
step; here a reply is assembled from its table's id, its request id and its action's bytes
(encoded once per distinct action), and a run of replies is one join: exactly what
``convert.action_to_proto`` plus ``SerializeToString`` give. A reply with a note or a fallback
mark (rare) is built as a message and serialized. The server reads replies with protobuf.
"""

from __future__ import annotations

from rookery.engine import Action
from rookery.v1 import bot_service_pb2, notes_pb2
from rookery.v1 import field_numbers as fields

from .. import convert
from ..memo import BoundedMemo
from ._protobuf import field, uint_field

_ActionReply = bot_service_pb2.ActionReply
_ConnectRequest = bot_service_pb2.ConnectRequest
_REPLY = fields.ActionReply

_ACTIONS: BoundedMemo[Action, bytes] = BoundedMemo(
    65536,
    lambda action: field(_REPLY.ACTION, convert.action_to_proto(action).SerializeToString()),
)
"""An action encoded as ``ActionReply.action``, by action."""


def table_id_field(table_id: str) -> bytes:
    """A table's ``ActionReply.table_id`` field (the start of each of its replies)."""
    return field(_REPLY.TABLE_ID, table_id.encode()) if table_id else b""


def reply_bytes(
    table_field: bytes,
    request_id: int,
    action: Action,
    *,
    note: notes_pb2.BotNote | None = None,
    fallback_reason: str | None = None,
) -> bytes:
    """An ``ActionReply``'s bytes (``table_field``: the table's :func:`table_id_field`)."""
    if note is None and fallback_reason is None:
        return b"".join((table_field, uint_field(_REPLY.REQUEST_ID, request_id), _ACTIONS[action]))
    reply = _ActionReply.FromString(table_field)
    reply.request_id = request_id
    reply.action.CopyFrom(convert.action_to_proto(action))
    if note is not None:
        reply.note.CopyFrom(note)
    if fallback_reason is not None:
        reply.fallback.reason = fallback_reason
    return reply.SerializeToString()


def request_bytes(replies: list[bytes]) -> bytes:
    """A ``ConnectRequest`` of encoded replies: one alone, several as one ``ReplyBatch``."""
    if len(replies) == 1:
        return field(fields.ConnectRequest.ACTION_REPLY, replies[0])
    return field(
        fields.ConnectRequest.BATCH,
        b"".join([field(fields.ReplyBatch.REPLIES, reply) for reply in replies]),
    )


def serialize_request(message: bytes | bot_service_pb2.ConnectRequest) -> bytes:
    """The Connect stream's request serializer: replies come encoded, the rest as messages."""
    if type(message) is bytes:
        return message
    assert isinstance(message, _ConnectRequest)
    return message.SerializeToString()
