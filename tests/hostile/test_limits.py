"""Per-bot limits: one client must not starve the others (sessions, strings, watchers, logs).

Each test performs the attack against a real server on a loopback port and requires the honest
game beside it to finish as if nothing happened.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
import pytest
from hostile_support import SHORT, HonestTable
from rookery.server import RookeryServer, ServerConfig, TableSpec
from rookery.server.testing import RawBot, running_server, serve_process
from rookery.v1 import (
    arena_service_pb2,
    arena_service_pb2_grpc,
    bot_service_pb2,
    spectator_service_pb2,
    spectator_service_pb2_grpc,
)

pb = bot_service_pb2
QUIET = ServerConfig(log_level="warning")
BotFactory = Callable[..., RawBot]


class SourceProxy:
    """A TCP relay to ``upstream`` whose connections leave from another loopback address.

    The server sees the relayed clients as another peer (127.0.0.2), as it would a bot on
    another machine.
    """

    def __init__(self, upstream: str, source: str = "127.0.0.2") -> None:
        host, _, port = upstream.rpartition(":")
        self._upstream = (host, int(port))
        self._source = source
        self._listener: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []
        self.port = 0

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._listener = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._listener.sockets[0].getsockname()[1]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(
            *self._upstream, local_addr=(self._source, 0)
        )
        self._writers += [writer, up_writer]

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            with contextlib.suppress(Exception):
                while data := await source.read(65536):
                    sink.write(data)
                    await sink.drain()
            sink.close()

        await asyncio.gather(pump(reader, up_writer), pump(up_reader, writer))

    async def close(self) -> None:
        for writer in self._writers:
            writer.close()
        if self._listener is not None:
            self._listener.close()


@contextlib.asynccontextmanager
async def another_peer(server: RookeryServer) -> AsyncIterator[SourceProxy]:
    proxy = SourceProxy(server.target)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.close()


async def honest_game_through(proxy: SourceProxy, server: RookeryServer, prefix: str) -> None:
    """An honest short game whose four bots connect from ``proxy``'s peer."""
    table = HonestTable(server, prefix=prefix, target=proxy.target)
    await table.start()
    await table.finish()


async def open_until_refused(
    target: str, names: Callable[[int], str], attempts: int
) -> tuple[list[RawBot], grpc.StatusCode | None, str]:
    """Opens sessions until the server refuses one: (the open ones, the refusal's code, text)."""
    opened: list[RawBot] = []
    for index in range(attempts):
        bot = RawBot(target, names(index))
        try:
            await bot.connect()
        except grpc.aio.AioRpcError as error:
            await bot.close()
            return opened, error.code(), error.details() or ""
        opened.append(bot)
    return opened, None, ""


# 7. One token (or one name, or one peer) can lock everyone out ---------------------------------


async def test_one_bot_name_cannot_take_every_session() -> None:
    async with running_server(QUIET, max_sessions=200, max_sessions_per_bot=64) as server:
        opened, code, details = await open_until_refused(server.target, lambda _: "hog", 200)
        try:
            print(f"one name opened {len(opened)} sessions of 200")
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert len(opened) == server.config.max_sessions_per_bot
            assert "bot 'hog'" in details and "max_sessions_per_bot" in details
            async with another_peer(server) as proxy:
                await honest_game_through(proxy, server, "honest")
        finally:
            for bot in opened:
                await bot.close()


async def test_one_peer_cannot_take_every_session_with_many_names() -> None:
    async with running_server(QUIET, max_sessions=300, max_sessions_per_peer=100) as server:
        opened, code, details = await open_until_refused(
            server.target, lambda index: f"hog{index}", 300
        )
        try:
            print(f"one peer opened {len(opened)} sessions of 300")
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert len(opened) == 100
            assert "127.0.0.1" in details and "max_sessions_per_peer" in details
            async with another_peer(server) as proxy:
                await honest_game_through(proxy, server, "honest")
        finally:
            for bot in opened:
                await bot.close()


