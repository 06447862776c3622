"""A bot session: one bot's identity, its tables, and the stream currently carrying it.

A session outlives its stream: when the stream drops, the session is *detached* and may be
resumed (Hello.resume) within the grace period. Messages for a detached session are not queued:
the resumed stream gets a snapshot per table built from the table's event log instead.
"""

from __future__ import annotations

import asyncio
import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import grpc
import structlog
from rookery.v1 import bot_service_pb2

from ._limits import RejectionLog
from ._outbox import Outbox
from ._ports import SeatedTable
from ._rate import TokenBucket
from ._replies import REJECTION_CODES, Rejection, RejectionReason, bot_reply_from_proto

__all__ = ["CloseStream", "Session"]

log = structlog.get_logger("rookery.server.session")

_ConnectResponse = bot_service_pb2.ConnectResponse
_Reason = bot_service_pb2.RejectionReason
_FINISHED_REMEMBERED = 256
_TABLE_ID_SHOWN = 128


def _shown_table_id(table_id: str) -> str:
    """A reply's table id as rejections and logs repeat it: at most 128 characters."""
    if len(table_id) <= _TABLE_ID_SHOWN:
        return table_id
    return f"{table_id[:_TABLE_ID_SHOWN]}… ({len(table_id)} characters)"


@dataclass(frozen=True, slots=True)
class CloseStream:
    """A marker in a session's queue: end the stream with this status."""

    code: grpc.StatusCode
    details: str


