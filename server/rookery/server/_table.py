"""A table: the move loop of one engine game, with its clock and late policy.

A table runs as one asyncio task. It asks the seat to act, enforces the deadline, and applies the
reply that :meth:`Table.submit` accepted (validation happens there, synchronously, as the reply
arrives). Nothing a table does waits on another table or on a bot's stream: messages go into each
session's bounded queue. Its values are in ``_table_values``, its seats' state in ``_seats``, its
deadlines in ``_table_clock``, its late policy in ``_table_late``, its seats' grace periods in
``_table_presence``, its events' sending in ``_table_events``, its messages in ``_table_views``,
its replay hooks in ``_table_record`` and its end told to everyone in ``_table_outcome``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

import structlog
from rookery.engine import Game, IllegalActionError, MalformedActionError
from rookery.v1 import bot_service_pb2, replay_pb2, table_pb2
from rookery.wire import convert
from rookery.wire.fastpath import RequestEncoder
from rookery.wire.replay import ActionOutcome, ReplayBuilder

from ._ports import SeatChannel, TableHooks
from ._replies import BotReply, Rejection, RejectionReason
from ._seats import OpenRequest, RequestEnd, SeatState
from ._table_clock import RequestClock
from ._table_events import TableEvents
from ._table_late import LateSeats
from ._table_outcome import result_message, table_outcome, tell_finished
from ._table_presence import SeatPresence, stop_grace
from ._table_record import finish_replay, record_rejection, start_replay
from ._table_values import SeatStats, TableOutcome, TableSpec, TableStatus, fallback_action
from ._table_views import clock_view, joined_message, seat_snapshot, summary
from ._time_control import TimeControl
from ._watchers import Watcher

__all__ = [
    "SeatStats",
    "Table",
    "TableOutcome",
    "TableSpec",
    "TableStatus",
    "fallback_action",
]

log = structlog.get_logger("rookery.server.table")

_ConnectResponse = bot_service_pb2.ConnectResponse


class Table:
    """One table: the game, the seats, the clock, the events and the replay."""

    def __init__(
        self,
        table_id: str,
        spec: TableSpec,
        seed: int,
        time_control: TimeControl,
        *,
        hooks: TableHooks | None = None,
        server_version: str = "",
        replay_writer: Callable[[Table, replay_pb2.Replay], None] | None = None,
    ) -> None:
        self.id = table_id
        self.spec = spec
        self.seed = seed
        self.time_control = time_control
        self.ruleset = spec.ruleset
        self.status = TableStatus.WAITING
        self.created_at = time.time()
        self.started_at = 0.0
        self.game = Game(spec.ruleset, seed)
        self.outcome: TableOutcome | None = None
        self.watchers: set[Watcher] = set()
        self._hooks = hooks or TableHooks()
        self._server_version = server_version
        self._replay_writer = replay_writer
        self.seats = [
            SeatState(i, bot, time_control.bank_ms) for i, bot in enumerate(spec.seat_bots)
        ]
        for seat, cpu_clock in zip(self.seats, spec.seat_clocks, strict=False):
            seat.cpu_clock = cpu_clock
        self._seated = asyncio.Event()
        self._finished = asyncio.Event()
        self._request: OpenRequest | None = None
        self._waiter: asyncio.Future[None] | None = None
        """What the table's task awaits while requests are open (see ``_play``)."""
        self._clock = RequestClock(
            time_control,
            self.seats,
            lambda: self._request,
            lambda request: self._close(request, RequestEnd.TIMEOUT),
        )
        self._next_request_id = 0
        self._abort_detail = ""
        self._replay = ReplayBuilder()
        self._log = log.bind(table=table_id)
        self._late = LateSeats(self.game, time_control, self._replay, self._hooks, self._log)
        self._presence = SeatPresence(
            table_id,
            time_control.grace_ms,
            lambda: self.is_finished,
            lambda: self._request,
            lambda request: self._close(request, RequestEnd.GONE),
            self._log,
        )
        self.events = TableEvents(
            table_id,
            self.game,
            spec.ruleset,
            self.seats,
            self.watchers,
            lambda: (self._late.forfeit, self._abort_detail or self._late.detail),
        )
        self.ruleset_proto = convert.ruleset_to_proto(spec.ruleset)
        self._encoder = RequestEncoder(spec.ruleset)
        self.time_control_proto = time_control.to_proto()
        self._task: asyncio.Task[None] | None = None

    # Lifecycle ----------------------------------------------------------------------------------

    def start(self) -> None:
        """Starts the table's task (it waits for its seats first)."""
        self._task = asyncio.get_running_loop().create_task(self._run(), name=f"table-{self.id}")

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The table's task, once started."""
        return self._task

    async def wait_finished(self) -> TableOutcome:
        """Waits until the game ends; the outcome."""
        await self._finished.wait()
        assert self.outcome is not None
        return self.outcome

    @property
    def is_finished(self) -> bool:
        """Whether the game has ended."""
        return self.status is TableStatus.FINISHED

    def seat_bots(self) -> tuple[str, ...]:
        """The bot named for each seat."""
        return self.spec.seat_bots

    def seat(self, sessions: Sequence[SeatChannel]) -> None:
        """Seats one session per seat (the server chose them) and lets the game begin."""
        for seat, session in zip(self.seats, sessions, strict=True):
            seat.session = session
            seat.version = session.version
            session.join(self, seat.index)
        self.status = TableStatus.PLAYING
        self.started_at = time.time()
        start_replay(self, self._replay, self._server_version)
        self._seated.set()

    def abort(self, detail: str) -> None:
        """Ends the game with no winner (an operator, a shutdown, or a join timeout)."""
        if self.status is TableStatus.FINISHED or self._abort_detail:
            return
        self._abort_detail = detail or "aborted"
        if self.status is TableStatus.WAITING:
            self._seated.set()
        elif self._request is not None:
            self._close(self._request, RequestEnd.ABORTED)

    async def _run(self) -> None:
        structlog.contextvars.bind_contextvars(table=self.id)
        try:
            try:
                await asyncio.wait_for(self._seated.wait(), self.spec.join_timeout_s)
            except TimeoutError:
                missing = ", ".join(sorted(set(self.spec.seat_bots)))
                self._abort_detail = (
                    f"not every seat could be filled within {self.spec.join_timeout_s:g} s: "
                    f"needs connected sessions with free capacity of {missing}"
                )
            if self._abort_detail:
                self.game.abort()
            else:
                self._hooks.table_started(self)
                self._log.info("table started", bots=list(self.spec.seat_bots))
                for seat in self.seats:
                    if seat.session is not None:
                        joined = joined_message(self, seat.index)
                        seat.session.send(_ConnectResponse(table_joined=joined))
                await self._play()
        except Exception:
            self._log.exception("table failed")
            if not self.game.is_over:
                self._abort_detail = "internal server error"
                self.game.abort()
        finally:
            self._finish()

    async def _play(self) -> None:
        """Asks each seat in turn until the game is over.

        A reply accepted in time sends the next request at once, from ``submit`` (``_advance``):
        the task sleeps through a whole run of moves and wakes only when a request is closed
        otherwise (a missed deadline, a seat gone, an abort), when the next seat is gone, or when
        the game is over.
        """
        game = self.game
        loop = asyncio.get_running_loop()
        self.events.flush()
        while not game.is_over:
            if self._abort_detail:
                game.abort()
                break
            seat = self.seats[game.current_player]  # type: ignore[index]
            if seat.gone:
                self._late.missed(seat, gone=True)
                await asyncio.sleep(0)
            else:
                self._waiter = loop.create_future()  # first: opening may close it at once
                self._open_request(seat)
                try:
                    await self._waiter
                finally:
                    self._waiter = None
                request, self._request = self._request, None
                reply = request.reply if request is not None else None
                if reply is RequestEnd.TIMEOUT:
                    assert request is not None
                    self._late.missed(self.seats[request.seat], gone=False)
                elif reply is RequestEnd.GONE:
                    assert request is not None
                    self._late.missed(self.seats[request.seat], gone=True)
                elif reply is RequestEnd.ABORTED:
                    game.abort()
            self.events.flush()
        self.events.flush()

    def _wake(self, error: BaseException | None = None) -> None:
        """Wakes the table's task (raising ``error`` in it, if given)."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            if error is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(error)

    def _close(self, request: OpenRequest, reply: RequestEnd) -> None:
        """Closes ``request``; anything but an accepted reply wakes the table's task."""
        request.deadline = None
        if request.reply is None:
            request.reply = reply
            if reply is not RequestEnd.ACCEPTED:
                self._wake()

    def _advance(self) -> None:
        """After an accepted reply: the events, and the next request while the seat to act is
        not gone; otherwise (or on an error) the table's task takes over."""
        try:
            self.events.flush()
            game = self.game
            if not game.is_over and not self._abort_detail:
                seat = self.seats[game.current_player]  # type: ignore[index]
                if not seat.gone:
                    self._open_request(seat)
                    return
        except Exception as error:  # the task fails the table, as if raised there
            self._wake(error)
            return
        self._wake()

    # Requests and replies -----------------------------------------------------------------------

    def _open_request(self, seat: SeatState) -> None:
        """Opens the table's next request for ``seat``, sent now if the seat is connected."""
        self._next_request_id += 1
        request = OpenRequest(self._next_request_id, seat.index)
        self._request = request
        if seat.is_connected:
            self._send_request(request, seat)
        else:
            self._clock.start(request, seat)  # the clock runs while the bot is away

    def _send_request(self, request: OpenRequest, seat: SeatState) -> None:
        """Sends the open request, starting its clock; sent again after a resume, it carries
        the time left (the clock ran while the bot was away), not a new deadline."""
        tc = self.time_control
        assert seat.session is not None
        if seat.held:
            self.events.release(seat)
        if request.deadline is not None:
            left_ms = max(0, int((request.deadline - asyncio.get_running_loop().time()) * 1000))
            action_ms = min(tc.action_ms, left_ms)
            seat.session.send_encoded(
                _action_request(self, request, seat, action_ms, left_ms - action_ms)
            )
            return
        if request.message is None:
            # Encoded once, as bytes (the ruleset and completed tricks come encoded already).
            request.message = _action_request(self, request, seat, tc.action_ms, seat.bank_ms)
        self._clock.start(request, seat)
        seat.session.send_encoded(request.message)

    def submit(self, seat_index: int, reply: BotReply) -> Rejection | None:
        """Checks and applies a bot's reply; ``None`` when accepted, else why not.

        The checks run in order: the game is not over, the seat has the open request, the
        request id is the open one, the reply is in time, the action is well-formed, it is legal.
        """
        seat = self.seats[seat_index]
        request = self._request
        if self.status is TableStatus.FINISHED or self.game.is_over:
            return Rejection(RejectionReason.GAME_OVER, f"the game at table {self.id} is over")
        if request is None or not request.is_open or request.seat != seat_index:
            if reply.request_id and reply.request_id == seat.last_late_request:
                return _late(reply.request_id)
            to_act = self.game.current_player
            return Rejection(
                RejectionReason.NOT_YOUR_TURN,
                f"no request is open for seat {seat_index}: seat {to_act} is to act",
            )
        if reply.request_id != request.id:
            if reply.request_id and reply.request_id == seat.last_late_request:
                return _late(reply.request_id)
            return Rejection(
                RejectionReason.STALE_REQUEST,
                f"request_id {reply.request_id} is not the open request {request.id}",
            )
        think_ms = self._clock.think_ms(request, seat)
        if think_ms is None:
            return _late(reply.request_id)
        action = reply.action
        if action is None:
            return _refused(self._replay, seat, request, reply, _MALFORMED, reply.problem)
        try:
            self.game.apply(action)
        except MalformedActionError as error:
            return _refused(self._replay, seat, request, reply, _MALFORMED, str(error))
        except IllegalActionError as error:
            return _refused(self._replay, seat, request, reply, _ILLEGAL, str(error))
        self._clock.charge(seat, think_ms)
        seat.count_accepted(think_ms, fallback=reply.fallback is not None)
        self._replay.record_action(
            seat_index,
            action,
            think_ms,
            ActionOutcome.ACCEPTED,
            note=reply.note,
            fallback=reply.fallback,
        )
        self._hooks.action_done("accepted", think_ms / 1000.0)
        self._close(request, RequestEnd.ACCEPTED)
        self._request = None
        self._advance()
        return None

    # Disconnection and resume -------------------------------------------------------------------

    def seat_disconnected(self, seat_index: int) -> None:
        """The seat's session lost its stream: its grace period starts (its clock runs on)."""
        self._presence.disconnected(self.seats[seat_index])

    def resume_messages(self, seat_index: int, last_seq: int) -> list[_ConnectResponse]:
        """The snapshot (and the open request again) for a seat whose session resumed."""
        seat = self.seats[seat_index]
        stop_grace(seat)
        # The snapshot covers every event so far, flushed or not: the observation is the game's
        # present, and the events it includes are not sent to this seat again.
        snapshot = seat_snapshot(self, seat_index, last_seq)
        seat.skip_until = self.game_seq
        seat.held.clear()  # the snapshot's events include them
        return [_ConnectResponse(table_snapshot=snapshot)]

    @property
    def game_seq(self) -> int:
        """The sequence number of the game's latest event (sent or about to be)."""
        return max(self.game.last_seq, self.events.sent_seq)

    def resend_request(self, seat_index: int) -> None:
        """After a resume: sends the seat's open request again, with the time it has left."""
        request = self._request
        seat = self.seats[seat_index]
        if request is not None and request.is_open and request.seat == seat_index:
            self._send_request(request, seat)

    # Messages -----------------------------------------------------------------------------------

    def summary(self) -> table_pb2.TableSummary:
        """What anybody may know about the table."""
        return summary(self)

    def clock_view(self) -> dict[str, object]:
        """The clock as a spectator may see it (see ``_table_views.clock_view``)."""
        return clock_view(self)

    @property
    def open_request(self) -> OpenRequest | None:
        """The request the table waits on, if any."""
        return self._request

    # Replay -------------------------------------------------------------------------------------

    def _finish(self) -> None:
        if self.status is TableStatus.FINISHED:
            return
        self._clock.cancel()
        game = self.game
        if not game.is_over:
            game.abort()
        request = self._request
        if request is not None:
            self._close(request, RequestEnd.ABORTED)
            self._request = None
        result = game.result
        assert result is not None
        detail = self._abort_detail or self._late.detail
        result_proto = result_message(result, self._late.forfeit, detail)
        if self.status is TableStatus.PLAYING:
            self.events.flush()
        build_replay = finish_replay(
            self, self._replay, self._server_version, self._late.forfeit, result_proto
        )
        self.status = TableStatus.FINISHED
        outcome = self.outcome = table_outcome(
            self, result, result_proto, detail, build_replay, self._replay
        )
        tell_finished(self.id, self.seats, self.events, self.watchers, result_proto)
        self._log.info(
            "table finished",
            reason=convert.termination_name(result_proto.reason, proto=True),
            winners=list(result.winners),
            scores=list(result.scores),
            detail=detail,
        )
        if self._replay_writer is not None:
            try:
                self._replay_writer(self, outcome.replay)
            except Exception:
                self._log.exception("could not write the replay")
        self._hooks.table_finished(self)
        self._finished.set()


