"""The ArenaService servicer: bots and their tokens, ad-hoc tables, replays, and the tournament and
league calls delegated to the server's backends; protobuf converted here, at the edge."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import grpc
from google.protobuf.timestamp_pb2 import Timestamp
from rookery.engine import Ruleset, RulesetError
from rookery.v1 import arena_service_pb2, arena_service_pb2_grpc, league_pb2, table_pb2
from rookery.wire import convert
from rookery.wire.errors import MalformedMessageError

from ._backends import abort, bearer, league_call, tournament_call
from ._errors import (
    InvalidBotNameError,
    ServerStoppingError,
    TableNotFinishedError,
    TableSpecError,
    UnknownBotError,
    UnknownTableError,
)
from ._hub import ServerHub
from ._registry import RegisteredBot
from ._table import TableSpec, TableStatus

__all__ = ["ArenaServicer"]

_Code = grpc.StatusCode

_MAX_PRESET = 64
"""The longest preset name CreateTable accepts (the error would repeat it)."""


def _bot_info(record: RegisteredBot, connected: bool) -> arena_service_pb2.BotInfo:
    created = Timestamp()
    created.FromNanoseconds(int(record.created_at * 1e9))
    return arena_service_pb2.BotInfo(
        name=record.name,
        created_at=created,
        connected=connected,
        version=record.version,
        active=record.active,
    )


class ArenaServicer(arena_service_pb2_grpc.ArenaServiceServicer):
    """ArenaService: bots and tokens, ad-hoc tables, replays; tournaments via the backend."""

    def __init__(self, server: ServerHub) -> None:
        self._server = server

    async def AddBot(
        self,
        request: arena_service_pb2.AddBotRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.AddBotRequest, arena_service_pb2.AddBotResponse
        ],
    ) -> arena_service_pb2.AddBotResponse:
        try:
            record, token = self._server.bots.add(request.name)
        except InvalidBotNameError as error:
            await abort(context, _Code.INVALID_ARGUMENT, str(error))
        except ValueError as error:
            await abort(context, _Code.ALREADY_EXISTS, str(error))
        connected = request.name in self._server.roster.sessions
        return arena_service_pb2.AddBotResponse(bot=_bot_info(record, connected), token=token)

    async def ListBots(
        self,
        request: arena_service_pb2.ListBotsRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.ListBotsRequest, arena_service_pb2.ListBotsResponse
        ],
    ) -> arena_service_pb2.ListBotsResponse:
        connected = self._server.roster.sessions
        return arena_service_pb2.ListBotsResponse(
            bots=[_bot_info(r, r.name in connected) for r in self._server.bots.list()]
        )

    async def RemoveBot(
        self,
        request: arena_service_pb2.RemoveBotRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.RemoveBotRequest, arena_service_pb2.RemoveBotResponse
        ],
    ) -> arena_service_pb2.RemoveBotResponse:
        try:
            self._server.bots.remove(request.name)
        except UnknownBotError as error:
            await abort(context, _Code.NOT_FOUND, str(error))
        if self._server.config.is_token_mode:
            for session in self._server.roster.sessions.get(request.name, ()):
                session.close(_Code.UNAUTHENTICATED, f"bot {request.name!r} was revoked")
        return arena_service_pb2.RemoveBotResponse()

    async def CreateTable(
        self,
        request: arena_service_pb2.CreateTableRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.CreateTableRequest, arena_service_pb2.CreateTableResponse
        ],
    ) -> arena_service_pb2.CreateTableResponse:
        server = self._server
        rules = request.WhichOneof("rules")
        try:
            if rules == "preset":
                if len(request.preset) > _MAX_PRESET:
                    raise TableSpecError(
                        f"preset is {len(request.preset)} characters long: at most "
                        f"{_MAX_PRESET} are accepted"
                    )
                ruleset = Ruleset.preset(request.preset)
            elif rules == "ruleset":
                ruleset = convert.ruleset_from_proto(request.ruleset)
            else:
                raise TableSpecError("set the rules: a preset name or a complete ruleset")
            time_control = server.config.time_control.merged_with(request.time_control)
            spec = TableSpec(
                ruleset=ruleset,
                seat_bots=tuple(request.seat_bots),
                seed=request.seed or None,
                time_control=time_control,
                join_timeout_s=server.config.join_timeout_s or 30.0,
            )
            table = await server.create_table(spec)
        except (RulesetError, MalformedMessageError, TableSpecError) as error:
            await abort(context, _Code.INVALID_ARGUMENT, str(error))
        except ServerStoppingError as error:
            await abort(context, _Code.UNAVAILABLE, str(error))
        return arena_service_pb2.CreateTableResponse(table=table.summary())

    async def ListTables(
        self,
        request: arena_service_pb2.ListTablesRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.ListTablesRequest, arena_service_pb2.ListTablesResponse
        ],
    ) -> arena_service_pb2.ListTablesResponse:
        status = None
        if request.status != table_pb2.TABLE_STATUS_UNSPECIFIED:
            try:
                status = TableStatus(request.status)
            except ValueError:
                await abort(context, _Code.INVALID_ARGUMENT, f"unknown status {request.status}")
        tables = self._server.list_tables(status)
        return arena_service_pb2.ListTablesResponse(tables=[t.summary() for t in tables])

    async def GetTable(
        self,
        request: arena_service_pb2.GetTableRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.GetTableRequest, arena_service_pb2.GetTableResponse
        ],
    ) -> arena_service_pb2.GetTableResponse:
        try:
            table = self._server.get_table(request.table_id)
        except UnknownTableError as error:
            await abort(context, _Code.NOT_FOUND, str(error))
        return arena_service_pb2.GetTableResponse(table=table.summary())

    async def AbortTable(
        self,
        request: arena_service_pb2.AbortTableRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.AbortTableRequest, arena_service_pb2.AbortTableResponse
        ],
    ) -> arena_service_pb2.AbortTableResponse:
        try:
            table = self._server.get_table(request.table_id)
        except UnknownTableError as error:
            await abort(context, _Code.NOT_FOUND, str(error))
        if table.is_finished:
            await abort(
                context, _Code.FAILED_PRECONDITION, f"table {table.id!r} has finished already"
            )
        table.abort("aborted by the organiser")
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(table.wait_finished(), 5.0)
        return arena_service_pb2.AbortTableResponse(table=table.summary())

    async def GetReplay(
        self,
        request: arena_service_pb2.GetReplayRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.GetReplayRequest, arena_service_pb2.GetReplayResponse
        ],
    ) -> arena_service_pb2.GetReplayResponse:
        try:
            replay = self._server.replay(request.table_id)
        except UnknownTableError as error:
            await abort(context, _Code.NOT_FOUND, str(error))
        except TableNotFinishedError as error:
            await abort(context, _Code.FAILED_PRECONDITION, str(error))
        return arena_service_pb2.GetReplayResponse(replay=replay)

    # Tournaments: delegated to the backend ----------------------------------------------------

    async def CreateTournament(
        self,
        request: arena_service_pb2.CreateTournamentRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.CreateTournamentRequest, arena_service_pb2.CreateTournamentResponse
        ],
    ) -> arena_service_pb2.CreateTournamentResponse:
        info = await tournament_call(
            self._server, context, lambda b: b.create_tournament(request.spec)
        )
        return arena_service_pb2.CreateTournamentResponse(tournament=info)

    async def GetTournament(
        self,
        request: arena_service_pb2.GetTournamentRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.GetTournamentRequest, arena_service_pb2.GetTournamentResponse
        ],
    ) -> arena_service_pb2.GetTournamentResponse:
        info = await tournament_call(
            self._server, context, lambda b: b.get_tournament(request.tournament_id)
        )
        return arena_service_pb2.GetTournamentResponse(tournament=info)

    async def ListTournaments(
        self,
        request: arena_service_pb2.ListTournamentsRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.ListTournamentsRequest, arena_service_pb2.ListTournamentsResponse
        ],
    ) -> arena_service_pb2.ListTournamentsResponse:
        infos = await tournament_call(self._server, context, lambda b: b.list_tournaments())
        return arena_service_pb2.ListTournamentsResponse(tournaments=infos)

    async def ListGames(
        self,
        request: arena_service_pb2.ListGamesRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.ListGamesRequest, arena_service_pb2.ListGamesResponse
        ],
    ) -> arena_service_pb2.ListGamesResponse:
        games = await tournament_call(
            self._server, context, lambda b: b.list_games(request.tournament_id, request.limit)
        )
        return arena_service_pb2.ListGamesResponse(games=games)

    async def GetStandings(
        self,
        request: arena_service_pb2.GetStandingsRequest,
        context: grpc.aio.ServicerContext[
            arena_service_pb2.GetStandingsRequest, arena_service_pb2.GetStandingsResponse
        ],
    ) -> arena_service_pb2.GetStandingsResponse:
        standings = await tournament_call(
            self._server, context, lambda b: b.get_standings(request.tournament_id)
        )
        return arena_service_pb2.GetStandingsResponse(standings=standings)

    # League: delegated to the league backend ---------------------------------------------------

    async def SubmitVersion(
        self,
        request: league_pb2.SubmitVersionRequest,
        context: grpc.aio.ServicerContext[
            league_pb2.SubmitVersionRequest, league_pb2.SubmitVersionResponse
        ],
    ) -> league_pb2.SubmitVersionResponse:
        token = bearer(context)
        version = await league_call(
            self._server, context, lambda b: b.submit_version(request, token)
        )
        return league_pb2.SubmitVersionResponse(version=version)

    async def SubmitVersionUpload(
        self,
        request_iterator: AsyncIterator[league_pb2.SubmitVersionUploadRequest],
        context: grpc.aio.ServicerContext[
            league_pb2.SubmitVersionUploadRequest, league_pb2.SubmitVersionUploadResponse
        ],
    ) -> league_pb2.SubmitVersionUploadResponse:
        token = bearer(context)
        version = await league_call(
            self._server, context, lambda b: b.submit_version_upload(request_iterator, token)
        )
        return league_pb2.SubmitVersionUploadResponse(version=version)

    async def ListVersions(
        self,
        request: league_pb2.ListVersionsRequest,
        context: grpc.aio.ServicerContext[
            league_pb2.ListVersionsRequest, league_pb2.ListVersionsResponse
        ],
    ) -> league_pb2.ListVersionsResponse:
        token = bearer(context)
        versions = await league_call(
            self._server, context, lambda b: b.list_versions(request.bot_name, token)
        )
        return league_pb2.ListVersionsResponse(versions=versions)

    async def GetVersion(
        self,
        request: league_pb2.GetVersionRequest,
        context: grpc.aio.ServicerContext[
            league_pb2.GetVersionRequest, league_pb2.GetVersionResponse
        ],
    ) -> league_pb2.GetVersionResponse:
        token = bearer(context)
        return await league_call(self._server, context, lambda b: b.get_version(request, token))

    async def RetireVersion(
        self,
        request: league_pb2.RetireVersionRequest,
        context: grpc.aio.ServicerContext[
            league_pb2.RetireVersionRequest, league_pb2.RetireVersionResponse
        ],
    ) -> league_pb2.RetireVersionResponse:
        token = bearer(context)
        version = await league_call(
            self._server, context, lambda b: b.retire_version(request.version_id, token)
        )
        return league_pb2.RetireVersionResponse(version=version)

    async def DisqualifyVersion(
        self,
        request: league_pb2.DisqualifyVersionRequest,
        context: grpc.aio.ServicerContext[
            league_pb2.DisqualifyVersionRequest, league_pb2.DisqualifyVersionResponse
        ],
    ) -> league_pb2.DisqualifyVersionResponse:
        version = await league_call(
            self._server,
            context,
            lambda b: b.disqualify_version(request.version_id, request.reason),
        )
        return league_pb2.DisqualifyVersionResponse(version=version)

    async def Challenge(
        self,
        request: league_pb2.ChallengeRequest,
        context: grpc.aio.ServicerContext[
            league_pb2.ChallengeRequest, league_pb2.ChallengeResponse
        ],
    ) -> league_pb2.ChallengeResponse:
        token = bearer(context)
        challenge_id = await league_call(
            self._server, context, lambda b: b.challenge(request, token)
        )
        return league_pb2.ChallengeResponse(challenge_id=challenge_id)

    async def GetLeagueBoard(
        self,
        request: league_pb2.GetLeagueBoardRequest,
        context: grpc.aio.ServicerContext[
            league_pb2.GetLeagueBoardRequest, league_pb2.GetLeagueBoardResponse
        ],
    ) -> league_pb2.GetLeagueBoardResponse:
        return await league_call(self._server, context, lambda b: b.board(request.all_versions))

    async def CreateSeason(
        self,
        request: league_pb2.CreateSeasonRequest,
        context: grpc.aio.ServicerContext[
            league_pb2.CreateSeasonRequest, league_pb2.CreateSeasonResponse
        ],
    ) -> league_pb2.CreateSeasonResponse:
        season = await league_call(self._server, context, lambda b: b.create_season(request))
        return league_pb2.CreateSeasonResponse(season=season)

    async def StartFinalEvaluation(
        self,
        request: league_pb2.StartFinalEvaluationRequest,
        context: grpc.aio.ServicerContext[
            league_pb2.StartFinalEvaluationRequest, league_pb2.StartFinalEvaluationResponse
        ],
    ) -> league_pb2.StartFinalEvaluationResponse:
        season = await league_call(self._server, context, lambda b: b.start_final_evaluation())
        return league_pb2.StartFinalEvaluationResponse(season=season)