class Session:
    """One bot session: its tables and, while attached, the queue its stream sends from."""

    def __init__(
        self,
        bot: str,
        version: str,
        client: str,
        max_tables: int,
        *,
        queue_size: int,
        rate: float,
        burst: int,
        on_capacity: Callable[[], None],
        on_rejection: Callable[[str], None],
        wants_events: bool = True,
        batching: bool = False,
        defers_events: bool = False,
        wants_card_masks: bool = False,
        groups_events: bool = False,
        peer: str = "",
    ) -> None:
        self.id = "s-" + secrets.token_hex(8)
        self.launch_key = ""
        """The arena's launch key this session presented (seats bound to a key need it)."""
        self.bound_table = ""
        """The one table a seat key binds this session to (a person's ``/play`` seat): it is
        seated there alone, once, and its stream ends with that table's game."""
        self.bound_seated = False
        self.secret = secrets.token_urlsafe(24)
        self.bot = bot
        self.version = version
        self.client = client
        self.peer = peer
        """The network address the session's current stream comes from (per-peer limits)."""
        self.max_tables = max_tables
        self.wants_events = wants_events
        """False when the bot asked for no TableEvent messages (Hello.observations_only)."""
        self.batching = batching
        """True when the stream's Hello offered batching (ConnectResponse.batch both ways)."""
        self.defers_events = defers_events
        """True when the stream's Hello let the server hold a table's events until the
        session's next request or TableFinished of that table (Hello.defer_events)."""
        self.wants_card_masks = wants_card_masks
        """True when the stream's Hello asked for each request's card sets as bit masks too
        (Hello.card_masks)."""
        self.groups_events = groups_events
        """True when the stream's Hello asked for a table's events sent together as one
        TableEvents message (Hello.group_events)."""
        self.batches_sent = 0
        """ConnectResponse.batch messages sent to the session, over all its streams."""
        self.reply_batches = 0
        """ConnectRequest.batch messages received from the session, over all its streams."""
        self.connected_at = time.time()
        self.last_heard = time.monotonic()
        self.detached_at = 0.0
        self.tables: dict[str, tuple[SeatedTable, int]] = {}
        self._finished: OrderedDict[str, None] = OrderedDict()
        self._unreported: dict[str, tuple[SeatedTable, int, _ConnectResponse]] = {}
        self._queue: Outbox[bytes | CloseStream] | None = None
        self._generation = 0
        self._queue_size = queue_size
        self._cut: Callable[[], None] | None = None
        self._stuck = False
        self._bucket = TokenBucket(rate, burst)
        self._on_capacity = on_capacity
        self._on_rejection = on_rejection
        self.expiry: asyncio.TimerHandle | None = None
        self._log = log.bind(session=self.id, bot=bot)
        self._rejections = RejectionLog(self._log)

    # The stream ---------------------------------------------------------------------------------

    @property
    def is_attached(self) -> bool:
        """Whether a stream carries the session now."""
        return self._queue is not None

    @property
    def queued(self) -> int:
        """Messages waiting to be written to the stream (0 when none carries the session)."""
        return 0 if self._queue is None else self._queue.qsize()

    @property
    def free_capacity(self) -> int:
        """How many more tables the session may be seated at."""
        return self.max_tables - len(self.tables)

    def attach(
        self, cut: Callable[[], None] | None = None
    ) -> tuple[int, Outbox[bytes | CloseStream]]:
        """Gives the session a new stream, closing any previous one: (generation, queue).

        ``cut`` ends the new stream at once (cancels its RPC): used when the bot stops reading,
        since a stream whose writer waits on flow control cannot be ended through its queue.
        """
        if self._queue is not None:
            self._put_close(
                self._queue,
                CloseStream(grpc.StatusCode.ABORTED, "the session was resumed on another stream"),
            )
        if self.expiry is not None:
            self.expiry.cancel()
            self.expiry = None
        self._generation += 1
        self._cut = cut
        self._stuck = False
        self._queue = Outbox(self._queue_size)
        self.last_heard = time.monotonic()
        return self._generation, self._queue

    def detach(self, generation: int) -> bool:
        """The stream of ``generation`` ended; False if a newer stream already took over."""
        if generation != self._generation or self._queue is None:
            return False
        self._rejections.flush()
        self._queue = None
        self.detached_at = time.monotonic()
        return True

    def send(self, message: _ConnectResponse) -> None:
        """Queues a message for the stream, encoded (see :meth:`send_encoded`)."""
        if self._queue is not None and not self._stuck:
            self.send_encoded(message.SerializeToString())

    def send_encoded(self, message: bytes) -> None:
        """Queues an encoded ConnectResponse for the stream (the hot path's, see
        ``rookery.wire.fastpath``); a full queue disconnects the session (it is stuck)."""
        queue = self._queue
        if queue is None or self._stuck:
            return
        try:
            queue.put_nowait(message)
        except asyncio.QueueFull:
            self._log.warning("send queue full: disconnecting", size=self._queue_size)
            self._stuck = True
            self.close(
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                f"the bot did not read its stream: {self._queue_size} messages queued; "
                "resume the session to continue",
            )
            # The writer may be blocked on flow control and never reach the marker: cut.
            cut, self._cut = self._cut, None
            if cut is not None:
                cut()

    def is_generation(self, generation: int) -> bool:
        """Whether the stream of ``generation`` is the one carrying the session now."""
        return generation == self._generation and self._queue is not None

    def close(self, code: grpc.StatusCode, details: str, generation: int | None = None) -> None:
        """Ends the current stream (only if it is ``generation``) with a status; the session
        itself may be resumed."""
        if generation is not None and generation != self._generation:
            return
        if self._queue is not None:
            self._put_close(self._queue, CloseStream(code, details))

    @staticmethod
    def _put_close(queue: Outbox[bytes | CloseStream], marker: CloseStream) -> None:
        while True:
            try:
                queue.put_nowait(marker)
                return
            except asyncio.QueueFull:
                queue.get_nowait()

    # Tables -------------------------------------------------------------------------------------

    def join(self, table: SeatedTable, seat: int) -> None:
        """The server seated the session at ``table``."""
        self.tables[table.id] = (table, seat)
        if table.id == self.bound_table:
            self.bound_seated = True

    def may_sit_at(self, table_id: str) -> bool:
        """Whether the server may seat this session at ``table_id``: any table, unless a seat
        key binds it to one (then that table only, and only once)."""
        return not self.bound_table or (table_id == self.bound_table and not self.bound_seated)

    def leave(self, table_id: str) -> None:
        """The session no longer holds a seat at ``table_id`` (its grace period ran out)."""
        if self.tables.pop(table_id, None) is not None:
            self._remember_finished(table_id)
            self._on_capacity()

    def table_finished(self, table_id: str, message: _ConnectResponse) -> None:
        """The game at ``table_id`` ended: report it (now, or on resume) and free the seat."""
        entry = self.tables.pop(table_id, None)
        if entry is None:
            return
        self._remember_finished(table_id)
        if self._queue is not None:
            self.send(message)
            if table_id == self.bound_table:  # after the TableFinished, in the same queue
                self.close(grpc.StatusCode.OK, "the game of the table this seat key is for ended")
                return
        else:
            self._unreported[table_id] = (entry[0], entry[1], message)
        if table_id != self.bound_table:
            self._on_capacity()

    def _remember_finished(self, table_id: str) -> None:
        self._finished[table_id] = None
        while len(self._finished) > _FINISHED_REMEMBERED:
            self._finished.popitem(last=False)

    @property
    def has_unfinished_business(self) -> bool:
        """Whether a resume would give the bot anything: seats, or finished tables to report."""
        return bool(self.tables or self._unreported)

    def check_secret(self, secret: str) -> bool:
        """Whether ``secret`` is this session's resume secret (constant-time)."""
        return hmac.compare_digest(secret.encode(), self.secret.encode())

    def resume_messages(self, cursors: dict[str, int]) -> None:
        """Queues, per table, a snapshot after the bot's cursor; then any open request again."""
        for table_id, (table, seat) in list(self.tables.items()):
            for message in table.resume_messages(seat, cursors.get(table_id, 0)):
                self.send(message)
        for table_id, (table, seat, finished) in list(self._unreported.items()):
            for message in table.resume_messages(seat, cursors.get(table_id, 0)):
                self.send(message)
            self.send(finished)
        self._unreported.clear()
        for table, seat in list(self.tables.values()):
            table.resend_request(seat)

    def seats(self) -> list[tuple[SeatedTable, int]]:
        """The tables and seats the session holds."""
        return list(self.tables.values())

    # Messages from the bot ----------------------------------------------------------------------

    def heard(self) -> bool:
        """Notes a message from the bot; False when it exceeds the session's rate limit."""
        self.last_heard = time.monotonic()
        return self._bucket.take()

    def handle_reply(self, reply: bot_service_pb2.ActionReply, *, allowed: bool) -> None:
        """Routes an ActionReply to its table; answers anything wrong with ActionRejected."""
        rejection: Rejection | None
        shown = _shown_table_id(reply.table_id)
        if not allowed:
            rejection = Rejection(
                RejectionReason.RATE_LIMITED,
                "too many messages: the session exceeded the server's action rate limit",
            )
        else:
            entry = self.tables.get(reply.table_id)
            if entry is None:
                if reply.table_id in self._finished:
                    rejection = Rejection(
                        RejectionReason.GAME_OVER, f"the game at table {shown} is over"
                    )
                else:
                    rejection = Rejection(
                        RejectionReason.UNKNOWN_TABLE,
                        f"table {shown!r} is not one of this session's tables",
                    )
            else:
                table, seat = entry
                rejection = table.submit(seat, bot_reply_from_proto(reply))
        if rejection is None:
            return
        code = REJECTION_CODES[rejection.reason]
        name = _Reason.Name(code)
        self._on_rejection(name)
        self._rejections.rejected(
            name,
            table=shown,
            request_id=reply.request_id,
            detail=rejection.message,
        )
        self.send(
            _ConnectResponse(
                action_rejected=bot_service_pb2.ActionRejected(
                    table_id=reply.table_id[:_TABLE_ID_SHOWN],
                    request_id=reply.request_id,
                    reason=code,
                    message=rejection.message,
                )
            )
        )