async def test_the_last_sessions_are_kept_for_bots_a_table_waits_for() -> None:
    config = QUIET.replace(max_sessions=120, max_sessions_per_peer=1000, reserved_sessions=8)
    async with running_server(config) as server:
        table = HonestTable(server, prefix="seated")
        # The table is created first: its bots are the ones the server waits for.
        created = await server.create_table(TableSpec(SHORT, table.names, seed=5))
        opened, code, details = await open_until_refused(
            server.target, lambda index: f"hog{index}", 200
        )
        try:
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert len(opened) == 120 - 8
            assert "reserved" in details
            players = [RawBot(server.target, name) for name in table.names]
            for bot in players:
                await bot.connect()
            await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
            outcome = await created.wait_finished()
            assert outcome.seat_stats[0].actions > 0
            for bot in players:
                await bot.close()
        finally:
            for bot in opened:
                await bot.close()


# 8. Unbounded client-set strings and repeated fields -------------------------------------------

HUGE = "v" * (900 * 1024)


@pytest.mark.parametrize(
    ("field", "hello"),
    [
        ("Hello.version", lambda: pb.Hello(name="big", version=HUGE)),
        ("Hello.client", lambda: pb.Hello(name="big", client=HUGE)),
        ("Hello.token", lambda: pb.Hello(name="big", token=HUGE)),
        (
            "Hello.resume.session_id",
            lambda: pb.Hello(name="big", resume=pb.Resume(session_id=HUGE, resume_secret="x")),
        ),
        (
            "Hello.resume.resume_secret",
            lambda: pb.Hello(name="big", resume=pb.Resume(session_id="s-1", resume_secret=HUGE)),
        ),
        (
            "Hello.resume.cursors",
            lambda: pb.Hello(
                name="big",
                resume=pb.Resume(
                    session_id="s-1",
                    resume_secret="x",
                    cursors=[pb.TableCursor(table_id=f"t{i}", last_seq=1) for i in range(5000)],
                ),
            ),
        ),
        (
            "Hello.resume.cursors[0].table_id",
            lambda: pb.Hello(
                name="big",
                resume=pb.Resume(
                    session_id="s-1",
                    resume_secret="x",
                    cursors=[pb.TableCursor(table_id=HUGE, last_seq=1)],
                ),
            ),
        ),
    ],
)
async def test_an_oversize_hello_field_is_refused_by_name(
    server: RookeryServer, field: str, hello: Callable[[], Any]
) -> None:
    bot = RawBot(server.target, "big")
    try:
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await bot.connect(hello())
        assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        details = refused.value.details() or ""
        assert field in details and "at most" in details, details
        assert len(details) < 300
    finally:
        await bot.close()
    assert server.session_count == 0


async def test_huge_versions_do_not_grow_the_registry_or_break_list_bots() -> None:
    async with running_server(QUIET, max_send_message_bytes=4 << 20) as server:
        accepted = 0
        for index in range(12):
            bot = RawBot(server.target, f"fat{index}")
            try:
                await bot.connect(pb.Hello(name=f"fat{index}", version=HUGE))
                accepted += 1
            except grpc.aio.AioRpcError as error:
                assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
            finally:
                await bot.close()
        print(f"{accepted} of 12 Hellos with 900 KiB versions accepted")
        async with grpc.aio.insecure_channel(server.target) as channel:
            stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
            listed = await stub.ListBots(arena_service_pb2.ListBotsRequest())
        assert accepted == 0
        assert all(len(bot.version) <= 128 for bot in listed.bots)


# 10. Spectator flood -----------------------------------------------------------------------------


