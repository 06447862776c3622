"""One bot session: a ``BotService.Connect`` stream, its tables, and reconnecting with resume.

The stream and its reconnection are here; a session's tables and their bots are
``_table_messages``'s, its answers to the requests ``_answers``'s.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Callable
from typing import TypeAlias, cast

import grpc
import structlog
from rookery.v1 import bot_service_pb2 as pb
from rookery.wire.fastpath import (
    Request,
    Response,
    ResponseReader,
    request_bytes,
    serialize_request,
)

from ._answers import Answers
from ._bot import Bot
from ._errors import (
    ServerUnreachableError,
    SessionRefusedError,
    TokenRejectedError,
    WrongServerError,
)
from ._options import BotRunOptions, RunStats
from ._table_messages import TableMessages
from ._table_play import TablePlay

__all__ = ["Session"]

log = structlog.get_logger("rookery.client")

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
_CONNECT = "/" + pb.DESCRIPTOR.services_by_name["BotService"].full_name + "/Connect"


def _wants_events(factory: Callable[[], Bot]) -> bool:
    """Whether the factory's bots read events: a ``Bot`` class that does not override
    ``on_event`` does not, so its sessions ask for none (``Hello.observations_only``)."""
    if isinstance(factory, type) and issubclass(factory, Bot):
        return factory.on_event is not Bot.on_event
    return True


_Call: TypeAlias = grpc.aio.StreamStreamCall[pb.ConnectRequest | bytes, Response]
"""The Connect stream as the SDK opens it: replies written as bytes, responses read."""


def _only_message(response: object) -> tuple[str | None, object]:
    """The one message of a response that is not a batch: its kind and message."""
    if not isinstance(response, Response) or response.batched or len(response.messages) != 1:
        return None, None
    return response.messages[0]


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
        options: BotRunOptions,
        stats: RunStats,
        stop: asyncio.Event,
        on_game_finished: Callable[[str], None],
    ) -> None:
        self.index = index
        self._factory = factory
        self._options = options
        self._stats = stats
        self._stop = stop
        self._tables: dict[str, TablePlay] = {}
        self._session_id = ""
        self._resume_secret = ""
        self._call: _Call | None = None
        self._batching = False
        self._outgoing: list[pb.ConnectRequest | bytes] = []
        """What the writer sends next: messages, and replies encoded (``bytes``)."""
        self._outgoing_ready = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()
        self._log = log.bind(bot=options.name, session=index)
        self._idle_timeout_s = 0.0
        self._welcomed_before = False
        self._last_write = time.monotonic()
        self._messages = TableMessages(self._tables, factory, on_game_finished, self._log)
        self._answers = Answers(self._tables, options, stats, self._write, self._tasks, self._log)

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
            # the server's messages read by the SDK's own reader (action requests into engine
            # values, each hand's auction and completed tricks read once per stream).
            call: _Call = channel.stream_stream(
                _CONNECT,
                request_serializer=serialize_request,
                response_deserializer=ResponseReader(),
            )()
            try:
                await self._serve(call, welcomed)
            finally:
                self._call = None
                call.cancel()

    async def _serve(self, call: _Call, welcomed: asyncio.Event) -> None:
        resuming = bool(self._session_id)
        await call.write(self._hello())
        # asyncio.timeout, not wait_for: on 3.11 wait_for loses a cancellation (a stop) that
        # arrives as the Welcome does, and the stopped session would be served on.
        async with asyncio.timeout(_WELCOME_TIMEOUT_S):
            first = await call.read()
        if first is grpc.aio.EOF:
            await self._raise_status(call)
            return
        kind, message = _only_message(first)
        if kind != "welcome":
            raise SessionRefusedError(
                self._options.name, "PROTOCOL", f"expected a Welcome, got {kind or 'nothing'}"
            )
        welcome = cast(pb.Welcome, message)
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

    async def _raise_status(self, call: _Call) -> None:
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

    async def _write_loop(self, call: _Call) -> None:
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

    async def _read_loop(self, call: _Call) -> None:
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
                # The most frequent first, with no coroutine unless a hook is async.
                if kind == "table_events":
                    pending = self._messages.events(cast(pb.TableEvents, message))
                    if pending is not None:
                        await pending
                elif kind == "action_request":
                    self._answers.on_request(cast(Request | pb.ActionRequest, message))
                elif kind == "event":
                    pending = self._messages.event(cast(pb.TableEvent, message))
                    if pending is not None:
                        await pending
                else:
                    await self._dispatch(message, kind)

    async def _dispatch(self, message: object, kind: str | None) -> None:
        """Hands one of the rarer messages from the server (of oneof ``kind``) to its handler
        (events and requests are handed over by the read loop itself)."""
        if kind == "table_joined":
            await self._messages.on_joined(cast(pb.TableJoined, message))
        elif kind == "action_rejected":
            await self._answers.on_rejected(cast(pb.ActionRejected, message))
        elif kind == "table_finished":
            await self._messages.on_finished(cast(pb.TableFinished, message))
        elif kind == "table_snapshot":
            await self._messages.on_snapshot(cast(pb.TableSnapshot, message))
        elif kind in ("pong", "welcome"):
            pass
        else:
            self._log.debug("ignoring an unknown message", kind=kind)
