"""A bot's reply as a table checks it, and why a reply is refused: the domain's values.

The session decodes each ``ActionReply`` into a :class:`BotReply` (:func:`bot_reply_from_proto`)
and answers a :class:`Rejection` with ``ActionRejected``, its reason's wire code taken from
:data:`REJECTION_CODES`, the one table between the two.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from types import MappingProxyType

from rookery.engine import Action
from rookery.v1 import actions_pb2, bot_service_pb2, notes_pb2
from rookery.wire import convert, notes
from rookery.wire.errors import MalformedMessageError

__all__ = [
    "REJECTION_CODES",
    "BotReply",
    "Rejection",
    "RejectionReason",
    "bot_reply_from_proto",
]


class RejectionReason(Enum):
    """Why a reply was not played."""

    UNKNOWN_TABLE = "unknown table"
    """The reply names a table that is not one of the session's."""
    NOT_YOUR_TURN = "not your turn"
    """No request is open for the seat."""
    STALE_REQUEST = "stale request"
    """The reply answers a request that is not the open one."""
    ILLEGAL_ACTION = "illegal action"
    """A well-formed action the rules do not allow now."""
    MALFORMED_ACTION = "malformed action"
    """An action (or a note, or a fallback mark) that is not well-formed: the reply is refused
    whole."""
    LATE = "late"
    """The request's deadline passed before the reply arrived."""
    RATE_LIMITED = "rate limited"
    """The session sent more messages than the server's rate limit."""
    GAME_OVER = "game over"
    """The table's game is over."""


_Code = bot_service_pb2.RejectionReason
REJECTION_CODES: Mapping[RejectionReason, bot_service_pb2.RejectionReason.ValueType] = (
    MappingProxyType(
        {
            RejectionReason.UNKNOWN_TABLE: _Code.REJECTION_REASON_UNKNOWN_TABLE,
            RejectionReason.NOT_YOUR_TURN: _Code.REJECTION_REASON_NOT_YOUR_TURN,
            RejectionReason.STALE_REQUEST: _Code.REJECTION_REASON_STALE_REQUEST,
            RejectionReason.ILLEGAL_ACTION: _Code.REJECTION_REASON_ILLEGAL_ACTION,
            RejectionReason.MALFORMED_ACTION: _Code.REJECTION_REASON_MALFORMED_ACTION,
            RejectionReason.LATE: _Code.REJECTION_REASON_LATE,
            RejectionReason.RATE_LIMITED: _Code.REJECTION_REASON_RATE_LIMITED,
            RejectionReason.GAME_OVER: _Code.REJECTION_REASON_GAME_OVER,
        }
    )
)
"""Each reason's ``RejectionReason`` code on the wire."""


@dataclass(frozen=True, slots=True)
class Rejection:
    """A refused reply: why, and the sentence the bot is sent."""

    reason: RejectionReason
    message: str


@dataclass(frozen=True, slots=True)
class BotReply:
    """A bot's answer to a request, decoded. ``action`` is None when the reply is malformed
    (``problem`` then says why); ``note`` and ``fallback`` are recorded with the move as sent,
    and so is ``sent``, the action as the bot wrote it (a refused one is kept in the replay)."""

    request_id: int
    action: Action | None
    problem: str | None
    note: notes_pb2.BotNote | None
    fallback: notes_pb2.Fallback | None
    sent: actions_pb2.Action


def bot_reply_from_proto(reply: bot_service_pb2.ActionReply) -> BotReply:
    """The reply as the table checks it: its action, or the first bound it breaks (the action's
    form first, then its note's and its fallback mark's)."""
    note = reply.note if reply.HasField("note") and (reply.note.text or reply.note.values) else None
    fallback = reply.fallback if reply.HasField("fallback") else None
    try:
        action: Action | None = convert.action_from_proto(reply.action)
    except MalformedMessageError as error:
        return BotReply(reply.request_id, None, str(error), note, fallback, reply.action)
    problem = notes.note_problem(note) if note is not None else None
    if problem is None and fallback is not None:
        problem = notes.fallback_problem(fallback)
    if problem is not None:
        action = None
        problem = (
            f"{problem}: the reply is refused whole (its action is not played); send it again "
            "within the deadline"
        )
    return BotReply(reply.request_id, action, problem, note, fallback, reply.action)