_MALFORMED = RejectionReason.MALFORMED_ACTION
_ILLEGAL = RejectionReason.ILLEGAL_ACTION


def _refused(
    replay: ReplayBuilder,
    seat: SeatState,
    request: OpenRequest,
    reply: BotReply,
    reason: RejectionReason,
    message: str | None,
) -> Rejection:
    """A well-timed reply refused: counted in the seat's stats (malformed or illegal),
    recorded in the replay (boundedly), and why."""
    if reason is _MALFORMED:
        seat.malformed += 1
    else:
        seat.illegal += 1
    message = message or reason.value
    record_rejection(replay, request, request.seat, reply.sent, message)
    return Rejection(reason, message)


def _late(request_id: int) -> Rejection:
    return Rejection(
        RejectionReason.LATE, f"request {request_id} passed its deadline before the reply arrived"
    )


def _action_request(
    table: Table, request: OpenRequest, seat: SeatState, deadline_ms: int, bank_ms: int
) -> bytes:
    """The seat's ``ActionRequest`` for the open request, encoded (its observation and legal
    actions now; by the native core in one call where the game runs on it)."""
    assert seat.session is not None
    return table._encoder.game_request(
        table.game,
        table_id=table.id,
        request_id=request.id,
        seat=seat.index,
        deadline_ms=deadline_ms,
        bank_ms=bank_ms,
        last_seq=table.events.sent_seq,
        masks=seat.session.wants_card_masks,
    )
