"""One bot session: a ``BotService.Connect`` stream, its tables, and reconnecting with resume."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import grpc
import structlog
from rookery.engine import (
    Action,
    Bid,
    Bury,
    CallCard,
    LegalActions,
    NameTrump,
    Observation,
    Pass,
    Phase,
    PlayCard,
    parse_action,
)
from rookery.v1 import bot_service_pb2 as pb
from rookery.wire import convert
from rookery.wire.errors import WireError
from rookery.wire.fastpath import (
    Request,
    Response,
    read_response,
    reply_bytes,
    request_bytes,
    serialize_request,
    table_id_field,
)
from rookery.wire.notes import FALLBACK_REASON_MAX_BYTES, clip_utf8
from rookery.wire.version import rookery_version

from ._bot import PHASE_HOOKS, Bot, Seat, Table
from ._errors import (
    ClientError,
    NoAnswer,
    ServerUnreachableError,
    SessionRefusedError,
    TokenRejectedError,
    WrongServerError,
)

__all__ = ["RunOptions", "RunStats", "Session"]

log = structlog.get_logger("rookery.client")

#: Rejections after which the runner sends the bot's fallback action instead.
_RETRY_WITH_FALLBACK = frozenset(
    {pb.REJECTION_REASON_ILLEGAL_ACTION, pb.REJECTION_REASON_MALFORMED_ACTION}
)
#: Status codes after which reconnecting cannot help.
_FATAL_CODES = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)
#: How long to wait for the Welcome after sending the Hello.
_WELCOME_TIMEOUT_S = 10.0
_ANSWERS = frozenset({str, Pass, Bid, NameTrump, Bury, CallCard, PlayCard})
"""What a sync hook returns (checked before the slower ``inspect.isawaitable``)."""
_CONNECT = "/" + pb.DESCRIPTOR.services_by_name["BotService"].full_name + "/Connect"


def _deadline_margin(seconds: float) -> float:
    """How long before its deadline an async hook is cut short, so the fallback arrives in time:
    a tenth of the time allowed, at least 50 ms and at most 250 ms."""
    return min(0.25, max(0.05, seconds / 10))


def _sdk_version() -> str:
    return rookery_version()


@dataclass(frozen=True)
class RunOptions:
    """How a runner connects and behaves; see :func:`rookery.client.arun_bot`."""

    server: str
    name: str
    token: str = ""
    version: str = ""
    max_tables: int = 1
    sessions: int = 1
    games: int | None = None
    credentials: grpc.ChannelCredentials | None = None
    retry_rejected: bool = True
    connect_timeout_s: float = 10.0
    reconnect_timeout_s: float = 60.0
    backoff_initial_s: float = 0.1
    backoff_max_s: float = 5.0
    client: str = field(default_factory=lambda: f"rookery-python/{_sdk_version()}")
    channel_options: tuple[tuple[str, Any], ...] = ()
    batching: bool = True
    """Offer batching (``Hello.batching``): several messages per gRPC message both ways when a
    session has several at once. Off, every message travels alone."""
    defer_events: bool = True
    """Let the server hold a table's events until the seat's next request or the game's end
    (``Hello.defer_events``): the same events in the same order, fewer messages. Off, each event
    comes as it happens."""
    expect_server: str = ""
    """The server's name the bot expects in the Welcome (``Welcome.server_name``); any other
    server ends the run with :class:`WrongServerError`. Empty: any server."""


@dataclass
class RunStats:
    """What a run did, summed over its sessions."""

    games: int = 0
    """Games finished (a game the bot played on several seats counts once)."""
    actions: int = 0
    """Replies sent (fallbacks and retries included)."""
    fallbacks: int = 0
    """Fallback actions sent because a hook failed, was too slow or answered illegally."""
    no_answers: int = 0
    """Requests left unanswered because the hook raised ``NoAnswer`` (the late policy applies)."""
    rejections: int = 0
    """``ActionRejected`` messages received."""
    reconnects: int = 0
    """Streams re-opened after a drop (resumed or not)."""
    resumes: int = 0
    """Reconnections the server accepted as resumes of the earlier session."""
    batches_received: int = 0
    """``ConnectResponse.batch`` messages received (each carrying several messages)."""
    batches_sent: int = 0
    """``ConnectRequest.batch`` messages sent (each carrying several replies)."""


@dataclass(slots=True)
class _OpenRequest:
    """The request a table's bot is answering or has answered, kept for a retry on rejection."""

    request_id: int
    observation: Observation
    legal: LegalActions
    sent: Action | None = None
    retried: bool = False
    asked_at: float = 0.0
    """When the request came (``time.monotonic()``), for a bot that thinks into its bank."""


