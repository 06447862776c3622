"""A scripted Rookery peer: a real ``grpc.aio`` BotService on a loopback port that plays a test's
script instead of a game, and records what the client sent.

In the manner of python-chess's ``MockTransport``: the test writes, per ``Connect`` stream, an
async script that sends server messages and awaits the client's (``expect_hello``,
``expect_reply``), so that every client — the Python SDK and the five kits — is driven through the
same edge cases (a rejection, a batch, a dropped stream and its resume, a refusal) in the same
order, without a real table's clock or opponents.

    async def script(peer: Peer) -> None:
        hello = await peer.expect_hello()
        await peer.send(peer.welcome(hello))
        ...

    async with ScriptedServer.running([script, resumed_script]) as server:
        ...  # start the client against server.target

Each stream takes the next script; a stream beyond the scripts is refused (UNAVAILABLE). A script
that returns ends its stream normally (the client sees the stream end); ``Peer.abort`` ends it with
a status code. Failures inside a script (a wrong message, a timeout) are kept and raised by
``assert_done``.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import grpc
from rookery.v1 import bot_service_pb2, bot_service_pb2_grpc

Script = Callable[["Peer"], Awaitable[None]]

#: How long a script waits for the client's next message by default.
EXPECT_TIMEOUT_S = 30.0


class ScriptError(AssertionError):
    """The client did not follow the script: the message says what came instead."""


@dataclass
class Received:
    """One message from the client, as it came: ``batched`` when it was part of a ReplyBatch."""

    message: bot_service_pb2.ConnectRequest
    batched: bool
    #: The index of the gRPC message it came in, per stream.
    frame: int


class _StreamEnd:
    """The client closed its side of the stream."""


@dataclass
class Peer:
    """One Connect stream as the script sees it: what to send, what to expect."""

    index: int
    _inbox: asyncio.Queue[Received | _StreamEnd] = field(default_factory=asyncio.Queue)
    _outbox: asyncio.Queue[bot_service_pb2.ConnectResponse | None] = field(
        default_factory=asyncio.Queue
    )
    #: Every message the client sent on this stream, in order, batches unpacked.
    received: list[Received] = field(default_factory=list)
    hello: bot_service_pb2.Hello | None = None
    _abort: tuple[grpc.StatusCode, str] | None = None

    async def _next(self, timeout_s: float) -> Received:
        try:
            item = await asyncio.wait_for(self._inbox.get(), timeout_s)
        except TimeoutError:
            raise ScriptError(
                f"stream {self.index}: nothing from the client in {timeout_s:g} s"
            ) from None
        if isinstance(item, _StreamEnd):
            raise ScriptError(f"stream {self.index}: the client closed the stream")
        return item

    async def expect_hello(self, timeout_s: float = EXPECT_TIMEOUT_S) -> bot_service_pb2.Hello:
        """The client's first message, which must be a Hello."""
        got = await self._next(timeout_s)
        if got.message.WhichOneof("message") != "hello":
            raise ScriptError(f"stream {self.index}: expected a Hello, got {got.message}")
        self.hello = got.message.hello
        return got.message.hello

    async def expect_reply(
        self, timeout_s: float = EXPECT_TIMEOUT_S
    ) -> tuple[bot_service_pb2.ActionReply, Received]:
        """The client's next ActionReply (Pings skipped), with how it came."""
        while True:
            got = await self._next(timeout_s)
            kind = got.message.WhichOneof("message")
            if kind == "ping":
                continue
            if kind != "action_reply":
                raise ScriptError(
                    f"stream {self.index}: expected an ActionReply, got {got.message}"
                )
            return got.message.action_reply, got

    async def expect_end(self, timeout_s: float = EXPECT_TIMEOUT_S) -> None:
        """The client closes its side of the stream (or the stream goes) without sending more."""
        try:
            item = await asyncio.wait_for(self._inbox.get(), timeout_s)
        except TimeoutError:
            raise ScriptError(f"stream {self.index}: still open after {timeout_s:g} s") from None
        if not isinstance(item, _StreamEnd):
            raise ScriptError(f"stream {self.index}: expected the end, got {item.message}")

    async def send(self, *messages: Any, batch: bool = False) -> None:
        """Send server messages (``Welcome``, ``TableJoined``, ``ActionRequest``, …), each alone or,
        with ``batch``, packed into one ``ConnectResponse.batch``."""
        wrapped = [_response(message) for message in messages]
        if batch:
            packed = bot_service_pb2.ConnectResponse()
            packed.batch.messages.extend(wrapped)
            await self._outbox.put(packed)
        else:
            for response in wrapped:
                await self._outbox.put(response)

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        """End the stream with a status (after what was sent so far)."""
        self._abort = (code, details)
        self._outbox.put_nowait(None)

    def welcome(
        self, hello: bot_service_pb2.Hello, *, resumed: bool = False, session: str = "s-1"
    ) -> bot_service_pb2.Welcome:
        """The Welcome a server answers ``hello`` with: batching as offered, one table per
        requested table, a known resume secret."""
        return bot_service_pb2.Welcome(
            session_id=session,
            resume_secret=f"secret-{session}",
            server_version="scripted",
            max_tables=max(1, hello.max_tables),
            grace_ms=30000,
            resumed=resumed,
            batching=hello.batching,
        )


