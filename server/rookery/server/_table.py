"""A table: one engine game, its seats and clock, the bots' replies, the events, the replay.

A table runs as one asyncio task. It asks the seat to act, enforces the deadline, and applies the
reply that :meth:`Table.submit` accepted (validation happens there, synchronously, as the reply
arrives). Nothing a table does waits on another table or on a bot's stream: messages go into each
session's bounded queue.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import Enum
from typing import Any

import structlog
from google.protobuf.timestamp_pb2 import Timestamp
from rookery.engine import (
    Action,
    Bid,
    Bury,
    CallCard,
    EventBase,
    Forfeit,
    ForfeitKind,
    Game,
    GameOverError,
    GameResult,
    IllegalActionError,
    LegalActions,
    MalformedActionError,
    NameTrump,
    Pass,
    Phase,
    PlayCard,
    Ruleset,
    SeatAssignment,
    Termination,
    card_rank,
    cards_of,
)
from rookery.v1 import (
    actions_pb2,
    bot_service_pb2,
    events_pb2,
    notes_pb2,
    replay_pb2,
    results_pb2,
    spectator_service_pb2,
    table_pb2,
)
from rookery.wire import convert, notes
from rookery.wire.errors import MalformedMessageError
from rookery.wire.replay import ActionOutcome, ReplayBuilder, encode_replay

from ._bot_seeds import bot_seed
from ._encoding import (
    RequestEncoder,
    event_element,
    event_message,
    events_message,
    public_event_element,
    table_event_prefix,
)
from ._errors import TableSpecError
from ._ports import SeatChannel, TableHooks
from ._time_control import LatePolicy, TimeControl

__all__ = [
    "SeatStats",
    "Table",
    "TableOutcome",
    "TableSpec",
    "TableStatus",
    "fallback_action",
]

log = structlog.get_logger("rookery.server.table")

_Reason = bot_service_pb2.RejectionReason
_ConnectResponse = bot_service_pb2.ConnectResponse


class TableStatus(Enum):
    """The lifecycle of a table."""

    WAITING = table_pb2.TABLE_STATUS_WAITING
    """Waiting for a connected session of every seated bot."""
    PLAYING = table_pb2.TABLE_STATUS_PLAYING
    """The game is being played."""
    FINISHED = table_pb2.TABLE_STATUS_FINISHED
    """The game has ended (or was aborted); its replay is available."""


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What a table plays and who sits where.

    ``seed`` None picks a random seed; ``time_control`` None takes the server's default;
    ``table_id`` None generates one; ``join_timeout_s`` is how long the table waits for its bots
    before it is aborted; ``game_number`` is the table's number in a series (sent in TableJoined);
    ``bot_seed_key`` keys every seat's ``TableJoined.bot_seed`` (see ``_bot_seeds``).
    """

    ruleset: Ruleset
    seat_bots: tuple[str, ...]
    seed: int | None = None
    time_control: TimeControl | None = None
    tournament_id: str = ""
    table_id: str | None = None
    join_timeout_s: float = 30.0
    game_number: int = 0
    seat_keys: tuple[str, ...] = ()
    """Per seat, the launch key its session must have presented (``""``: any session of the
    bot); empty: none bound. The arena binds each game's fresh bot processes to their seats."""
    seat_clocks: tuple[Callable[[], float] | None, ...] = ()
    """Per seat, a reading of the CPU seconds its bot's processes used so far (None: wall time).
    A seat with a CPU clock is charged the CPU its bot used since its previous reply (background
    thinking included), and may take at most ``CPU_WALL_FACTOR`` times its budget (at least
    ``CPU_WALL_EXTRA_MS`` more than it) in wall time."""
    #: The key of the seats' bot seeds (a tournament's secret); None takes the server's own.
    bot_seed_key: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if len(self.seat_bots) != self.ruleset.players:
            raise TableSpecError(
                f"the ruleset has {self.ruleset.players} seats but {len(self.seat_bots)} bots "
                "were named"
            )
        for name in ("seat_keys", "seat_clocks"):
            given = len(getattr(self, name))
            if given and given != self.ruleset.players:
                raise TableSpecError(f"{name} has {given} entries for {self.ruleset.players} seats")
        if self.seed is not None and not 0 <= self.seed < 2**64:
            raise TableSpecError(f"seed must be in 0..2**64-1, got {self.seed}")
        if self.join_timeout_s <= 0:
            raise TableSpecError(f"join_timeout_s must be > 0, got {self.join_timeout_s}")


@dataclass(frozen=True, slots=True)
class SeatStats:
    """How one seat's bot behaved during a game."""

    seat: int
    bot_name: str
    bot_version: str
    actions: int
    think_ms_mean: float
    think_ms_max: int
    timeouts: int
    auto_plays: int
    illegal_replies: int
    malformed_replies: int
    disconnects: int
    cpu_timeouts: int = 0
    """Timeouts of a seat with a CPU clock that came from CPU time used up (not wall time)."""
    fallbacks: int = 0
    """Accepted replies the bot's SDK or kit made itself because the bot's code failed."""


