"""The contracts of a table: with the sessions at its seats, and with its server.

A table talks to the session of each of its seats through :class:`SeatChannel`; a session talks
to the tables it is seated at through :class:`SeatedTable`. ``Session`` and ``Table`` satisfy
them structurally, so that neither module imports the other, and a test can put its own channel
at a seat without a real stream. A table tells its server what happens through
:class:`TableHooks`, which the server subclasses.
"""

from __future__ import annotations

from typing import Protocol

from rookery.v1 import bot_service_pb2

from ._replies import BotReply, Rejection
from ._time_control import TimeControl

__all__ = ["SeatChannel", "SeatedTable", "TableHooks"]


class SeatedTable(Protocol):
    """What a session (and the server, through a session's seats) needs from a table."""

    time_control: TimeControl

    @property
    def id(self) -> str:
        """The table's id."""
        ...

    def submit(self, seat_index: int, reply: BotReply) -> Rejection | None:
        """Checks and applies a reply; ``None`` when accepted, else why not."""
        ...

    def resume_messages(
        self, seat_index: int, last_seq: int
    ) -> list[bot_service_pb2.ConnectResponse]:
        """The snapshot for a seat whose session resumed after ``last_seq``."""
        ...

    def resend_request(self, seat_index: int) -> None:
        """Sends the seat's open request again, if it has one."""
        ...

    def seat_disconnected(self, seat_index: int) -> None:
        """The seat's session lost its stream: its grace period starts."""
        ...


class SeatChannel(Protocol):
    """What a table needs from the session at one of its seats."""

    @property
    def version(self) -> str:
        """The bot's version, as its Hello gave it."""
        ...

    @property
    def is_attached(self) -> bool:
        """Whether a stream carries the session now."""
        ...

    @property
    def wants_events(self) -> bool:
        """False when the bot asked for observations only (no TableEvent messages)."""
        ...

    @property
    def defers_events(self) -> bool:
        """True when the bot let the server hold its events until its next request
        (``Hello.defer_events``)."""
        ...

    @property
    def groups_events(self) -> bool:
        """True when the bot asked for a table's events sent together as one TableEvents
        message (``Hello.group_events``)."""
        ...

    @property
    def wants_card_masks(self) -> bool:
        """True when the bot asked for each request's card sets as bit masks too
        (``Hello.card_masks``)."""
        ...

    def join(self, table: SeatedTable, seat: int) -> None:
        """The session is seated at ``table``."""
        ...

    def leave(self, table_id: str) -> None:
        """The session no longer holds its seat at ``table_id``."""
        ...

    def send(self, message: bot_service_pb2.ConnectResponse) -> None:
        """Queues a message for the bot (encoded here)."""
        ...

    def send_encoded(self, message: bytes) -> None:
        """Queues a ConnectResponse already encoded (the hot path's bytes) for the bot."""
        ...

    def table_finished(self, table_id: str, message: bot_service_pb2.ConnectResponse) -> None:
        """The game at ``table_id`` ended with ``message``."""
        ...


class TableHooks:
    """What a table needs from its server (kept narrow so that tables test without a network)."""

    def table_started(self, table: SeatedTable) -> None:
        """The table was seated and its game begins."""

    def table_finished(self, table: SeatedTable) -> None:
        """The table's game ended; its seats are released."""

    def action_done(self, outcome: str, latency_s: float | None) -> None:
        """An action was applied (``accepted`` or ``auto_played``)."""

    def timeout(self) -> None:
        """A bot missed its deadline."""

    def rejection(self, reason: str) -> None:
        """A reply was refused for ``reason``."""
