"""The league behind ArenaService: the server's ``LeagueBackend``, and ``rookery league serve``.

:class:`LeagueService` converts between ``league.proto`` and :class:`~.league.League`;
:func:`serve_league` starts a server (gRPC, and the Unix socket of the sandboxed bots), the
league on it and, optionally, the web pages, and runs until it is stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import shutil
import tempfile
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import structlog
from google.protobuf.timestamp_pb2 import Timestamp
from rookery.arena.launch._sandbox import SandboxRuntime, probe
from rookery.server import LeagueBackend, RookeryServer, ServerConfig
from rookery.v1 import league_pb2

from .league import League
from .options import LeagueError, LeagueOptions
from .store import SeasonRecord, VersionRecord, VersionState

if TYPE_CHECKING:
    from rookery.arena.league.ray import RayPairs, RayPairsOptions

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

log = structlog.get_logger("rookery.league")

_STATUS = {
    VersionState.BUILDING: league_pb2.VERSION_STATUS_BUILDING,
    VersionState.QUALIFYING: league_pb2.VERSION_STATUS_QUALIFYING,
    VersionState.ACTIVE: league_pb2.VERSION_STATUS_ACTIVE,
    VersionState.BUILD_FAILED: league_pb2.VERSION_STATUS_BUILD_FAILED,
    VersionState.QUALIFICATION_FAILED: league_pb2.VERSION_STATUS_QUALIFICATION_FAILED,
    VersionState.RETIRED: league_pb2.VERSION_STATUS_RETIRED,
    VersionState.DISQUALIFIED: league_pb2.VERSION_STATUS_DISQUALIFIED,
}
_SEASON = {
    "open": league_pb2.SEASON_STATUS_OPEN,
    "final": league_pb2.SEASON_STATUS_FINAL,
    "closed": league_pb2.SEASON_STATUS_CLOSED,
}


def _timestamp(seconds: float) -> Timestamp:
    stamp = Timestamp()
    stamp.FromNanoseconds(int(seconds * 1e9))
    return stamp


def version_to_proto(
    version: VersionRecord,
    elo: float = 0.0,
    error: float = 0.0,
    games: int = 0,
    *,
    private: bool = False,
) -> league_pb2.BotVersion:
    """A version on the wire; its command and build step only with ``private`` (for its author
    and the organiser)."""
    return league_pb2.BotVersion(
        version_id=version.version_id,
        bot_name=version.bot,
        number=version.number,
        content_sha256=version.content_sha256,
        command=version.command if private else "",
        build=version.build if private else "",
        status=_STATUS.get(version.status, league_pb2.VERSION_STATUS_UNSPECIFIED),
        detail=version.detail,
        submitted_at=_timestamp(version.submitted_at),
        elo=elo,
        elo_error=error,
        games=games,
        note=version.note,
    )


class LeagueService(LeagueBackend):
    """ArenaService's league RPCs on one :class:`League`."""

    def __init__(self, league: League) -> None:
        self.league = league

    def _season(self, season: SeasonRecord) -> league_pb2.Season:
        store = self.league.store
        return league_pb2.Season(
            season_id=season.season_id,
            name=season.name,
            deadline=_timestamp(season.deadline),
            status=_SEASON.get(season.status, league_pb2.SEASON_STATUS_UNSPECIFIED),
            confidence=season.confidence,
            final_pair_budget=season.final_pair_budget,
            final_pairs_played=store.count_pairs(season.season_id, ("final",)),
            pairs_played=store.count_pairs(season.season_id),
        )

    def _rated(self, version: VersionRecord, token: str | None) -> league_pb2.BotVersion:
        private = self.league.desk.may_read_private(version.bot, token)
        with contextlib.suppress(LookupError):
            season = self.league.store.season()
            rating = self.league.store.latest_ratings(season.season_id).get(version.version_id)
            if rating is not None:
                error = (rating.upper - rating.lower) / 2
                return version_to_proto(version, rating.elo, error, rating.games, private=private)
        return version_to_proto(version, private=private)

    async def submit_version(
        self, request: league_pb2.SubmitVersionRequest, token: str | None
    ) -> league_pb2.BotVersion:
        source = request.WhichOneof("source")
        version = await self.league.submit(
            request.bot_name,
            token,
            request.command,
            archive=request.archive if source == "archive" else None,
            local_folder=request.local_folder if source == "local_folder" else "",
            build=request.build,
            note=request.note,
        )
        return version_to_proto(version, private=True)

    async def submit_version_upload(
        self, chunks: AsyncIterator[league_pb2.SubmitVersionUploadRequest], token: str | None
    ) -> league_pb2.BotVersion:
        first = await anext(aiter(chunks), None)
        if first is None or first.WhichOneof("part") != "request":
            raise ValueError(
                "an upload's first message is the submission (request), its archive after it"
            )
        request = first.request
        if request.WhichOneof("source") is not None:
            raise ValueError("request: leave its source empty, the archive follows in chunks")
        # Who may submit, and the day's quota, before a byte of the archive is kept.
        self.league.desk.check_submission(request.bot_name, token)
        limit = self.league.options.version_bytes
        parts: list[bytes] = []
        size = 0
        async for chunk in chunks:
            if chunk.WhichOneof("part") != "archive_chunk":
                raise ValueError("after the first message an upload sends only archive_chunk")
            size += len(chunk.archive_chunk)
            if size > limit:
                raise ValueError(
                    f"archive: more than the league's {limit} bytes a version (version_bytes)"
                )
            parts.append(chunk.archive_chunk)
        version = await self.league.submit(
            request.bot_name,
            token,
            request.command,
            archive=b"".join(parts),
            build=request.build,
            note=request.note,
        )
        return version_to_proto(version, private=True)

    async def list_versions(self, bot_name: str, token: str | None) -> list[league_pb2.BotVersion]:
        return [self._rated(v, token) for v in self.league.store.versions(bot_name)]

    async def get_version(
        self, request: league_pb2.GetVersionRequest, token: str | None
    ) -> league_pb2.GetVersionResponse:
        version = self.league.store.version(request.version_id)
        response = league_pb2.GetVersionResponse(version=self._rated(version, token))
        if self.league.desk.may_read_private(version.bot, token):
            response.build_log = self.league.store.build_log(version.version_id)
            if request.runtime_log_bytes:
                response.runtime_log = await asyncio.to_thread(
                    self.league.desk.runtime_log, version.version_id, request.runtime_log_bytes
                )
        return response

    async def retire_version(self, version_id: str, token: str | None) -> league_pb2.BotVersion:
        return version_to_proto(self.league.retire(version_id, token), private=True)

    async def disqualify_version(self, version_id: str, reason: str) -> league_pb2.BotVersion:
        return version_to_proto(self.league.disqualify(version_id, reason), private=True)

    async def challenge(self, request: league_pb2.ChallengeRequest, token: str | None) -> int:
        return self.league.challenge(
            request.version_id, request.opponent_version_id, request.pairs, request.rated, token
        )

    async def board(self, all_versions: bool) -> league_pb2.GetLeagueBoardResponse:
        board = await asyncio.to_thread(self.league.board, all_versions)
        season = self.league.store.season()
        response = league_pb2.GetLeagueBoardResponse(
            season=self._season(season), verdicts=board.verdicts
        )
        for line in board.lines:
            response.standings.append(
                league_pb2.LeagueStanding(
                    rank=line.rank,
                    version=version_to_proto(line.version, line.elo, line.error, line.games),
                    lower=line.lower,
                    upper=line.upper,
                    tied_with_next=line.tied_with_next,
                )
            )
        return response

    async def create_season(self, request: league_pb2.CreateSeasonRequest) -> league_pb2.Season:
        if not request.HasField("deadline"):
            raise ValueError("deadline: give the season's deadline")
        season = self.league.create_season(
            request.name,
            request.deadline.ToNanoseconds() / 1e9,
            request.confidence or 0.95,
            request.final_pair_budget or 200,
        )
        return self._season(season)

    async def start_final_evaluation(self) -> league_pb2.Season:
        self.league.start_final_evaluation()
        return self._season(self.league.store.season())