@dataclass(frozen=True, slots=True)
class TableOutcome:
    """How a table's game ended, with its replay and per-seat statistics.

    ``termination`` is a proto ``TerminationReason`` value; ``forfeit_seat`` is -1 unless a seat
    forfeited; ``result_proto`` is the ``GameResult`` message sent to the bots.
    """

    table_id: str
    result: GameResult
    result_proto: results_pb2.GameResult
    termination: int
    forfeit_seat: int
    detail: str
    build_replay: Callable[[], replay_pb2.Replay] = field(repr=False, compare=False)
    """Makes ``replay`` (once, when first asked for: the arena writes its file from
    ``recorded`` and needs no message)."""
    seat_stats: tuple[SeatStats, ...]
    duration_s: float
    recorded: ReplayBuilder | None = field(default=None, repr=False, compare=False)
    """The builder that recorded ``replay`` (None for a table aborted before it started)."""
    _built: list[replay_pb2.Replay] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    @property
    def replay(self) -> replay_pb2.Replay:
        """The game's ``Replay`` message, made on first use (the same message after)."""
        if not self._built:
            self._built.append(self.build_replay())
        return self._built[0]

    @property
    def has_move_incidents(self) -> bool:
        """Whether a recorded move was rejected, auto-played or marked as its SDK's fallback
        (``rookery.arena.move_incidents`` then has something to find in ``replay``)."""
        return self.recorded is None or self.recorded.irregular_actions > 0

    def replay_bytes(self, *, compress: bool = True) -> bytes:
        """``encode_replay(self.replay, compress=compress)``: a replay file's bytes, written
        from the recorded engine values where they are at hand (no pass over the message)."""
        if self.recorded is None:
            return encode_replay(self.replay, compress=compress)
        return self.recorded.encode(self.result_proto, compress=compress)


REJECTIONS_RECORDED_PER_REQUEST = 8
"""Rejected replies kept in the replay per request (the rest are only counted in the stats)."""

_RECORDED_CARDS = 64


def _recordable(action: actions_pb2.Action) -> actions_pb2.Action:
    """A rejected action as the replay keeps it: no unknown fields, at most 64 bury cards."""
    kept = actions_pb2.Action()
    kept.CopyFrom(action)
    kept.DiscardUnknownFields()
    if kept.WhichOneof("kind") == "bury" and len(kept.bury.cards) > _RECORDED_CARDS:
        del kept.bury.cards[_RECORDED_CARDS:]
    return kept


def _card_order(card: int) -> tuple[int, int]:
    rank = card_rank(card)
    return (rank if rank else 99, card)


def fallback_action(legal: LegalActions) -> Action:
    """The action the server plays for a late bot (AUTO_PLAY): simple and always legal.

    Auction: pass (the lowest bid if passing is not allowed). Trump: the first legal suit (black,
    red, yellow, green). Bury and call: the lowest-ranked cards (the Rook counts as highest). Play:
    the lowest-ranked playable card, the Rook only when nothing else is playable.
    """
    phase = legal.phase
    if phase is Phase.BIDDING:
        return Pass() if legal.can_pass else Bid(legal.bids[0])
    if phase is Phase.NAME_TRUMP:
        return NameTrump(legal.suits[0])
    if phase is Phase.BURY:
        chosen = sorted(cards_of(legal.bury_from), key=_card_order)[: legal.bury_count]
        mask = 0
        for card in chosen:
            mask |= 1 << card
        return Bury(mask)
    if phase is Phase.CALL:
        return CallCard(min(cards_of(legal.call_from), key=_card_order))
    if phase is Phase.PLAY:
        return PlayCard(min(cards_of(legal.play), key=_card_order))
    raise GameOverError("the game is over: nothing to play")


class _Reply(Enum):
    ACCEPTED = "accepted"
    TIMEOUT = "timeout"
    GONE = "gone"
    ABORTED = "aborted"


_CLOCK_SLACK_S = 0.001
"""A timer may ring a little before its time (the loop's clock resolution): within this, the
deadline has come."""
CPU_WALL_FACTOR = 10
CPU_WALL_EXTRA_MS = 5000
"""Under a CPU clock a move may still take at most ``CPU_WALL_FACTOR`` times its budget, or its
budget and ``CPU_WALL_EXTRA_MS`` if that is longer, in wall time (a bot that sleeps is late)."""
_CPU_POLL_MIN_S = 0.005


def _cpu_wall_ms(budget_ms: int) -> int:
    """The wall time a move may take under a CPU clock."""
    return max(CPU_WALL_FACTOR * budget_ms, budget_ms + CPU_WALL_EXTRA_MS)


_CPUS = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


class _Request:
    """The one open ActionRequest of a table."""

    __slots__ = (
        "budget_ms",
        "cpu_start",
        "deadline",
        "id",
        "message",
        "recorded",
        "reply",
        "seat",
        "sent_at",
    )

    def __init__(self, request_id: int, seat: int) -> None:
        self.id = request_id
        self.recorded = 0
        self.seat = seat
        self.reply: _Reply | None = None
        """How the request was closed; None while it is open."""
        self.sent_at = 0.0
        self.budget_ms = 0
        self.deadline: float | None = None
        """When the reply is due (the event loop's clock); None while the clock does not run."""
        self.message: bytes | None = None
        self.cpu_start: float | None = None
        """The seat's CPU clock reading its think time counts from (None: a wall clock)."""

    @property
    def is_open(self) -> bool:
        return self.reply is None


