"""Helpers for test suites that need a real Rookery server.

- :func:`running_server`: an in-process server on ``127.0.0.1:0`` for the duration of an
  ``async with`` block.
- :func:`serve_process`: ``rookery serve`` as a subprocess, waited for through its port file.
- :class:`RawBot`: a bot session driven message by message over the generated stubs (no SDK),
  for protocol tests; :func:`simple_action` a legal action from an ActionRequest alone;
  :func:`seat_raw_bots` connects one per seat and creates the table.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
from rookery.engine import Ruleset
from rookery.v1 import actions_pb2, bot_service_pb2, bot_service_pb2_grpc, events_pb2

from ._config import ServerConfig
from ._server import RookeryServer
from ._table import Table, TableSpec
from ._time_control import TimeControl
from ._tournament import TournamentBackend

__all__ = [
    "RawBot",
    "ServeProcess",
    "TcpProxy",
    "bot_names",
    "raw_bots",
    "reply_to",
    "running_server",
    "seat_raw_bots",
    "serve_process",
    "simple_action",
    "stop_process",
]


@contextlib.asynccontextmanager
async def running_server(
    config: ServerConfig | None = None,
    *,
    tournaments: TournamentBackend | None = None,
    stop_grace_s: float = 0.5,
    **options: object,
) -> AsyncIterator[RookeryServer]:
    """An in-process server on a free loopback port; ``options`` override ``config`` fields.

    >>> async def example() -> None:
    ...     async with running_server(idle_timeout_s=5) as server:
    ...         print(server.target)  # 127.0.0.1:PORT
    """
    config = (config or ServerConfig()).replace(address="127.0.0.1:0", **options)
    server = RookeryServer(config, tournaments=tournaments)
    await server.start()
    try:
        yield server
    finally:
        await server.stop(grace_s=stop_grace_s)


@dataclass
class ServeProcess:
    """A running ``rookery serve`` subprocess."""

    process: subprocess.Popen[bytes]
    port: int
    log_path: Path

    @property
    def target(self) -> str:
        """``127.0.0.1:PORT`` for clients."""
        return f"127.0.0.1:{self.port}"

    def log(self) -> str:
        """Everything the process wrote so far (stdout and stderr)."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def stop(self, timeout: float = 15.0) -> int:
        """Sends SIGTERM and waits for the exit code (SIGKILL after ``timeout``)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return self.process.returncode


@contextlib.contextmanager
def serve_process(
    *args: str,
    timeout: float = 20.0,
    env: dict[str, str] | None = None,
    directory: str | Path | None = None,
    executable: Sequence[str] | None = None,
) -> Iterator[ServeProcess]:
    """Runs ``rookery serve --address 127.0.0.1:0 --port-file F ARGS`` until the block ends.

    ``executable`` defaults to this interpreter running the ``rookery`` CLI. Raises
    ``TimeoutError`` (with the process's output) if the port file does not appear in time.
    """
    with contextlib.ExitStack() as stack:
        workdir = (
            Path(directory)
            if directory
            else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        )
        port_file = workdir / "rookery-serve.port"
        log_path = workdir / "rookery-serve.log"
        port_file.unlink(missing_ok=True)
        command = [*(executable or (sys.executable, "-m", "rookery.cli.main")), "serve"]
        command += ["--address", "127.0.0.1:0", "--port-file", str(port_file), *args]
        log_file = stack.enter_context(open(log_path, "wb"))
        process = subprocess.Popen(
            command,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(env or {})},
        )
        serve = ServeProcess(process, 0, log_path)
        try:
            deadline = time.monotonic() + timeout
            while True:
                text = port_file.read_text().strip() if port_file.exists() else ""
                if text.isdigit():
                    serve.port = int(text)
                    break
                if process.poll() is not None:
                    raise RuntimeError(
                        f"rookery serve exited with {process.returncode}:\n{serve.log()}"
                    )
                if time.monotonic() > deadline:
                    raise TimeoutError(
                        f"rookery serve did not start in {timeout:g} s:\n{serve.log()}"
                    )
                time.sleep(0.05)
            yield serve
        finally:
            serve.stop()


pb = bot_service_pb2
_RawPolicy = Callable[[pb.ActionRequest], actions_pb2.Action]
"""What a raw bot answers a request with (protobuf in, protobuf out)."""


def simple_action(request: pb.ActionRequest) -> actions_pb2.Action:
    """A legal action from the request alone: open the bidding at the minimum, otherwise pass;
    the first suit; the first cards to bury; the first callable card; the first playable card."""
    legal = request.legal_actions
    action = actions_pb2.Action()
    if legal.phase == actions_pb2.PHASE_BIDDING:
        if legal.bids and (request.observation.high_bid == 0 or not legal.can_pass):
            action.bid.amount = legal.bids[0]
        else:
            getattr(action, "pass").SetInParent()
    elif legal.phase == actions_pb2.PHASE_NAME_TRUMP:
        action.name_trump.suit = legal.trump_suits[0]
    elif legal.phase == actions_pb2.PHASE_BURY:
        action.bury.cards.extend(legal.bury_candidates[: legal.bury_count])
    elif legal.phase == actions_pb2.PHASE_CALL:
        action.call_card.card.CopyFrom(legal.callable_cards[0])
    else:
        action.play_card.card.CopyFrom(legal.playable_cards[0])
    return action


def reply_to(
    request: pb.ActionRequest, action: actions_pb2.Action | None = None
) -> pb.ConnectRequest:
    """The ConnectRequest answering ``request`` (with ``simple_action`` unless given)."""
    return pb.ConnectRequest(
        action_reply=pb.ActionReply(
            table_id=request.table_id,
            request_id=request.request_id,
            action=action if action is not None else simple_action(request),
        )
    )


@dataclass
class RawBot:
    """One bot session driven message by message over BotService.Connect."""

    target: str
    name: str
    token: str = ""
    max_tables: int = 1
    credentials: grpc.ChannelCredentials | None = None
    channel: Any = None
    call: Any = None
    welcome: Any = None
    received: list[pb.ConnectResponse] = field(default_factory=list)
    """Every message read, in order; a batch's messages one by one (never the batch itself)."""
    batching: bool = False
    """Offer batching in the default Hello."""
    batches: list[int] = field(default_factory=list)
    """The size of each ConnectResponse.batch read."""
    deliveries: list[list[pb.ConnectResponse]] = field(default_factory=list)
    """Each gRPC message read, as its messages (a batch's in order, any other alone)."""
    _pending: list[pb.ConnectResponse] = field(default_factory=list)

    async def connect(self, hello: Any = None, *, expect_welcome: bool = True) -> Any:
        """Opens the stream and sends the Hello; returns the Welcome."""
        if self.credentials is not None:
            self.channel = grpc.aio.secure_channel(self.target, self.credentials)
        else:
            self.channel = grpc.aio.insecure_channel(self.target)
        stub = bot_service_pb2_grpc.BotServiceStub(self.channel)
        self.call = stub.Connect()
        if hello is None:
            hello = pb.Hello(
                name=self.name,
                version="1.0",
                token=self.token,
                max_tables=self.max_tables,
                batching=self.batching,
            )
        await self.call.write(pb.ConnectRequest(hello=hello))
        if expect_welcome:
            message = await self.read()
            assert message.WhichOneof("message") == "welcome", message
            self.welcome = message.welcome
            return message.welcome
        return None

    async def send(self, request: pb.ConnectRequest) -> None:
        await self.call.write(request)

    async def read(self, wait_s: float = 10.0) -> pb.ConnectResponse:
        """The next message from the server (an AioRpcError when the stream ends with one); the
        messages of a batch come one by one."""
        if not self._pending:
            message = await asyncio.wait_for(self.call.read(), wait_s)
            if message is grpc.aio.EOF:
                raise EOFError("the stream ended")
            if message.WhichOneof("message") == "batch":
                self.batches.append(len(message.batch.messages))
                self._pending.extend(message.batch.messages)
            else:
                self._pending.append(message)
            self.deliveries.append(list(self._pending))
        message = self._pending.pop(0)
        self.received.append(message)
        return message

    async def read_kind(self, kind: str, wait_s: float = 10.0) -> Any:
        """Reads until a message of ``kind`` (others are kept in ``received``)."""
        while True:
            message = await self.read(wait_s)
            if message.WhichOneof("message") == kind:
                return getattr(message, kind)

    async def status(self, wait_s: float = 10.0) -> grpc.StatusCode:
        """Reads until the stream ends; its status code."""
        try:
            while True:
                await self.read(wait_s)
        except grpc.aio.AioRpcError as error:
            return error.code()
        except EOFError:
            code: grpc.StatusCode = await self.call.code()
            return code

    async def play(
        self, policy: _RawPolicy = simple_action, *, tables: int = 1, wait_s: float = 60.0
    ) -> list[pb.TableFinished]:
        """Answers every request with ``policy`` until ``tables`` TableFinished; returns them."""
        finished: list[pb.TableFinished] = []
        while len(finished) < tables:
            message = await self.read(wait_s)
            kind = message.WhichOneof("message")
            if kind == "action_request":
                await self.send(reply_to(message.action_request, policy(message.action_request)))
            elif kind == "table_finished":
                finished.append(message.table_finished)
        return finished

    def requests(self) -> list[pb.ActionRequest]:
        """Every ActionRequest received, in order."""
        return [
            m.action_request for m in self.received if m.WhichOneof("message") == "action_request"
        ]

    def events(self, table_id: str | None = None) -> list[events_pb2.Event]:
        """Every event received (snapshots' missed events included), in order."""
        events = []
        for message in self.received:
            kind = message.WhichOneof("message")
            if kind == "event" and (table_id is None or message.event.table_id == table_id):
                events.append(message.event.event)
            elif kind == "table_snapshot" and (
                table_id is None or message.table_snapshot.table.table_id == table_id
            ):
                events.extend(e.event for e in message.table_snapshot.missed_events)
        return events

    async def close(self) -> None:
        if self.call is not None:
            self.call.cancel()
        if self.channel is not None:
            await self.channel.close()


@contextlib.asynccontextmanager
async def raw_bots() -> AsyncIterator[Callable[..., RawBot]]:
    """A factory of raw bots, ``make(target, name, **options)``, all closed at the end."""
    made: list[RawBot] = []

    def make(target: str, name: str, **options: Any) -> RawBot:
        bot = RawBot(target, name, **options)
        made.append(bot)
        return bot

    try:
        yield make
    finally:
        for bot in made:
            await bot.close()


async def seat_raw_bots(
    server: RookeryServer,
    make: Callable[..., RawBot],
    names: Sequence[str],
    *,
    preset: str = "standard",
    seed: int = 7,
    time_control: TimeControl | None = None,
    hellos: Sequence[pb.Hello | None] | None = None,
) -> tuple[Table, list[RawBot]]:
    """Connects one raw bot per seat (with ``hellos[i]`` for ``names[i]`` when given, else the
    default Hello), creates the table and returns it with the bots by seat."""
    ruleset = Ruleset.preset(preset)
    players = [make(server.target, name) for name in names]
    for index, bot in enumerate(players):
        await bot.connect(hellos[index] if hellos is not None else None)
    table = await server.create_table(
        TableSpec(ruleset, tuple(names), seed=seed, time_control=time_control)
    )
    by_seat: list[RawBot | None] = [None] * len(names)
    for bot in players:
        joined = await bot.read_kind("table_joined")
        by_seat[joined.seat] = bot
    assert all(b is not None for b in by_seat)
    return table, [b for b in by_seat if b is not None]


async def stop_process(process: asyncio.subprocess.Process, grace_s: float = 10.0) -> int:
    """SIGTERM, then SIGKILL if the process lingers past ``grace_s``; its exit code."""
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), grace_s)
        except TimeoutError:
            process.kill()
            await process.wait()
    assert process.returncode is not None
    return process.returncode


