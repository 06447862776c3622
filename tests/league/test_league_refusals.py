"""Every refusal of a submission, over real gRPC calls to a league in token mode: another
author's token, a version whose build fails (in the sandbox where there is one), a version that
fails its qualification game, a duplicate archive, and a submission after the deadline."""

from __future__ import annotations

import asyncio
import dataclasses
import shutil
import time
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from league_helpers import ADMIN, HERE, MIX_COMMAND, mix_folder
from rookery.arena.league import LeagueOptions, LeagueServer
from rookery.arena.league.submissions import pack_folder
from rookery.engine import Ruleset
from rookery.server import ServerConfig, TimeControl
from rookery.v1 import arena_service_pb2, arena_service_pb2_grpc, league_pb2


@dataclasses.dataclass
class Running:
    league: LeagueServer
    stub: arena_service_pb2_grpc.ArenaServiceAsyncStub
    tokens: dict[str, str]
    root: Path

    async def submit(
        self, bot: str, token: str, folder: Path, **fields: str
    ) -> league_pb2.BotVersion:
        request = league_pb2.SubmitVersionRequest(
            bot_name=bot, command=fields.pop("command", MIX_COMMAND), archive=pack_folder(folder),
            **fields,
        )  # fmt: skip
        metadata = (("authorization", f"Bearer {token}"),)
        response = await self.stub.SubmitVersion(request, metadata=metadata, timeout=30)
        assert isinstance(response, league_pb2.SubmitVersionResponse)
        return response.version

    async def version(self, version_id: str, token: str = ADMIN) -> league_pb2.GetVersionResponse:
        request = league_pb2.GetVersionRequest(version_id=version_id)
        metadata = (("authorization", f"Bearer {token}"),)
        response = await self.stub.GetVersion(request, metadata=metadata, timeout=30)
        assert isinstance(response, league_pb2.GetVersionResponse)
        return response

    async def settled(
        self, version_id: str, timeout_s: float = 60
    ) -> league_pb2.GetVersionResponse:
        pending = (league_pb2.VERSION_STATUS_BUILDING, league_pb2.VERSION_STATUS_QUALIFYING)
        deadline = time.monotonic() + timeout_s
        while True:
            response = await self.version(version_id)
            if response.version.status not in pending:
                return response
            assert time.monotonic() < deadline, f"{version_id} still {response.version.status}"
            await asyncio.sleep(0.1)


@pytest.fixture
async def running(tmp_path: Path) -> AsyncIterator[Running]:
    ruleset = dataclasses.replace(Ruleset.preset("standard"), target=100, max_hands=2)
    options = LeagueOptions(
        ruleset=ruleset,
        concurrency=2,
        sandbox="auto",
        time_control=TimeControl(grace_ms=500),
        build_timeout_s=30,
        join_timeout_s=20,
    )
    config = ServerConfig(
        address="127.0.0.1:0",
        auth="token",
        db=str(tmp_path / "bots.sqlite"),
        admin_token=ADMIN,
        log_level="warning",
    )
    league = await LeagueServer.start(tmp_path / "league" / "league.sqlite", config, options)
    tokens = {name: league.server.bots.add(name)[1] for name in ("alice", "bob")}
    league.league.create_season("spring", time.time() + 3600)
    channel = grpc.aio.insecure_channel(league.server.target)
    try:
        yield Running(league, arena_service_pb2_grpc.ArenaServiceStub(channel), tokens, tmp_path)
    finally:
        await channel.close()
        await league.stop()


async def test_a_version_of_another_authors_bot_is_refused(running: Running) -> None:
    folder = mix_folder(running.root, "alice-bot", 1.0)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await running.submit("alice", running.tokens["bob"], folder)
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    assert "only bot 'alice''s own token" in str(refused.value.details())
    assert running.league.league.store.versions() == []