class _Seat:
    """The mutable state of one seat."""

    __slots__ = (
        "accepted",
        "auto_plays",
        "bank_ms",
        "bot",
        "cpu_clock",
        "cpu_timeouts",
        "disconnects",
        "fallbacks",
        "gone",
        "grace_timer",
        "held",
        "illegal",
        "index",
        "last_late_request",
        "malformed",
        "session",
        "skip_until",
        "strikes",
        "think_ms_max",
        "think_ms_total",
        "timeouts",
        "version",
    )

    def __init__(self, index: int, bot: str, bank_ms: int) -> None:
        self.index = index
        self.bot = bot
        self.version = ""
        self.session: SeatChannel | None = None
        self.bank_ms = bank_ms
        self.strikes = 0
        self.gone = False
        self.skip_until = 0
        self.held: list[bytes] = []
        """Events held for a session that defers them (``Hello.defer_events``), each encoded as
        a ``TableEvent.event`` field: sent before the seat's next request or its TableFinished."""
        self.grace_timer: asyncio.TimerHandle | None = None
        self.last_late_request = 0
        self.accepted = 0
        self.think_ms_total = 0
        self.think_ms_max = 0
        self.timeouts = 0
        self.auto_plays = 0
        self.illegal = 0
        self.malformed = 0
        self.disconnects = 0
        self.cpu_clock: Callable[[], float] | None = None
        self.cpu_timeouts = 0
        self.fallbacks = 0

    @property
    def is_connected(self) -> bool:
        return self.session is not None and self.session.is_attached

    def stats(self) -> SeatStats:
        mean = self.think_ms_total / self.accepted if self.accepted else 0.0
        return SeatStats(
            seat=self.index,
            bot_name=self.bot,
            bot_version=self.version,
            actions=self.accepted,
            think_ms_mean=mean,
            think_ms_max=self.think_ms_max,
            timeouts=self.timeouts,
            auto_plays=self.auto_plays,
            illegal_replies=self.illegal,
            malformed_replies=self.malformed,
            disconnects=self.disconnects,
            cpu_timeouts=self.cpu_timeouts,
            fallbacks=self.fallbacks,
        )


