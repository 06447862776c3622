"""Open mode, token mode, the admin token on ArenaService mutations, and TLS."""

from __future__ import annotations

import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import grpc
import pytest
from rookery.server import BotRegistry, RookeryServer, ServerConfig
from rookery.server.testing import RawBot, running_server
from rookery.v1 import arena_service_pb2, arena_service_pb2_grpc, bot_service_pb2

pb = bot_service_pb2
ADMIN = "admin-secret-token"


@pytest.fixture
async def token_server(tmp_path: Path) -> AsyncIterator[RookeryServer]:
    """A token-mode server with an admin token and two registered bots (tokens on ``.issued``)."""
    db = tmp_path / "bots.db"
    registry = BotRegistry(db)
    issued = {name: registry.add(name)[1] for name in ("alpha", "beta")}
    registry.close()
    config = ServerConfig(auth="token", db=str(db), admin_token=ADMIN, log_level="warning")
    async with running_server(config) as server:
        server.issued = issued  # type: ignore[attr-defined]
        yield server


def arena(
    server: RookeryServer,
) -> tuple[grpc.aio.Channel, arena_service_pb2_grpc.ArenaServiceAsyncStub]:
    channel = grpc.aio.insecure_channel(server.target)
    return channel, arena_service_pb2_grpc.ArenaServiceStub(channel)


def admin(token: str = ADMIN) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


async def refused(bot: RawBot, hello: pb.Hello) -> grpc.StatusCode:
    await bot.connect(hello, expect_welcome=False)
    return await bot.status()


async def test_a_bot_with_its_token_is_welcomed(
    token_server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    token = token_server.issued["alpha"]  # type: ignore[attr-defined]
    welcome = await bots(token_server.target, "alpha", token=token).connect()
    assert welcome.session_id


async def test_a_hello_without_a_token_is_unauthenticated_at_once(
    token_server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(token_server.target, "alpha")
    await bot.connect(pb.Hello(name="alpha"), expect_welcome=False)
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await bot.read()
    assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "needs a bot token" in (error.value.details() or "")


async def test_a_wrong_token_is_unauthenticated(
    token_server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(token_server.target, "alpha")
    code = await refused(bot, pb.Hello(name="alpha", token="rk_wrong"))
    assert code == grpc.StatusCode.UNAUTHENTICATED


async def test_a_token_works_only_for_its_own_bot(
    token_server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    beta_token = token_server.issued["beta"]  # type: ignore[attr-defined]
    bot = bots(token_server.target, "alpha")
    assert await refused(bot, pb.Hello(name="alpha", token=beta_token)) == (
        grpc.StatusCode.UNAUTHENTICATED
    )


async def test_a_revoked_token_is_refused_and_its_sessions_closed(
    token_server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    token = token_server.issued["alpha"]  # type: ignore[attr-defined]
    live = bots(token_server.target, "alpha", token=token)
    await live.connect()
    channel, stub = arena(token_server)
    async with channel:
        await stub.RemoveBot(arena_service_pb2.RemoveBotRequest(name="alpha"), metadata=admin())
    assert await live.status() == grpc.StatusCode.UNAUTHENTICATED
    again = bots(token_server.target, "alpha")
    assert await refused(again, pb.Hello(name="alpha", token=token)) == (
        grpc.StatusCode.UNAUTHENTICATED
    )


async def test_arena_mutations_need_the_admin_token(token_server: RookeryServer) -> None:
    channel, stub = arena(token_server)
    async with channel:
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            await stub.AddBot(arena_service_pb2.AddBotRequest(name="gamma"))
        with pytest.raises(grpc.aio.AioRpcError) as wrong:
            await stub.AddBot(arena_service_pb2.AddBotRequest(name="gamma"), metadata=admin("x"))
        added = await stub.AddBot(arena_service_pb2.AddBotRequest(name="gamma"), metadata=admin())
    assert missing.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "authorization: Bearer" in (missing.value.details() or "")
    assert wrong.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert added.bot.name == "gamma" and added.token.startswith("rk_")


async def test_arena_reads_need_no_token(token_server: RookeryServer) -> None:
    channel, stub = arena(token_server)
    async with channel:
        tables = await stub.ListTables(arena_service_pb2.ListTablesRequest())
        listed = await stub.ListBots(arena_service_pb2.ListBotsRequest())
    assert list(tables.tables) == []
    assert [bot.name for bot in listed.bots] == ["alpha", "beta"]


async def test_a_token_server_without_an_admin_token_refuses_every_mutation(
    tmp_path: Path,
) -> None:
    config = ServerConfig(auth="token", db=str(tmp_path / "bots.db"), log_level="warning")
    async with running_server(config) as server:
        channel, stub = arena(server)
        async with channel:
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await stub.AddBot(arena_service_pb2.AddBotRequest(name="x"), metadata=admin())
    assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED
    assert "no admin token configured" in (error.value.details() or "")


async def test_open_mode_accepts_any_bot_and_unguarded_mutations(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    await bots(server.target, "anyone", token="ignored").connect()
    channel, stub = arena(server)
    async with channel:
        added = await stub.AddBot(arena_service_pb2.AddBotRequest(name="newbot"))
    assert added.token


async def test_open_mode_with_an_admin_token_still_guards_mutations() -> None:
    async with running_server(ServerConfig(admin_token=ADMIN, log_level="warning")) as server:
        channel, stub = arena(server)
        async with channel:
            with pytest.raises(grpc.aio.AioRpcError) as error:
                await stub.AddBot(arena_service_pb2.AddBotRequest(name="x"))
    assert error.value.code() == grpc.StatusCode.UNAUTHENTICATED


def test_the_registry_stores_only_a_hash_of_the_token(tmp_path: Path) -> None:
    db = tmp_path / "bots.db"
    registry = BotRegistry(db)
    _, token = registry.add("alpha")
    assert registry.check_token("alpha", token)
    assert not registry.check_token("alpha", token + "x")
    registry.close()
    stored = b"".join(path.read_bytes() for path in tmp_path.iterdir() if path.is_file())
    assert token.encode() not in stored
    assert len(token) >= 43  # 32 random bytes, URL-safe base64


@pytest.fixture(scope="module")
def certificate(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost: (cert, key)."""
    directory = tmp_path_factory.mktemp("tls")
    cert, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )  # fmt: skip
    return cert, key


async def test_a_tls_server_serves_tls_clients_only(
    certificate: tuple[Path, Path], bots: Callable[..., RawBot]
) -> None:
    cert, key = certificate
    config = ServerConfig(tls_cert=str(cert), tls_key=str(key), log_level="warning")
    async with running_server(config) as server:
        credentials = grpc.ssl_channel_credentials(root_certificates=cert.read_bytes())
        welcome = await bots(server.target, "secure", credentials=credentials).connect()
        assert welcome.session_id
        plain = bots(server.target, "plain")
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await plain.connect(pb.Hello(name="plain"))
        assert error.value.code() == grpc.StatusCode.UNAVAILABLE