_FIELDS = {
    bot_service_pb2.Welcome: "welcome",
    bot_service_pb2.TableJoined: "table_joined",
    bot_service_pb2.TableEvent: "event",
    bot_service_pb2.ActionRequest: "action_request",
    bot_service_pb2.ActionRejected: "action_rejected",
    bot_service_pb2.TableFinished: "table_finished",
    bot_service_pb2.TableSnapshot: "table_snapshot",
}


def _response(message: Any) -> bot_service_pb2.ConnectResponse:
    if isinstance(message, bot_service_pb2.ConnectResponse):
        return message
    response = bot_service_pb2.ConnectResponse()
    getattr(response, _FIELDS[type(message)]).CopyFrom(message)
    return response


class ScriptedServer(bot_service_pb2_grpc.BotServiceServicer):
    """The BotService that plays ``scripts``, one per Connect stream, in order."""

    def __init__(self, scripts: Sequence[Script]) -> None:
        self._scripts = list(scripts)
        self._count = itertools.count()
        self.peers: list[Peer] = []
        self.failures: list[BaseException] = []
        self._tasks: list[asyncio.Future[None]] = []
        self._players: list[asyncio.Future[None]] = []
        self._server: grpc.aio.Server | None = None
        self.target = ""

    @classmethod
    @asynccontextmanager
    async def running(cls, scripts: Sequence[Script]) -> AsyncIterator[ScriptedServer]:
        """The server, listening on 127.0.0.1 at a free port, stopped at the end."""
        scripted = cls(scripts)
        server = grpc.aio.server()
        bot_service_pb2_grpc.add_BotServiceServicer_to_server(scripted, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        scripted._server = server
        scripted.target = f"127.0.0.1:{port}"
        try:
            yield scripted
        finally:
            await server.stop(grace=0.5)
            for task in scripted._tasks:
                task.cancel()

    async def Connect(
        self,
        request_iterator: AsyncIterator[bot_service_pb2.ConnectRequest],
        context: grpc.aio.ServicerContext[Any, Any],
    ) -> AsyncIterator[bot_service_pb2.ConnectResponse]:
        index = next(self._count)
        if index >= len(self._scripts):
            await context.abort(grpc.StatusCode.UNAVAILABLE, "no script for this stream")
        peer = Peer(index)
        self.peers.append(peer)

        async def read() -> None:
            frame = 0
            try:
                async for message in request_iterator:
                    if message.WhichOneof("message") == "batch":
                        for reply in message.batch.replies:
                            unpacked = bot_service_pb2.ConnectRequest(action_reply=reply)
                            received = Received(unpacked, batched=True, frame=frame)
                            peer.received.append(received)
                            peer._inbox.put_nowait(received)
                    else:
                        received = Received(message, batched=False, frame=frame)
                        peer.received.append(received)
                        peer._inbox.put_nowait(received)
                    frame += 1
            except (grpc.aio.AioRpcError, asyncio.CancelledError):
                pass
            finally:
                peer._inbox.put_nowait(_StreamEnd())

        async def play() -> None:
            try:
                await self._scripts[index](peer)
            except BaseException as error:  # kept for assert_done; the stream ends
                self.failures.append(error)
                raise
            finally:
                peer._outbox.put_nowait(None)

        reader = asyncio.ensure_future(read())
        player = asyncio.ensure_future(play())
        self._tasks += [reader, player]
        self._players.append(player)
        while (response := await peer._outbox.get()) is not None:
            yield response
        if peer._abort is not None:
            await context.abort(*peer._abort)
        if not player.done():
            player.cancel()

    async def wait_scripts(self, timeout_s: float = 10.0) -> None:
        """Wait (at most ``timeout_s``) for every script that started to end."""
        if self._players:
            await asyncio.wait(self._players, timeout=timeout_s)

    def assert_done(self) -> None:
        """Every script ran to its end, without a failure (the first failure is raised)."""
        if self.failures:
            raise self.failures[0]
        unfinished = len(self._scripts) - len(self.peers)
        if unfinished:
            raise ScriptError(f"{unfinished} scripted stream(s) never opened: {self.peers}")
        if not all(player.done() for player in self._players):
            raise ScriptError("a script is still running")