class Watcher:
    """One spectator stream of a table: a bounded queue of WatchTableResponse (None ends it)."""

    __slots__ = ("overflowed", "queue", "skip_until")

    def __init__(self, size: int, skip_until: int = 0) -> None:
        self.skip_until = skip_until
        self.queue: asyncio.Queue[spectator_service_pb2.WatchTableResponse | None] = asyncio.Queue(
            size
        )
        self.overflowed = False

    def put(self, message: spectator_service_pb2.WatchTableResponse | None) -> None:
        if self.overflowed:
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.overflowed = True
            # Make room for the end marker: the watcher is told it fell behind.
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)


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
        self._seats = [_Seat(i, bot, time_control.bank_ms) for i, bot in enumerate(spec.seat_bots)]
        for seat, clock in zip(self._seats, spec.seat_clocks, strict=False):
            seat.cpu_clock = clock
        self._cpu_marks: dict[Callable[[], float], float] = {}
        """Per CPU clock (seats of one bot share one): its reading at the bot's previous reply
        or timeout."""
        self._seated = asyncio.Event()
        self._finished = asyncio.Event()
        self._request: _Request | None = None
        self._waiter: asyncio.Future[None] | None = None
        """What the table's task awaits while requests are open (see ``_play``)."""
        self._clock: asyncio.TimerHandle | None = None
        self._next_request_id = 0
        self._sent_seq = 0
        self._abort_detail = ""
        self._forfeit: Forfeit | None = None
        self._detail = ""
        self._replay = ReplayBuilder()
        self._ruleset_proto = convert.ruleset_to_proto(spec.ruleset)
        self._encoder = RequestEncoder(spec.ruleset)
        self._event_prefix = table_event_prefix(table_id)
        self._time_control_proto = time_control.to_proto()
        self._log = log.bind(table=table_id)
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

    def seat_of(self, session: SeatChannel) -> int | None:
        """The seat ``session`` holds at this table, if any."""
        for seat in self._seats:
            if seat.session is session:
                return seat.index
        return None

    def seat(self, sessions: Sequence[SeatChannel]) -> None:
        """Seats one session per seat (the server chose them) and lets the game begin."""
        for seat, session in zip(self._seats, sessions, strict=True):
            seat.session = session
            seat.version = session.version
            session.join(self, seat.index)
        self.status = TableStatus.PLAYING
        self.started_at = time.time()
        self._start_replay()
        self._seated.set()

    def abort(self, detail: str) -> None:
        """Ends the game with no winner (an operator, a shutdown, or a join timeout)."""
        if self.status is TableStatus.FINISHED or self._abort_detail:
            return
        self._abort_detail = detail or "aborted"
        if self.status is TableStatus.WAITING:
            self._seated.set()
        elif self._request is not None:
            self._close(self._request, _Reply.ABORTED)

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
                self._announce()
                await self._play()
        except Exception:
            self._log.exception("table failed")
            if not self.game.is_over:
                self._abort_detail = "internal server error"
                self.game.abort()
        finally:
            self._finish()

    def _announce(self) -> None:
        for seat in self._seats:
            if seat.session is not None:
                seat.session.send(_ConnectResponse(table_joined=self.joined_message(seat.index)))

    async def _play(self) -> None:
        """Asks each seat in turn until the game is over.

        A reply accepted in time sends the next request at once, from ``submit`` (``_advance``):
        the task sleeps through a whole run of moves and wakes only when a request is closed
        otherwise (a missed deadline, a seat gone, an abort), when the next seat is gone, or when
        the game is over.
        """
        game = self.game
        loop = asyncio.get_running_loop()
        self._flush()
        while not game.is_over:
            if self._abort_detail:
                game.abort()
                break
            seat = self._seats[game.current_player]  # type: ignore[index]
            if seat.gone:
                self._missed(seat, gone=True)
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
                if reply is _Reply.TIMEOUT:
                    assert request is not None
                    self._missed(self._seats[request.seat], gone=False)
                elif reply is _Reply.GONE:
                    assert request is not None
                    self._missed(self._seats[request.seat], gone=True)
                elif reply is _Reply.ABORTED:
                    game.abort()
            self._flush()
        self._flush()

    def _wake(self, error: BaseException | None = None) -> None:
        """Wakes the table's task (raising ``error`` in it, if given)."""
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            if error is None:
                waiter.set_result(None)
            else:
                waiter.set_exception(error)

    def _close(self, request: _Request, reply: _Reply) -> None:
        """Closes ``request``; anything but an accepted reply wakes the table's task."""
        request.deadline = None
        if request.reply is None:
            request.reply = reply
            if reply is not _Reply.ACCEPTED:
                self._wake()

    def _advance(self) -> None:
        """After an accepted reply: the events, and the next request while the seat to act is
        not gone; otherwise (or on an error) the table's task takes over."""
        try:
            self._flush()
            game = self.game
            if not game.is_over and not self._abort_detail:
                seat = self._seats[game.current_player]  # type: ignore[index]
                if not seat.gone:
                    self._open_request(seat)
                    return
        except Exception as error:  # the task fails the table, as if raised there
            self._wake(error)
            return
        self._wake()

    # Requests and replies -----------------------------------------------------------------------

    def _open_request(self, seat: _Seat) -> None:
        """Opens the table's next request for ``seat``, sent now if the seat is connected."""
        self._next_request_id += 1
        request = _Request(self._next_request_id, seat.index)
        self._request = request
        if seat.is_connected:
            self._send_request(request, seat)
        else:
            self._start_clock(request, seat)  # the clock runs while the bot is away

    def _send_request(self, request: _Request, seat: _Seat) -> None:
        """Sends the open request, starting its clock; sent again after a resume, it carries
        the time left (the clock ran while the bot was away), not a new deadline."""
        tc = self.time_control
        game = self.game
        assert seat.session is not None
        if seat.held:
            self._release(seat)
        if request.deadline is not None:
            left_ms = max(0, int((request.deadline - asyncio.get_running_loop().time()) * 1000))
            action_ms = min(tc.action_ms, left_ms)
            seat.session.send_encoded(
                self._encoder.action_request(
                    table_id=self.id,
                    request_id=request.id,
                    seat=seat.index,
                    observation=game.observation_for(seat.index),
                    legal=game.legal_actions(),
                    deadline_ms=action_ms,
                    bank_ms=left_ms - action_ms,
                    last_seq=self._sent_seq,
                    masks=seat.session.wants_card_masks,
                )
            )
            return
        if request.message is None:
            # Encoded once, as bytes (the ruleset and completed tricks come encoded already).
            request.message = self._encoder.action_request(
                table_id=self.id,
                request_id=request.id,
                seat=seat.index,
                observation=game.observation_for(seat.index),
                legal=game.legal_actions(),
                deadline_ms=tc.action_ms,
                bank_ms=seat.bank_ms,
                last_seq=self._sent_seq,
                masks=seat.session.wants_card_masks,
            )
        self._start_clock(request, seat)
        seat.session.send_encoded(request.message)

    def _release(self, seat: _Seat) -> None:
        """Sends the events held for the seat's session, in order."""
        held, seat.held = seat.held, []
        session = seat.session
        if session is not None:
            self._send_events(session, held)

    def _send_events(self, session: SeatChannel, elements: list[bytes]) -> None:
        """Sends a session these events of the table (encoded as ``TableEvent.event`` fields),
        in order: one TableEvents message if its Hello asked (``Hello.group_events``), else
        a TableEvent each."""
        prefix = self._event_prefix
        if session.groups_events:
            session.send_encoded(events_message(prefix, elements))
        else:
            for element in elements:
                session.send_encoded(event_message(prefix, element))

    def _start_clock(self, request: _Request, seat: _Seat) -> None:
        """Starts the request's clock: the seat's action time plus its bank."""
        request.budget_ms = self.time_control.action_ms + seat.bank_ms
        request.sent_at = time.monotonic()
        now = asyncio.get_running_loop().time()
        if seat.cpu_clock is None:
            request.deadline = now + request.budget_ms / 1000.0
            self._arm_clock(request.deadline)
        else:
            if request.cpu_start is None:
                request.cpu_start = self._cpu_mark(seat.cpu_clock)
            request.deadline = now + _cpu_wall_ms(request.budget_ms) / 1000.0
            self._arm_clock(min(request.deadline, now + self._cpu_wait_s(request, seat)))

    def _arm_clock(self, at: float) -> None:
        """Makes the table's one timer ring by ``at``. It is re-armed lazily, when it rings
        before the open request's deadline: a reply in time costs no timer at all."""
        clock = self._clock
        if clock is not None:
            if clock.when() <= at:
                return
            clock.cancel()
        self._clock = asyncio.get_running_loop().call_at(at, self._clock_rang)

    def _cpu_mark(self, clock: Callable[[], float]) -> float:
        mark = self._cpu_marks.get(clock)
        if mark is None:
            mark = self._cpu_marks[clock] = clock()
        return mark

    def _cpu_used_ms(self, request: _Request, seat: _Seat) -> int:
        assert seat.cpu_clock is not None and request.cpu_start is not None
        return int((seat.cpu_clock() - request.cpu_start) * 1000)

    def _cpu_wait_s(self, request: _Request, seat: _Seat) -> float:
        """How long the budget's CPU time cannot run out (all this machine's CPUs busy)."""
        left_ms = request.budget_ms - self._cpu_used_ms(request, seat)
        return max(_CPU_POLL_MIN_S, left_ms / 1000.0 / _CPUS)

    def _clock_rang(self) -> None:
        self._clock = None
        request = self._request
        if request is None or request.deadline is None or not request.is_open:
            return
        now = asyncio.get_running_loop().time()
        seat = self._seats[request.seat]
        if seat.cpu_clock is not None and request.cpu_start is not None:
            if self._cpu_used_ms(request, seat) >= request.budget_ms:
                seat.cpu_timeouts += 1
                self._deadline_passed(request)
            elif now >= request.deadline - _CLOCK_SLACK_S:
                self._deadline_passed(request)
            else:
                self._arm_clock(min(request.deadline, now + self._cpu_wait_s(request, seat)))
        elif now >= request.deadline - _CLOCK_SLACK_S:
            self._deadline_passed(request)
        else:
            self._arm_clock(request.deadline)

    def _deadline_passed(self, request: _Request) -> None:
        request.deadline = None
        if request.is_open:
            seat = self._seats[request.seat]
            seat.last_late_request = request.id
            if seat.cpu_clock is not None:
                self._cpu_marks[seat.cpu_clock] = seat.cpu_clock()
            self._close(request, _Reply.TIMEOUT)

    def submit(self, seat_index: int, reply: bot_service_pb2.ActionReply) -> tuple[int, str] | None:
        """Checks and applies a bot's reply; ``None`` when accepted, else (reason, message).

        The checks run in order: the game is not over, the seat has the open request, the
        request id is the open one, the reply is in time, the action is well-formed, it is legal.
        """
        seat = self._seats[seat_index]
        request = self._request
        if self.status is TableStatus.FINISHED or self.game.is_over:
            return _Reason.REJECTION_REASON_GAME_OVER, f"the game at table {self.id} is over"
        if request is None or not request.is_open or request.seat != seat_index:
            if reply.request_id and reply.request_id == seat.last_late_request:
                return self._reject_late(reply.request_id)
            to_act = self.game.current_player
            return (
                _Reason.REJECTION_REASON_NOT_YOUR_TURN,
                f"no request is open for seat {seat_index}: seat {to_act} is to act",
            )
        if reply.request_id != request.id:
            if reply.request_id and reply.request_id == seat.last_late_request:
                return self._reject_late(reply.request_id)
            return (
                _Reason.REJECTION_REASON_STALE_REQUEST,
                f"request_id {reply.request_id} is not the open request {request.id}",
            )
        think_ms = int((time.monotonic() - request.sent_at) * 1000)
        if seat.cpu_clock is not None and request.cpu_start is not None:
            wall_ms = think_ms
            think_ms = self._cpu_used_ms(request, seat)
            if request.deadline is not None and think_ms > request.budget_ms:
                seat.cpu_timeouts += 1
                self._deadline_passed(request)
                return self._reject_late(reply.request_id)
            if request.deadline is not None and wall_ms > _cpu_wall_ms(request.budget_ms):
                self._deadline_passed(request)
                return self._reject_late(reply.request_id)
        elif request.deadline is not None and think_ms > request.budget_ms:
            self._deadline_passed(request)
            return self._reject_late(reply.request_id)
        try:
            action = convert.action_from_proto(reply.action)
        except MalformedMessageError as error:
            seat.malformed += 1
            return self._rejected(
                seat, reply, _Reason.REJECTION_REASON_MALFORMED_ACTION, str(error)
            )
        note, fallback, problem = _note_and_fallback(reply)
        if problem is not None:
            seat.malformed += 1
            return self._rejected(
                seat,
                reply,
                _Reason.REJECTION_REASON_MALFORMED_ACTION,
                f"{problem}: the reply is refused whole (its action is not played); send it "
                "again within the deadline",
            )
        try:
            self.game.apply(action)
        except MalformedActionError as error:
            seat.malformed += 1
            return self._rejected(
                seat, reply, _Reason.REJECTION_REASON_MALFORMED_ACTION, str(error)
            )
        except IllegalActionError as error:
            seat.illegal += 1
            return self._rejected(seat, reply, _Reason.REJECTION_REASON_ILLEGAL_ACTION, str(error))
        overrun = think_ms - self.time_control.action_ms
        if overrun > 0:
            seat.bank_ms = max(0, seat.bank_ms - overrun)
        if seat.cpu_clock is not None:
            self._cpu_marks[seat.cpu_clock] = seat.cpu_clock()
        seat.accepted += 1
        seat.think_ms_total += think_ms
        seat.think_ms_max = max(seat.think_ms_max, think_ms)
        if fallback is not None:
            seat.fallbacks += 1
        self._replay.record_action(
            seat_index, action, think_ms, ActionOutcome.ACCEPTED, note=note, fallback=fallback
        )
        self._hooks.action_done("accepted", think_ms / 1000.0)
        self._close(request, _Reply.ACCEPTED)
        self._request = None
        self._advance()
        return None

    def _reject_late(self, request_id: int) -> tuple[int, str]:
        return (
            _Reason.REJECTION_REASON_LATE,
            f"request {request_id} passed its deadline before the reply arrived",
        )

    def _rejected(
        self, seat: _Seat, reply: bot_service_pb2.ActionReply, reason: int, message: str
    ) -> tuple[int, str]:
        # Bounded: a bot must not grow the replay at will (unknown fields, huge burys, floods).
        request = self._request
        if request is not None and request.recorded < REJECTIONS_RECORDED_PER_REQUEST:
            request.recorded += 1
            self._replay.record_action(
                seat.index,
                _recordable(reply.action),
                0,
                ActionOutcome.REJECTED,
                rejection_reason=message,
            )
        return reason, message

    def _missed(self, seat: _Seat, *, gone: bool) -> None:
        """The seat missed its deadline (or is gone): the late policy decides. A seat away
        (disconnected, its clock running) that forfeits forfeits by disconnection."""
        tc = self.time_control
        if not gone:
            seat.timeouts += 1
            self._hooks.timeout()
        away = gone or not seat.is_connected
        if tc.late_policy is LatePolicy.FORFEIT:
            kind = ForfeitKind.DISCONNECT if away else ForfeitKind.TIMEOUT
            why = "did not resume within the grace period" if gone else "missed its deadline"
            if away and not gone:
                why += " while disconnected"
            self._forfeit_seat(seat, kind, f"seat {seat.index} ({seat.bot}) {why}")
            return
        seat.strikes += 1
        if tc.strike_limit and seat.strikes > tc.strike_limit:
            kind = ForfeitKind.DISCONNECT if away else ForfeitKind.STRIKES
            self._forfeit_seat(
                seat,
                kind,
                f"seat {seat.index} ({seat.bot}) exceeded the strike limit of {tc.strike_limit}"
                + (" after disconnecting" if away else ""),
            )
            return
        action = fallback_action(self.game.legal_actions())
        self.game.apply(action)
        seat.auto_plays += 1
        self._replay.record_action(seat.index, action, 0, ActionOutcome.AUTO_PLAYED)
        self._hooks.action_done("auto_played", None)
        self._log.info(
            "auto-played", seat=seat.index, bot=seat.bot, action=str(action), strikes=seat.strikes
        )

    def _forfeit_seat(self, seat: _Seat, kind: ForfeitKind, detail: str) -> None:
        self._forfeit = Forfeit(seat.index, kind, detail)
        self._detail = detail
        self._log.info("forfeit", seat=seat.index, bot=seat.bot, reason=kind.value, detail=detail)
        self.game.forfeit(seat.index, kind.value)

    # Disconnection and resume -------------------------------------------------------------------

    def seat_disconnected(self, seat_index: int) -> None:
        """The seat's session lost its stream: its grace period starts (its clock runs on)."""
        seat = self._seats[seat_index]
        if self.is_finished or seat.gone:
            return
        seat.disconnects += 1
        # The seat's clock keeps running: being away buys no thinking time.
        if seat.grace_timer is None:
            seat.grace_timer = asyncio.get_running_loop().call_later(
                self.time_control.grace_ms / 1000.0, self._grace_over, seat
            )
        self._log.info("seat disconnected", seat=seat_index, bot=seat.bot)

    def _grace_over(self, seat: _Seat) -> None:
        seat.grace_timer = None
        if self.is_finished or seat.is_connected:
            return
        seat.gone = True
        seat.held.clear()
        if seat.session is not None:
            seat.session.leave(self.id)
        self._log.info("seat gone: no resume within the grace period", seat=seat.index)
        request = self._request
        if request is not None and request.seat == seat.index:
            self._close(request, _Reply.GONE)

    def resume_messages(self, seat_index: int, last_seq: int) -> list[_ConnectResponse]:
        """The snapshot (and the open request again) for a seat whose session resumed."""
        seat = self._seats[seat_index]
        if seat.grace_timer is not None:
            seat.grace_timer.cancel()
            seat.grace_timer = None
        snapshot = bot_service_pb2.TableSnapshot(
            table=self.joined_message(seat_index),
            observation=convert.observation_to_proto(self.game.observation_for(seat_index)),
        )
        # The snapshot covers every event so far, flushed or not: the observation is the game's
        # present, and the events it includes are not sent to this seat again.
        session = seat.session
        if session is None or session.wants_events:  # observations_only: no events at all
            for event in self.game.events_since(max(0, last_seq)):
                snapshot.missed_events.add(
                    table_id=self.id, event=self._event_proto(event, seat_index)
                )
        seat.skip_until = self.game_seq
        seat.held.clear()  # the snapshot's events include them
        return [_ConnectResponse(table_snapshot=snapshot)]

    @property
    def game_seq(self) -> int:
        """The sequence number of the game's latest event (sent or about to be)."""
        return max(self.game.last_seq, self._sent_seq)

    def resend_request(self, seat_index: int) -> None:
        """After a resume: sends the seat's open request again, with the time it has left."""
        request = self._request
        seat = self._seats[seat_index]
        if request is not None and request.is_open and request.seat == seat_index:
            self._send_request(request, seat)

    # Events -------------------------------------------------------------------------------------

    def _event_proto(self, event: Any, seat: int | None) -> events_pb2.Event:
        return convert.event_to_proto(
            event, self.ruleset, seat, forfeit=self._forfeit, detail=self._game_detail()
        )

    def _flush(self) -> None:
        """Sends every event not sent yet: each seat its own view, spectators the public one."""
        game = self.game
        if game.last_seq <= self._sent_seq:
            return
        # Who gets events: attached, present, and not a session that asked for none.
        receivers = [
            seat
            for seat in self._seats
            if seat.session is not None
            and seat.session.is_attached
            and not seat.gone
            and seat.session.wants_events
        ]
        if not receivers and not self.watchers:  # nobody to tell (observations-only seats)
            self._sent_seq = game.last_seq
            return
        events = game.events_since(self._sent_seq)
        watchers = self.watchers
        # A grouping session that does not defer gets this flush's events as one message.
        grouped: dict[int, list[bytes]] = {}
        for event in events:
            # Each view encoded once: the public bytes are shared by every receiver (the most
            # frequent events from bytes encoded once, without a proto).
            shared = public_event_element(event) if receivers else None
            public = self._event_proto(event, None) if watchers else None
            if shared is None and receivers and type(event).view is EventBase.view:
                if public is None:
                    public = self._event_proto(event, None)
                shared = event_element(public)
            for seat in receivers:
                if event.seq <= seat.skip_until:
                    continue
                session = seat.session
                assert session is not None
                if shared is None:
                    element = event_element(self._event_proto(event, seat.index))
                else:
                    element = shared
                if session.defers_events:
                    seat.held.append(element)
                elif session.groups_events:
                    grouped.setdefault(seat.index, []).append(element)
                else:
                    session.send_encoded(event_message(self._event_prefix, element))
            if watchers:
                message = spectator_service_pb2.WatchTableResponse(event=public)
                for watcher in list(watchers):
                    if event.seq > watcher.skip_until:
                        watcher.put(message)
            self._sent_seq = event.seq
        for index, elements in grouped.items():
            session = self._seats[index].session
            assert session is not None
            self._send_events(session, elements)

    @property
    def last_seq(self) -> int:
        """The sequence number of the last event sent."""
        return self._sent_seq

    def public_events_since(self, seq: int) -> list[events_pb2.Event]:
        """The public form of every event after ``seq`` (sent or about to be)."""
        return [self._event_proto(event, None) for event in self.game.events_since(max(0, seq))]

    def public_snapshot(self) -> spectator_service_pb2.PublicSnapshot:
        """What a spectator sees when watching begins: the summary and the public observation."""
        return spectator_service_pb2.PublicSnapshot(
            table=self.summary(),
            observation=convert.observation_to_proto(self.game.public_view()),
            last_seq=self.game_seq,
        )

    # Messages -----------------------------------------------------------------------------------

    def seat_infos(self) -> list[table_pb2.SeatInfo]:
        """Who sits where (versions once joined)."""
        return [
            table_pb2.SeatInfo(
                seat=seat.index,
                side=self.ruleset.side_of(seat.index),
                bot_name=seat.bot,
                bot_version=seat.version,
            )
            for seat in self._seats
        ]

    def joined_message(self, seat_index: int) -> bot_service_pb2.TableJoined:
        """The TableJoined message of a seat."""
        return bot_service_pb2.TableJoined(
            table_id=self.id,
            seat=seat_index,
            ruleset=self._ruleset_proto,
            seats=self.seat_infos(),
            time_control=self._time_control_proto,
            game_number=self.spec.game_number,
            bot_seed=self.bot_seed(seat_index),
        )

    def bot_seed(self, seat_index: int) -> int:
        """The seat's seed for its own randomness in this game (see ``_bot_seeds``)."""
        key = self.spec.bot_seed_key or b""
        return bot_seed(key, self.seed, self.spec.game_number, seat_index)

    def summary(self) -> table_pb2.TableSummary:
        """What anybody may know about the table."""
        created = Timestamp()
        created.FromNanoseconds(int(self.created_at * 1e9))
        summary = table_pb2.TableSummary(
            table_id=self.id,
            ruleset=self._ruleset_proto,
            seats=self.seat_infos(),
            status=self.status.value,
            hand_number=self.game.hand_number,
            scores=self.game.scores,
            time_control=self._time_control_proto,
            created_at=created,
            tournament_id=self.spec.tournament_id,
        )
        if self.outcome is not None:
            summary.result.CopyFrom(self.outcome.result_proto)
        return summary

    def clock_view(self) -> dict[str, object]:
        """The clock as a spectator may see it: the time per action, each seat's bank, and the
        open request's seat and milliseconds left of its budget (``to_act`` -1 and ``ms_left``
        None while no request is open)."""
        request = self._request
        to_act, ms_left = -1, None
        if request is not None and request.is_open and request.sent_at:
            to_act = request.seat
            elapsed = int((time.monotonic() - request.sent_at) * 1000)
            ms_left = max(0, request.budget_ms - elapsed)
        return {
            "action_ms": self.time_control.action_ms,
            "bank_ms": [seat.bank_ms for seat in self._seats],
            "to_act": to_act,
            "ms_left": ms_left,
        }

    def _game_detail(self) -> str:
        if self._abort_detail:
            return self._abort_detail
        return self._detail

    # Replay -------------------------------------------------------------------------------------

    def _start_replay(self) -> None:
        start = datetime.fromtimestamp(self.started_at, UTC)
        self._replay.start(
            self.ruleset,
            self.seed,
            seats=[
                SeatAssignment(seat.index, self.ruleset.side_of(seat.index), seat.bot, seat.version)
                for seat in self._seats
            ],
            start_time=start,
            server_version=self._server_version,
            table_id=self.id,
            tournament_id=self.spec.tournament_id,
            time_control=self._time_control_proto,
            game=self.game,  # followed: each action is applied once, by the table
        )

    def _finish_replay(self, result: results_pb2.GameResult) -> Callable[[], replay_pb2.Replay]:
        """Ends the recording; what makes the complete replay. A table aborted before it started
        has no hands (no deal shown)."""
        if self.started_at == 0.0:
            aborted = self._unstarted_replay(result)
            return lambda: aborted
        builder = self._replay
        builder.finish(forfeit=self._forfeit, detail=result.detail)  # the game is over
        return lambda: _replay_with_result(builder, result)

    def _unstarted_replay(self, result: results_pb2.GameResult) -> replay_pb2.Replay:
        """The replay of a table aborted before it started: its header and result."""
        created = Timestamp()
        created.FromNanoseconds(int(self.created_at * 1e9))
        return replay_pb2.Replay(
            header=replay_pb2.ReplayHeader(
                ruleset=self._ruleset_proto,
                seed=self.seed,
                seats=self.seat_infos(),
                start_time=created,
                server_version=self._server_version,
                table_id=self.id,
                tournament_id=self.spec.tournament_id,
                time_control=self._time_control_proto,
            ),
            result=result,
        )

    def _finish(self) -> None:
        if self.status is TableStatus.FINISHED:
            return
        if self._clock is not None:
            self._clock.cancel()
            self._clock = None
        game = self.game
        if not game.is_over:
            game.abort()
        request = self._request
        if request is not None:
            self._close(request, _Reply.ABORTED)
            self._request = None
        result = game.result
        assert result is not None
        forfeit = self._forfeit if result.reason is Termination.FORFEIT else None
        if result.reason is Termination.FORFEIT and forfeit is None:
            forfeit = Forfeit(-1, ForfeitKind.TIMEOUT, "forfeit")
        detail = self._game_detail()
        result_proto = convert.game_result_to_proto(result, forfeit=forfeit, detail=detail)
        was_playing = self.status is TableStatus.PLAYING
        if was_playing:
            self._flush()
        build_replay = self._finish_replay(result_proto)
        self.status = TableStatus.FINISHED
        duration = time.time() - self.started_at if self.started_at else 0.0
        outcome = self.outcome = TableOutcome(
            table_id=self.id,
            result=result,
            result_proto=result_proto,
            termination=result_proto.reason,
            forfeit_seat=result_proto.forfeit_seat,
            detail=detail,
            build_replay=build_replay,
            seat_stats=tuple(seat.stats() for seat in self._seats),
            duration_s=duration,
            recorded=self._replay if self.started_at else None,
        )
        for seat in self._seats:
            if seat.grace_timer is not None:
                seat.grace_timer.cancel()
                seat.grace_timer = None
            session = seat.session
            if seat.held and not seat.gone:
                self._release(seat)
            if session is not None and not seat.gone:
                session.table_finished(
                    self.id,
                    _ConnectResponse(
                        table_finished=bot_service_pb2.TableFinished(
                            table_id=self.id, result=result_proto, seat=seat.index
                        )
                    ),
                )
        for watcher in list(self.watchers):
            watcher.put(None)
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


def _replay_with_result(
    builder: ReplayBuilder, result: results_pb2.GameResult
) -> replay_pb2.Replay:
    """The finished builder's replay, with the result the table sent its bots."""
    replay = builder.replay()
    replay.result.CopyFrom(result)
    return replay


def _note_and_fallback(
    reply: bot_service_pb2.ActionReply,
) -> tuple[notes_pb2.BotNote | None, notes_pb2.Fallback | None, str | None]:
    """A reply's note (``None`` when absent or empty) and fallback mark, or the first bound it
    breaks."""
    note = reply.note if reply.HasField("note") and (reply.note.text or reply.note.values) else None
    fallback = reply.fallback if reply.HasField("fallback") else None
    problem = None
    if note is not None:
        problem = notes.note_problem(note)
    if problem is None and fallback is not None:
        problem = notes.fallback_problem(fallback)
    return note, fallback, problem