@dataclass(slots=True)
class _TableState:
    """One table of the session: its bot instance, its hooks and its event cursor."""

    table: Table
    bot: Bot
    hooks: dict[Phase, Callable[[Observation], Any]]
    wants_events: bool
    last_seq: int = 0
    request: _OpenRequest | None = None
    log: Any = None
    table_field: bytes = b""
    """The table's encoded ``ActionReply.table_id`` (each reply starts with it)."""
    bank_ms: int = -1
    """The seat's time bank left, kept for a bot that ``uses_bank`` (-1: it does not)."""


def _hooks_of(bot: Bot) -> dict[Phase, Callable[[Observation], Any]]:
    """For each phase, the overridden per-phase hook or else ``act`` (resolved once per table)."""
    return {phase: bot.hook_for(phase) for phase in PHASE_HOOKS}


def _table_from_proto(joined: pb.TableJoined) -> Table:
    seats = tuple(
        Seat(seat=s.seat, side=s.side, bot_name=s.bot_name, bot_version=s.bot_version)
        for s in sorted(joined.seats, key=lambda s: s.seat)
    )
    return Table(
        table_id=joined.table_id,
        seat=joined.seat,
        ruleset=convert.ruleset_from_proto(joined.ruleset),
        seats=seats,
        action_ms=joined.time_control.action_ms,
        bank_ms=joined.time_control.bank_ms,
        game_number=joined.game_number,
        bot_seed=joined.bot_seed,
    )


def _wants_events(factory: Callable[[], Bot]) -> bool:
    """Whether the factory's bots read events: a ``Bot`` class that does not override
    ``on_event`` does not, so its sessions ask for none (``Hello.observations_only``)."""
    if isinstance(factory, type) and issubclass(factory, Bot):
        return factory.on_event is not Bot.on_event
    return True


def _only_message(response: Response | None) -> tuple[str | None, Any]:
    """The one message of a response that is not a batch: its kind and message."""
    if response is None or response.batched or len(response.messages) != 1:
        return None, None
    return response.messages[0]


def _bind(table: Table) -> Mapping[str, Any]:
    """Bind the table and seat for structlog while a hook runs; the tokens to reset them."""
    return structlog.contextvars.bind_contextvars(table_id=table.table_id, seat=table.seat)


