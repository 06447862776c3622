"""Rookery's fast protobuf codecs: the one package that writes protobuf bytes by hand.

The messages sent or recorded once per action (a request to a bot, an event, a bot's reply, a
replay's action) cost more to build as protobuf messages than the move itself, so they are
assembled from bytes encoded once; a bot reads its requests straight into engine values (the
card sets from their masks, never a message per card). Each message family's encoder and
decoder live together, in one module:

- ``ActionRequest`` (``_requests``): the server's :class:`RequestEncoder`, the SDK's reader;
- the ``ConnectResponse`` envelope (``_responses``): batches, and :func:`read_response` (a
  stream's :class:`ResponseReader` reads each hand's auction and completed tricks once);
- ``TableEvent`` (``_events``): events to bots, each encoded once per view;
- ``ActionReply`` (``_replies``): the SDK's replies;
- ``ReplayAction`` (``_replays``): a replay's recorded actions.

They compose the wire format's primitives (``_protobuf``). Field numbers come from
``rookery.v1.field_numbers``, generated from the .proto files by ``make proto``: no module holds
a literal one. Every encoder writes exactly the bytes protobuf's ``SerializeToString`` writes
for the message ``rookery.wire.convert`` builds, and every reader gives what protobuf and
``convert`` give (anything outside the regular case is left to them): ``tests/wire`` holds a
differential test per family against protobuf's own serialization. To add a fast path, add it
here, beside its family's, with its differential test; no other module writes protobuf bytes.
"""

from __future__ import annotations

from ._events import (
    event_bytes,
    event_element,
    event_message,
    events_message,
    public_event_bytes,
    public_event_element,
    table_event_prefix,
)
from ._replays import RecordedAction, replay_action_extras, replay_hand_actions
from ._replies import reply_bytes, request_bytes, serialize_request, table_id_field
from ._requests import Request, RequestEncoder
from ._responses import (
    Response,
    ResponseReader,
    batch_bytes,
    read_response,
    serialize_response,
)

__all__ = [
    "RecordedAction",
    "Request",
    "RequestEncoder",
    "Response",
    "ResponseReader",
    "batch_bytes",
    "event_bytes",
    "event_element",
    "event_message",
    "events_message",
    "public_event_bytes",
    "public_event_element",
    "read_response",
    "replay_action_extras",
    "replay_hand_actions",
    "reply_bytes",
    "request_bytes",
    "serialize_request",
    "serialize_response",
    "table_event_prefix",
    "table_id_field",
]