def bot_names(players: int) -> tuple[str, ...]:
    """Distinct bot names, one per seat."""
    return tuple(f"bot{seat}" for seat in range(players))


class TcpProxy:
    """A TCP proxy in front of the server whose open connections can be cut at will.

    It keeps listening after a cut, so a client that reconnects gets through again.
    """

    def __init__(self, upstream: str) -> None:
        host, _, port = upstream.rpartition(":")
        self._upstream = (host, int(port))
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.connections = 0
        self.refusing = False
        """While set, new connections are closed at once (the path to the server is down)."""

    @property
    def target(self) -> str:
        assert self._server is not None
        port = self._server.sockets[0].getsockname()[1]
        return f"127.0.0.1:{port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.refusing:
            writer.transport.abort()
            return
        self.connections += 1
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._upstream)
        except OSError:
            writer.close()
            return
        self._writers.update((writer, up_writer))

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))
        self._writers.difference_update((writer, up_writer))

    def cut(self) -> int:
        """Abort every open connection (a reset, as when a network path dies); how many."""
        cut = 0
        for writer in list(self._writers):
            transport = writer.transport
            if not transport.is_closing():
                transport.abort()
                cut += 1
        self._writers.clear()
        return cut

    async def close(self) -> None:
        self.cut()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    @classmethod
    @contextlib.asynccontextmanager
    async def running(cls, upstream: str) -> AsyncIterator[TcpProxy]:
        """A started proxy in front of ``upstream`` (``host:port``), closed at the end."""
        proxy = cls(upstream)
        await proxy.start()
        try:
            yield proxy
        finally:
            await proxy.close()
