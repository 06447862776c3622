"""A league in token mode on a loopback server, for the attacks on it: authors with their bots'
tokens, an organiser with the admin token, and a caller with no token at all."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
from rookery.arena.league import LeagueOptions, LeagueServer
from rookery.arena.league.submissions import pack_folder
from rookery.engine import Ruleset
from rookery.server import ServerConfig, TimeControl
from rookery.v1 import arena_service_pb2_grpc, league_pb2

ADMIN = "the-organisers-admin-token"
RANDOM_COMMAND = "rookery bot run rookery.client.bots.random_bot:RandomBot"
#: Short games: the attacks need finished games, not good ones.
SHORT_RULES = dataclasses.replace(Ruleset.preset("standard"), target=100, max_hands=1)
PENDING = (league_pb2.VERSION_STATUS_BUILDING, league_pb2.VERSION_STATUS_QUALIFYING)


def bot_folder(root: Path, name: str, text: str = "") -> Path:
    """A bot's folder: the random bot (from the installed SDK) and a file that makes it new."""
    folder = root / name
    folder.mkdir(parents=True)
    (folder / "version.txt").write_text(text or name)
    return folder


@dataclasses.dataclass
class LeagueUnderAttack:
    """A running league and gRPC calls to it with any token (or none)."""

    running: LeagueServer
    stub: arena_service_pb2_grpc.ArenaServiceStub
    tokens: dict[str, str]
    root: Path

    async def call(self, method: str, request: Any, token: str = "") -> Any:
        metadata = (("authorization", f"Bearer {token}"),) if token else ()
        return await getattr(self.stub, method)(request, metadata=metadata, timeout=30)

    async def submit(
        self, bot: str, folder: Path, *, token: str | None = None, **fields: str
    ) -> league_pb2.BotVersion:
        request = league_pb2.SubmitVersionRequest(
            bot_name=bot,
            command=fields.pop("command", RANDOM_COMMAND),
            archive=pack_folder(folder),
            **fields,
        )
        response = await self.call(
            "SubmitVersion", request, self.tokens[bot] if token is None else token
        )
        assert isinstance(response, league_pb2.SubmitVersionResponse)
        return response.version

    async def version(self, version_id: str, token: str = "") -> league_pb2.GetVersionResponse:
        response = await self.call(
            "GetVersion", league_pb2.GetVersionRequest(version_id=version_id), token
        )
        assert isinstance(response, league_pb2.GetVersionResponse)
        return response

    async def settled(self, version_id: str, timeout_s: float = 60) -> league_pb2.BotVersion:
        deadline = time.monotonic() + timeout_s
        while True:
            version = (await self.version(version_id, ADMIN)).version
            if version.status not in PENDING:
                return version
            assert time.monotonic() < deadline, f"{version_id} still {version.status}"
            await asyncio.sleep(0.1)


@asynccontextmanager
async def league_under_attack(
    root: Path, authors: tuple[str, ...] = ("alice", "bob"), **options: Any
) -> AsyncIterator[LeagueUnderAttack]:
    """A league in token mode with a season open, each author's bot registered."""
    settings: dict[str, Any] = {
        "ruleset": SHORT_RULES,
        "concurrency": 2,
        "sandbox": "off",
        "time_control": TimeControl(grace_ms=500),
        "build_timeout_s": 30,
        "join_timeout_s": 60,
        "bootstrap": 10,
    }
    settings.update(options)
    config = ServerConfig(
        address="127.0.0.1:0",
        auth="token",
        db=str(root / "bots.sqlite"),
        admin_token=ADMIN,
        log_level="warning",
    )
    running = await LeagueServer.start(
        root / "league" / "league.sqlite", config, LeagueOptions(**settings)
    )
    tokens = {name: running.server.bots.add(name)[1] for name in authors}
    running.league.create_season("spring", time.time() + 3600)
    channel = grpc.aio.insecure_channel(running.server.target)
    try:
        stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
        yield LeagueUnderAttack(running, stub, tokens, root)
    finally:
        await channel.close()
        await running.stop()