async def test_a_version_whose_build_fails_is_kept_with_its_log_and_never_plays(
    running: Running,
) -> None:
    folder = mix_folder(running.root, "broken", 1.0)
    build = "echo compiling the bot; touch made-by-build; echo 'error: no compiler' >&2; exit 3"
    version = await running.submit("alice", running.tokens["alice"], folder, build=build)
    settled = await running.settled(version.version_id)
    assert settled.version.status == league_pb2.VERSION_STATUS_BUILD_FAILED
    assert settled.version.detail == "build exited with code 3"
    own = await running.version(version.version_id, running.tokens["alice"])
    assert "compiling the bot" in own.build_log
    assert own.build_log.rstrip().endswith("error: no compiler")
    built = running.league.league.version_folder(version.version_id) / "made-by-build"
    assert built.is_file(), "the build ran in the version's own folder"
    if running.league.sandbox is not None:  # run by a user of its own, in the sandbox
        assert built.stat().st_uid != 0
    assert running.league.league.store.count_pairs(1) == 0


async def test_a_version_that_dies_in_its_qualification_game_is_not_rated(
    running: Running,
) -> None:
    folder = running.root / "crash"
    folder.mkdir()
    shutil.copy(HERE / "crash_bot.py", folder / "crash_bot.py")
    version = await running.submit(
        "bob", running.tokens["bob"], folder, command="rookery bot run crash_bot.py:CrashBot"
    )
    settled = await running.settled(version.version_id, timeout_s=90)
    assert settled.version.status == league_pb2.VERSION_STATUS_QUALIFICATION_FAILED
    assert "it forfeited its qualification game (FORFEIT_DISCONNECT" in settled.version.detail
    board = await running.stub.GetLeagueBoard(league_pb2.GetLeagueBoardRequest(all_versions=True))
    assert [line.version.version_id for line in board.standings] == []


async def test_the_same_archive_twice_is_refused_naming_the_version(running: Running) -> None:
    folder = mix_folder(running.root, "twice", 0.5)
    first = await running.submit("alice", running.tokens["alice"], folder)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await running.submit("alice", running.tokens["alice"], folder)
    assert refused.value.code() == grpc.StatusCode.ALREADY_EXISTS
    assert f"identical to version {first.version_id}" in str(refused.value.details())
    assert [v.version_id for v in running.league.league.store.versions()] == ["alice@1"]


async def test_a_submission_after_the_deadline_is_refused(running: Running) -> None:
    league = running.league.league
    season = league.store.season()
    league.store.set_season_status(season.season_id, "closed", {"ranking": []})
    league.create_season("late", time.time() - 1)
    folder = mix_folder(running.root, "late", 1.0)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await running.submit("alice", running.tokens["alice"], folder)
    assert refused.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "closed its submissions at its deadline" in str(refused.value.details())
    assert league.store.versions() == []


async def test_the_organiser_calls_need_the_admin_token(running: Running) -> None:
    request = league_pb2.DisqualifyVersionRequest(version_id="alice@1", reason="cheating")
    metadata = (("authorization", f"Bearer {running.tokens['alice']}"),)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await running.stub.DisqualifyVersion(request, metadata=metadata, timeout=30)
    assert refused.value.code() == grpc.StatusCode.UNAUTHENTICATED
    add = arena_service_pb2.AddBotRequest(name="mallory")
    with pytest.raises(grpc.aio.AioRpcError):
        await running.stub.AddBot(add, metadata=metadata, timeout=30)


async def test_only_its_author_retires_a_version_and_the_organiser_disqualifies(
    running: Running,
) -> None:
    token = running.tokens["alice"]
    first = await running.submit("alice", token, mix_folder(running.root, "a", 1))
    second = await running.submit("alice", token, mix_folder(running.root, "b", 0))
    retire = league_pb2.RetireVersionRequest(version_id=first.version_id)
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await running.stub.RetireVersion(
            retire, metadata=(("authorization", f"Bearer {running.tokens['bob']}"),)
        )
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    retired = await running.stub.RetireVersion(
        retire, metadata=(("authorization", f"Bearer {running.tokens['alice']}"),)
    )
    assert retired.version.status == league_pb2.VERSION_STATUS_RETIRED
    disqualify = league_pb2.DisqualifyVersionRequest(version_id=second.version_id, reason="copied")
    done = await running.stub.DisqualifyVersion(
        disqualify, metadata=(("authorization", f"Bearer {ADMIN}"),)
    )
    assert done.version.status == league_pb2.VERSION_STATUS_DISQUALIFIED
    assert done.version.detail == "disqualified by the organiser: copied"
    statuses = {v.version_id: v.status for v in running.league.league.store.versions()}
    assert statuses == {"alice@1": "retired", "alice@2": "disqualified"}