@dataclass
class LeagueServer:
    """A running league: its gRPC server, the league, the web pages (if any)."""

    server: RookeryServer
    league: League
    socket_dir: Path | None = None
    sandbox: SandboxRuntime | None = None
    remote: RayPairs | None = None

    @classmethod
    async def start(
        cls,
        path: str | Path,
        config: ServerConfig,
        options: LeagueOptions,
        *,
        ray: RayPairsOptions | None = None,
    ) -> LeagueServer:
        """Starts the server and the league on it; with ``ray``, its pairs are Ray tasks
        (and their builds, on the workers)."""
        remote: RayPairs | None = None
        if ray is not None:
            from rookery.arena.league.ray import RayPairs

            remote = await RayPairs.connect(ray)
            log.info("league pairs on ray", address=ray.address or "local", cpus=remote.cpus())
        try:
            return await cls._start(path, config, options, remote)
        except BaseException:
            if remote is not None:
                await remote.close()
            raise

    @classmethod
    async def _start(
        cls,
        path: str | Path,
        config: ServerConfig,
        options: LeagueOptions,
        remote: RayPairs | None,
    ) -> LeagueServer:
        sandbox: SandboxRuntime | None = None
        socket_dir: Path | None = None
        if options.sandbox != "off":
            support = probe()
            if not support.available:
                if options.sandbox == "on":
                    raise LeagueError(f"sandbox = 'on' but {support.describe()}")
                log.warning("versions run unconfined", why=support.describe())
            else:
                socket_dir = Path(tempfile.mkdtemp(prefix="rookery-league-"))
                socket_dir.chmod(0o711)
                sandbox = SandboxRuntime(support, options.limits, socket_dir / "server.sock")
        if socket_dir is not None:
            config = dataclasses.replace(config, unix_socket=str(socket_dir / "server.sock"))
        server = RookeryServer(config)
        await server.start()
        try:
            league = League(path, server, options, sandbox=sandbox, remote=remote)
        except BaseException:
            await server.stop(grace_s=0.5)
            raise
        server.league = LeagueService(league)
        await league.start()
        return cls(server, league, socket_dir, sandbox, remote)

    async def stop(self) -> None:
        """Stops the league (pairs in flight are played again next time) and the server."""
        await self.league.stop()
        await self.server.stop(grace_s=0.5)
        if self.sandbox is not None:
            self.sandbox.close()
        if self.socket_dir is not None:
            shutil.rmtree(self.socket_dir, ignore_errors=True)
        if self.remote is not None:
            await self.remote.close()