class Session:
    """One ``Connect`` stream of a bot, reconnected and resumed until stopped.

    Tables are multiplexed by id over the stream, each with its own ``Bot`` instance made by the
    factory. Sync hooks run inline, in the order of the stream; ``async def`` hooks run as tasks so
    that one slow table never holds up the others.
    """

    def __init__(
        self,
        index: int,
        factory: Callable[[], Bot],
        options: RunOptions,
        stats: RunStats,
        stop: asyncio.Event,
        on_game_finished: Callable[[str], None],
    ) -> None:
        self.index = index
        self._factory = factory
        self._options = options
        self._stats = stats
        self._stop = stop
        self._on_game_finished = on_game_finished
        self._tables: dict[str, _TableState] = {}
        self._session_id = ""
        self._resume_secret = ""
        self._call: Any = None
        self._batching = False
        self._outgoing: list[pb.ConnectRequest | bytes] = []
        """What the writer sends next: messages, and replies encoded (``bytes``)."""
        self._outgoing_ready = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._log = log.bind(bot=options.name, session=index)
        self._idle_timeout_s = 0.0
        self._welcomed_before = False
        self._last_write = time.monotonic()

    @property
    def tables(self) -> int:
        """How many tables the session is seated at now."""
        return len(self._tables)

    # The connection loop ---------------------------------------------------------------------

    async def run(self) -> None:
        """Connect, play, reconnect after drops; return when ``stop`` is set.

        Raises :class:`TokenRejectedError`, :class:`SessionRefusedError` or (when the server stays
        unreachable longer than the connect or reconnect timeout) :class:`ServerUnreachableError`.
        """
        options = self._options
        attempt = 0
        ever_connected = False
        down_since = time.monotonic()
        while not self._stop.is_set():
            welcomed = asyncio.Event()
            try:
                if not await self._serve_until_stopped(welcomed):
                    break
                detail = "the server closed the stream"
            except grpc.aio.AioRpcError as error:
                if self._is_resume_refused(error):
                    continue  # the server is there: open a new session at once
                self._raise_if_fatal(error)
                detail = f"{error.code().name}: {error.details()}"
            except TimeoutError:
                detail = f"no Welcome within {_WELCOME_TIMEOUT_S:g} s of the Hello"
            if welcomed.is_set():
                ever_connected = True
                attempt = 0
                down_since = time.monotonic()
            if self._stop.is_set():
                break
            waited = time.monotonic() - down_since
            limit = options.reconnect_timeout_s if ever_connected else options.connect_timeout_s
            if waited >= limit:
                raise ServerUnreachableError(options.server, detail, waited)
            delay = min(options.backoff_max_s, options.backoff_initial_s * 2**attempt)
            delay = min(delay * random.uniform(0.5, 1.0), limit - waited)
            attempt += 1
            self._log.warning(
                "stream lost; reconnecting" if ever_connected else "cannot connect yet; retrying",
                detail=detail,
                retry_in_s=round(delay, 3),
            )
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay)
        for task in list(self._tasks):
            task.cancel()

    def _announce_waiting(self) -> None:
        """Say what a connected bot waits for: a table that seats it (nothing else starts one)."""
        options = self._options
        self._log.info(
            "waiting for a table",
            detail=(
                "a game starts once a table seats this bot, one session per seat it takes "
                f"(it has {options.sessions}); e.g. rookery table create --server "
                f"{options.server} --seat {options.name}"
            ),
        )

    def _is_resume_refused(self, error: grpc.aio.AioRpcError) -> bool:
        """A resume the server refused (grace period over): forget the old session."""
        if error.code() != grpc.StatusCode.FAILED_PRECONDITION or not self._session_id:
            return False
        self._log.warning("resume refused; starting a new session", detail=error.details())
        self._forget_session()
        return True

    def _raise_if_fatal(self, error: grpc.aio.AioRpcError) -> None:
        code = error.code()
        if code == grpc.StatusCode.UNAUTHENTICATED:
            raise TokenRejectedError(self._options.name, error.details() or "") from None
        if code in _FATAL_CODES:
            raise SessionRefusedError(
                self._options.name, code.name, error.details() or ""
            ) from None

    def _forget_session(self) -> None:
        """Drop a session the server no longer knows: its tables were lost with it."""
        for table_id in list(self._tables):
            self._log.warning("table lost with the session", table_id=table_id)
        self._tables.clear()
        self._session_id = ""
        self._resume_secret = ""

    def _hello(self) -> pb.ConnectRequest:
        options = self._options
        hello = pb.Hello(
            name=options.name,
            version=options.version,
            token=options.token,
            max_tables=options.max_tables,
            client=options.client,
            observations_only=not _wants_events(self._factory),
            batching=options.batching,
            defer_events=options.defer_events,
            card_masks=True,  # the SDK reads a request's cards from their masks
            group_events=True,  # a table's events sent together come as one TableEvents
        )
        if self._session_id:
            hello.resume.session_id = self._session_id
            hello.resume.resume_secret = self._resume_secret
            for table_id, state in self._tables.items():
                hello.resume.cursors.add(table_id=table_id, last_seq=state.last_seq)
        return pb.ConnectRequest(hello=hello)

    def _channel(self) -> grpc.aio.Channel:
        options = self._options
        channel_options = [("grpc.enable_retries", 0), *options.channel_options]
        if options.credentials is not None:
            return grpc.aio.secure_channel(options.server, options.credentials, channel_options)
        return grpc.aio.insecure_channel(options.server, channel_options)

    async def _serve_until_stopped(self, welcomed: asyncio.Event) -> bool:
        """Serve one stream until it ends (True) or ``stop`` is set (False)."""
        serving = asyncio.create_task(self._connect_and_serve(welcomed))
        stopping = asyncio.create_task(self._stop.wait())
        try:
            await asyncio.wait({serving, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if serving.done():
                serving.result()
                return True
            return False
        finally:
            stopping.cancel()
            if not serving.done():
                serving.cancel()
                with contextlib.suppress(asyncio.CancelledError, grpc.aio.AioRpcError):
                    await serving

    async def _connect_and_serve(self, welcomed: asyncio.Event) -> None:
        async with self._channel() as channel:
            # BotServiceStub's Connect, with replies sent as the bytes they were encoded into and
            # the server's messages read by the SDK's own reader (action requests from bytes).
            call = channel.stream_stream(
                _CONNECT,
                request_serializer=serialize_request,
                response_deserializer=read_response,
            )()
            try:
                await self._serve(call, welcomed)
            finally:
                self._call = None
                call.cancel()

    async def _serve(self, call: Any, welcomed: asyncio.Event) -> None:
        resuming = bool(self._session_id)
        await call.write(self._hello())
        # asyncio.timeout, not wait_for: on 3.11 wait_for loses a cancellation (a stop) that
        # arrives as the Welcome does, and the stopped session would be served on.
        async with asyncio.timeout(_WELCOME_TIMEOUT_S):
            first = await call.read()
        if first is grpc.aio.EOF:
            await self._raise_status(call)
            return
        kind, welcome = _only_message(first)
        if kind != "welcome":
            raise SessionRefusedError(
                self._options.name, "PROTOCOL", f"expected a Welcome, got {kind or 'nothing'}"
            )
        expected = self._options.expect_server
        if expected and welcome.server_name != expected:
            raise WrongServerError(self._options.server, expected, welcome.server_name)
        if resuming and not welcome.resumed:
            self._forget_session()
        self._session_id = welcome.session_id
        self._resume_secret = welcome.resume_secret
        self._idle_timeout_s = welcome.idle_timeout_ms / 1000
        self._batching = welcome.batching
        self._outgoing.clear()  # replies meant for an earlier stream: the server asks again
        self._call = call
        if self._welcomed_before:
            self._stats.reconnects += 1
        self._welcomed_before = True
        welcomed.set()
        if welcome.resumed:
            self._stats.resumes += 1
        self._log.info(
            "session resumed" if welcome.resumed else "session started",
            server=self._options.server,
            session_id=welcome.session_id,
            max_tables=welcome.max_tables,
            server_version=welcome.server_version,
        )
        if self.index == 0 and not welcome.resumed and not self._tables:
            self._announce_waiting()
        if 0 < welcome.max_tables < self._options.max_tables:
            self._log.warning(
                "the server caps this session's tables",
                asked=self._options.max_tables,
                allowed=welcome.max_tables,
            )
        pinger = asyncio.create_task(self._keep_alive()) if self._idle_timeout_s else None
        writer = asyncio.create_task(self._write_loop(call))
        try:
            await self._read_loop(call)
        finally:
            writer.cancel()
            if pinger is not None:
                pinger.cancel()

    async def _raise_status(self, call: Any) -> None:
        """After an early end of stream, raise the status the server gave."""
        code = await call.code()
        if code != grpc.StatusCode.OK and code != grpc.StatusCode.CANCELLED:
            details = await call.details()
            raise grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details)

    async def _keep_alive(self) -> None:
        """Ping when the stream has been quiet for a third of the server's idle timeout."""
        interval = self._idle_timeout_s / 3
        nonce = 0
        while True:
            await asyncio.sleep(max(0.05, self._last_write + interval - time.monotonic()))
            if time.monotonic() - self._last_write >= interval:
                nonce += 1
                self._write(pb.ConnectRequest(ping=pb.Ping(nonce=nonce)))

    def _write(self, request: pb.ConnectRequest | bytes) -> bool:
        """Queue a message (or an encoded reply) for the current stream's writer; False when
        there is no stream."""
        if self._call is None:
            return False
        self._outgoing.append(request)
        self._outgoing_ready.set()
        return True

    async def _write_loop(self, call: Any) -> None:
        """The stream's one writer: sends what is queued, replies queued together as one
        ``ReplyBatch`` when the server agreed to batching; returns when the stream breaks."""
        while True:
            await self._outgoing_ready.wait()
            self._outgoing_ready.clear()
            while self._outgoing:
                pending, self._outgoing = self._outgoing, []
                try:
                    for message in self._packed(pending):
                        await call.write(message)
                except (
                    grpc.aio.AioRpcError,
                    asyncio.InvalidStateError,
                    grpc.aio.UsageError,
                ) as error:
                    self._log.debug("write failed; the stream is gone", error=str(error))
                    return
                self._last_write = time.monotonic()

    def _packed(self, pending: list[pb.ConnectRequest | bytes]) -> list[pb.ConnectRequest | bytes]:
        """The messages to write for ``pending``: each encoded reply as a ``ConnectRequest``,
        runs of them packed into batches when the server agreed to batching."""
        packed: list[pb.ConnectRequest | bytes] = []
        replies: list[bytes] = []
        for message in pending:
            if type(message) is bytes:
                if not self._batching:
                    packed.append(request_bytes([message]))
                else:
                    replies.append(message)
                continue
            if replies:
                packed.append(self._replies(replies))
                replies = []
            packed.append(message)
        if replies:
            packed.append(self._replies(replies))
        return packed

    def _replies(self, replies: list[bytes]) -> bytes:
        """Encoded replies as one ``ConnectRequest`` (a batch when several)."""
        if len(replies) > 1:
            self._stats.batches_sent += 1
        return request_bytes(replies)

    # Messages from the server ----------------------------------------------------------------

    async def _read_loop(self, call: Any) -> None:
        while True:
            response = await call.read()
            if response is grpc.aio.EOF:
                await self._raise_status(call)
                return
            if response is None:  # grpc logged the reader's error and gave nothing
                self._log.error("skipped a message from the server that is no ConnectResponse")
                continue
            assert isinstance(response, Response)
            if response.batched:
                self._stats.batches_received += 1
            for kind, message in response.messages:
                if kind == "event":  # most messages: no coroutine unless the hook is async
                    pending = self._event(message)
                    if pending is not None:
                        await pending
                elif kind == "table_events":
                    await self._on_events(message)
                elif kind == "action_request":
                    await self._on_request(message)
                else:
                    await self._dispatch(message, kind)

    async def _dispatch(self, message: Any, kind: str | None) -> None:
        """Hands one of the rarer messages from the server (of oneof ``kind``) to its handler
        (events and requests are handed over by the read loop itself)."""
        if kind == "table_joined":
            await self._on_joined(message)
        elif kind == "action_rejected":
            await self._on_rejected(message)
        elif kind == "table_finished":
            await self._on_finished(message)
        elif kind == "table_snapshot":
            await self._on_snapshot(message)
        elif kind in ("pong", "welcome"):
            pass
        else:
            self._log.debug("ignoring an unknown message", kind=kind)

    async def _on_joined(self, joined: pb.TableJoined) -> _TableState | None:
        try:
            table = _table_from_proto(joined)
        except WireError:
            self._log.exception("unreadable table; the server's clock will play for this seat")
            return None
        table_log = self._log.bind(table_id=table.table_id, seat=table.seat)
        try:
            bot = self._factory()
            if not isinstance(bot, Bot):
                raise ClientError(f"the bot factory returned {bot!r}, not a rookery.client.Bot")
        except Exception:
            table_log.exception("no bot for this table; the server's clock will play for it")
            return None
        bot.table = table
        state = _TableState(
            table=table,
            bot=bot,
            hooks=_hooks_of(bot),
            wants_events=type(bot).on_event is not Bot.on_event,
            log=table_log,
            table_field=table_id_field(table.table_id),
            bank_ms=table.bank_ms if bot.uses_bank else -1,
        )
        self._tables[table.table_id] = state
        table_log.info("joined table", ruleset=table.ruleset.name, game_number=table.game_number)
        await self._call_hook(state, "on_table_joined", bot.on_table_joined, table)
        return state

    async def _on_event(self, message: Any) -> None:
        pending = self._event(message)
        if pending is not None:
            await pending

    async def _on_events(self, message: pb.TableEvents) -> None:
        """Hands each event of a TableEvents to its table's bot, in order."""
        state = self._tables.get(message.table_id)
        if state is None:
            return
        for event in message.events:
            pending = self._table_event(state, event)
            if pending is not None:
                await pending

    def _event(self, message: Any) -> Awaitable[None] | None:
        """Hands a TableEvent to its table's bot; an async ``on_event``'s awaitable, to await.

        The hot path: events outnumber requests several times, so no coroutine and no context
        binding here.
        """
        state = self._tables.get(message.table_id)
        if state is None:
            return None
        return self._table_event(state, message.event)

    def _table_event(self, state: _TableState, event: Any) -> Awaitable[None] | None:
        """Hands one event of its table to the table's bot (an event seen already is skipped)."""
        seq = event.seq
        if seq <= state.last_seq:
            return None
        state.last_seq = seq
        if state.wants_events:
            try:
                result = state.bot.on_event(event)
            except Exception:
                state.log.exception("on_event raised", seq=seq)
                return None
            if result is not None:
                return self._finish_event(state, seq, result)
        return None

    @staticmethod
    async def _finish_event(state: _TableState, seq: int, result: Awaitable[Any]) -> None:
        try:
            await result
        except Exception:
            state.log.exception("on_event raised", seq=seq)

    async def _on_finished(self, finished: pb.TableFinished) -> None:
        state = self._tables.pop(finished.table_id, None)
        if state is None:
            return
        try:
            result = convert.game_result_from_proto(finished.result)
        except WireError:
            state.log.exception("unreadable game result")
        else:
            state.log.info(
                "table finished", winners=list(result.winners), scores=list(result.scores)
            )
            await self._call_hook(state, "on_table_finished", state.bot.on_table_finished, result)
        self._on_game_finished(finished.table_id)

    async def _on_snapshot(self, snapshot: pb.TableSnapshot) -> None:
        table_id = snapshot.table.table_id
        state = self._tables.get(table_id)
        if state is None:
            state = await self._on_joined(snapshot.table)
            if state is None:
                return
        state.log.info(
            "table resumed", missed_events=len(snapshot.missed_events), cursor=state.last_seq
        )
        for missed in snapshot.missed_events:
            await self._on_event(missed)

    async def _call_hook(self, state: _TableState, name: str, hook: Any, *args: Any) -> None:
        """Run a lifecycle hook; an exception is logged, never raised."""
        tokens = _bind(state.table)
        try:
            result = hook(*args)
            if inspect.isawaitable(result):
                await result
        except Exception:
            state.log.exception(f"{name} raised")
        finally:
            structlog.contextvars.reset_contextvars(**tokens)

    # Acting ----------------------------------------------------------------------------------

    async def _on_request(self, request: Request | pb.ActionRequest) -> None:
        state = self._tables.get(request.table_id)
        if state is None:
            self._log.warning("request for an unknown table", table_id=request.table_id)
            return
        asked_at = time.monotonic()
        deadline = asked_at + (request.deadline_ms + max(0, state.bank_ms)) / 1000
        if isinstance(request, Request):  # read from its bytes (the usual case)
            observation, legal = request.observation, request.legal
        else:
            # The card sets as integers when the server sends them (one read instead of a
            # message per card); a server without ``card_masks`` leaves the card fields to read.
            masks = request.card_masks if request.HasField("card_masks") else None
            try:
                observation = convert.observation_from_proto(request.observation, masks=masks)
                legal = convert.legal_actions_from_proto(request.legal_actions, masks=masks)
            except WireError:
                state.log.exception("unreadable action request; the server's clock will run out")
                return
        open_request = _OpenRequest(request.request_id, observation, legal, asked_at=asked_at)
        state.request = open_request
        bot = state.bot
        bot.deadline = deadline
        bot.pending_note = None
        hook = state.hooks.get(observation.phase, bot.act)
        tokens = _bind(state.table)
        try:
            chosen = hook(observation)
        except NoAnswer as reason:
            self._no_answer(state, reason)
            return
        except Exception as error:
            # The fallback goes out first: rendering a traceback can take longer than the clock.
            await self._send_fallback(state, open_request, _raised(hook, error))
            state.log.error(
                "the bot raised; sent a fallback action",
                phase=observation.phase.name,
                exc_info=error,
            )
            return
        finally:
            structlog.contextvars.reset_contextvars(**tokens)
        if type(chosen) not in _ANSWERS and inspect.isawaitable(chosen):
            task = asyncio.create_task(self._finish_async(state, open_request, chosen, deadline))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            return
        await self._send_chosen(state, open_request, chosen)

    async def _finish_async(
        self,
        state: _TableState,
        open_request: _OpenRequest,
        chosen: Awaitable[Any],
        deadline: float,
    ) -> None:
        left = deadline - time.monotonic()
        budget = max(0.0, left - _deadline_margin(left))
        _bind(state.table)  # this task's own context: no need to reset
        try:
            action = await asyncio.wait_for(chosen, budget)
        except TimeoutError:
            state.log.warning("the bot ran out of time; sending a fallback action", budget_s=budget)
            await self._send_fallback(
                state, open_request, f"the hook did not answer within {budget:.3f} s"
            )
            return
        except NoAnswer as reason:
            self._no_answer(state, reason)
            return
        except Exception as error:
            await self._send_fallback(state, open_request, _raised(None, error))
            state.log.error("the bot raised; sent a fallback action", exc_info=error)
            return
        await self._send_chosen(state, open_request, action)

    def _no_answer(self, state: _TableState, reason: NoAnswer) -> None:
        self._stats.no_answers += 1
        state.log.warning(
            "the bot gives no answer; the table's late policy applies", reason=str(reason)
        )

    async def _send_chosen(
        self, state: _TableState, open_request: _OpenRequest, chosen: Any
    ) -> None:
        action = chosen
        if isinstance(chosen, str):
            try:
                action = parse_action(chosen)
            except Exception as error:
                state.log.warning(
                    "the bot returned unreadable action text; sending a fallback action",
                    returned=chosen,
                    error=str(error),
                )
                await self._send_fallback(
                    state, open_request, f"the hook returned unreadable action text {chosen!r}"
                )
                return
        if action not in open_request.legal:
            state.log.warning(
                "the bot returned an illegal action; sending a fallback action",
                returned=str(chosen),
                phase=open_request.legal.phase.name,
            )
            shown = chosen if isinstance(chosen, str) else str(chosen)
            await self._send_fallback(
                state, open_request, f"the hook returned an illegal action, {shown!r}"
            )
            return
        await self._reply(state, open_request, action)

    async def _send_fallback(
        self, state: _TableState, open_request: _OpenRequest, reason: str
    ) -> None:
        try:
            action = state.bot.fallback(open_request.observation, open_request.legal)
            if action not in open_request.legal:
                raise ClientError(f"fallback returned the illegal action {action}")
        except Exception as error:
            failed: Exception | None = error
            action = open_request.legal[0]
            reason += f"; fallback raised {type(error).__name__}"
        else:
            failed = None
        self._stats.fallbacks += 1
        await self._reply(state, open_request, action, fallback=reason)
        if failed is not None:
            state.log.error("fallback failed; sent the first legal action", exc_info=failed)

    async def _reply(
        self,
        state: _TableState,
        open_request: _OpenRequest,
        action: Action,
        fallback: str | None = None,
    ) -> None:
        if state.bank_ms > 0 and open_request.sent is None:
            # The server takes the time past the action time off the bank, as here.
            over_ms = (time.monotonic() - open_request.asked_at) * 1000 - state.table.action_ms
            state.bank_ms = max(0, state.bank_ms - max(0, int(over_ms)))
        open_request.sent = action
        reply = reply_bytes(
            state.table_field,
            open_request.request_id,
            action,
            note=state.bot.pending_note,
            fallback_reason=(
                None if fallback is None else clip_utf8(fallback, FALLBACK_REASON_MAX_BYTES)
            ),
        )
        if self._write(reply):
            self._stats.actions += 1

    async def _on_rejected(self, rejected: pb.ActionRejected) -> None:
        self._stats.rejections += 1
        state = self._tables.get(rejected.table_id)
        reason = pb.RejectionReason.Name(rejected.reason)
        logger = state.log if state is not None else self._log
        logger.warning(
            "action rejected",
            table_id=rejected.table_id,
            request_id=rejected.request_id,
            reason=reason,
            message=rejected.message,
        )
        if state is None or not self._options.retry_rejected:
            return
        open_request = state.request
        if open_request is None or open_request.request_id != rejected.request_id:
            return
        if open_request.retried or time.monotonic() >= state.bot.deadline:
            return
        open_request.retried = True
        if rejected.reason == pb.REJECTION_REASON_RATE_LIMITED and open_request.sent is not None:
            await asyncio.sleep(0.05)
            await self._reply(state, open_request, open_request.sent)
        elif rejected.reason in _RETRY_WITH_FALLBACK:
            await self._send_fallback(
                state, open_request, f"the server rejected the reply: {rejected.message}"
            )


def _raised(hook: Any, error: BaseException) -> str:
    """A fallback's reason for a hook that raised: ``act raised ValueError: no card``."""
    name = getattr(hook, "__name__", None) or "the hook"
    return f"{name} raised {type(error).__name__}: {error}"