async def test_a_spectator_flood_from_one_peer_is_capped_and_the_table_goes_on(
    server: RookeryServer, honest: Callable[..., Any]
) -> None:
    game = await honest(server)
    # The flood's tables wait for their bots: they stay live however long the flood takes.
    waiting = [
        await server.create_table(TableSpec(SHORT, (f"w{i}", "x1", "x2", "x3"), seed=2))
        for i in range(5)
    ]
    async with grpc.aio.insecure_channel(server.target) as channel:
        stub = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
        calls = [  # 299
            stub.WatchTable(spectator_service_pb2.WatchTableRequest(table_id=table_id))
            for table_id in [game.table_id] * 4 + [t.id for t in waiting] * 59
        ]
        try:
            # Each call reads its first message (the snapshot, or the refusal), then nothing.
            admitted = refused = 0
            for call in calls:
                try:
                    await asyncio.wait_for(call.read(), 10)
                    admitted += 1
                except grpc.aio.AioRpcError as error:
                    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                    assert "max_watchers_per_peer" in (error.details() or "")
                    refused += 1
            print(f"{admitted} of 299 watchers from one peer admitted")
            assert admitted <= server.config.max_watchers_per_peer + 4  # + any that ended
            assert sum(len(t.watchers) for t in waiting) <= server.config.max_watchers_per_peer
            assert refused >= 299 - server.config.max_watchers_per_peer - 4
            await game.finish()
        finally:
            for call in calls:
                call.cancel()


async def test_watchers_of_one_table_are_capped_whatever_their_peer() -> None:
    config = QUIET.replace(max_watchers_per_table=32, max_watchers_per_peer=1000)
    async with running_server(config) as server:
        game = await HonestTable(server).start()
        waiting = await server.create_table(TableSpec(SHORT, ("w0", "w1", "w2", "w3"), seed=2))
        try:
            async with grpc.aio.insecure_channel(server.target) as channel:
                stub = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
                request = spectator_service_pb2.WatchTableRequest(table_id=waiting.id)
                calls = [stub.WatchTable(request) for _ in range(100)]
                admitted = 0
                for call in calls:
                    try:
                        await asyncio.wait_for(call.read(), 10)
                        admitted += 1
                    except grpc.aio.AioRpcError as error:
                        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                        assert "max_watchers_per_table" in (error.details() or "")
                print(f"{admitted} of 100 watchers of one table admitted")
                assert admitted == 32
                await game.finish()
                for call in calls:
                    call.cancel()
        finally:
            for bot in game.bots:
                await bot.close()


# 11. Log amplification ---------------------------------------------------------------------------


async def test_a_flood_of_rejected_replies_does_not_flood_the_log(tmp_path: Any) -> None:
    with serve_process("--log-level", "info", "--web-address", "off") as serve:
        bot = RawBot(serve.target, "noisy")
        try:
            await bot.connect()
            before = len(serve.log())
            flood = pb.ConnectRequest(action_reply=pb.ActionReply(table_id="nowhere", request_id=1))
            for _ in range(4000):
                await bot.send(flood)
            await bot.send(pb.ConnectRequest(ping=pb.Ping(nonce=9)))
            for _ in range(5000):
                message = await bot.read()
                if message.WhichOneof("message") == "pong":
                    break
            await asyncio.sleep(1.2)  # the aggregated summary is written once a second
            written = len(serve.log()) - before
        finally:
            await bot.close()
        print(f"4000 rejected replies wrote {written} bytes of log")
        assert written < 20_000
        assert "replies rejected" in serve.log()


async def test_oversize_ids_and_presets_in_arena_and_spectator_calls_get_short_answers(
    server: RookeryServer,
) -> None:
    huge = "t" * (500 * 1024)
    async with grpc.aio.insecure_channel(server.target) as channel:
        arena = arena_service_pb2_grpc.ArenaServiceStub(channel)
        spectators = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
        calls: dict[str, Awaitable[object]] = {
            "CreateTable": arena.CreateTable(
                arena_service_pb2.CreateTableRequest(preset=huge, seat_bots=["a", "b", "c", "d"])
            ),
            "GetTable": arena.GetTable(arena_service_pb2.GetTableRequest(table_id=huge)),
            "GetReplay": arena.GetReplay(arena_service_pb2.GetReplayRequest(table_id=huge)),
            "AbortTable": arena.AbortTable(arena_service_pb2.AbortTableRequest(table_id=huge)),
        }
        for name, call in calls.items():
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await call
            details = refused.value.details() or ""
            assert len(details) < 400, (name, len(details))
        watch = spectators.WatchTable(spectator_service_pb2.WatchTableRequest(table_id=huge))
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await watch.read()
        assert refused.value.code() == grpc.StatusCode.NOT_FOUND
        assert len(refused.value.details() or "") < 400
