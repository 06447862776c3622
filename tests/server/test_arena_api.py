"""ArenaService: ad-hoc tables, their state, replays, aborts, and the tournament delegation."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

import grpc
import pytest
from rookery.engine import Ruleset
from rookery.server import (
    RookeryServer,
    ServerConfig,
    TableSpec,
    TournamentNotFoundError,
)
from rookery.server.testing import RawBot, bot_names, running_server
from rookery.v1 import (
    arena_service_pb2,
    arena_service_pb2_grpc,
    league_pb2,
    results_pb2,
    table_pb2,
)

api = arena_service_pb2


@pytest.fixture
async def stub(
    server: RookeryServer,
) -> AsyncIterator[arena_service_pb2_grpc.ArenaServiceAsyncStub]:
    async with grpc.aio.insecure_channel(server.target) as channel:
        yield arena_service_pb2_grpc.ArenaServiceStub(channel)


async def connected(server: RookeryServer, bots: Callable[..., RawBot]) -> list[RawBot]:
    players = [bots(server.target, name) for name in bot_names(4)]
    for bot in players:
        await bot.connect()
    return players


def create_request(**changes: object) -> api.CreateTableRequest:
    fields: dict[str, object] = {"preset": "standard", "seed": 99, "seat_bots": bot_names(4)}
    return api.CreateTableRequest(**(fields | changes))  # type: ignore[arg-type]


async def test_a_table_created_over_the_api_is_played_and_its_replay_served(
    server: RookeryServer,
    bots: Callable[..., RawBot],
    stub: arena_service_pb2_grpc.ArenaServiceAsyncStub,
) -> None:
    players = await connected(server, bots)
    created = await stub.CreateTable(
        create_request(time_control=table_pb2.TimeControl(action_ms=4000))
    )
    table_id = created.table.table_id
    assert created.table.time_control.action_ms == 4000
    assert created.table.time_control.grace_ms == server.config.time_control.grace_ms
    with pytest.raises(grpc.aio.AioRpcError) as early:
        await stub.GetReplay(api.GetReplayRequest(table_id=table_id))
    assert early.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
    await server.get_table(table_id).wait_finished()
    table = (await stub.GetTable(api.GetTableRequest(table_id=table_id))).table
    assert table.status == table_pb2.TABLE_STATUS_FINISHED
    assert table.result.reason == results_pb2.TERMINATION_REASON_TARGET_REACHED
    assert [seat.bot_version for seat in table.seats] == ["1.0"] * 4
    replay = (await stub.GetReplay(api.GetReplayRequest(table_id=table_id))).replay
    assert replay.header.seed == 99 and replay.result == table.result


async def test_tables_are_listed_by_status(
    server: RookeryServer, stub: arena_service_pb2_grpc.ArenaServiceAsyncStub
) -> None:
    created = await stub.CreateTable(create_request())
    waiting = await stub.ListTables(api.ListTablesRequest(status=table_pb2.TABLE_STATUS_WAITING))
    playing = await stub.ListTables(api.ListTablesRequest(status=table_pb2.TABLE_STATUS_PLAYING))
    assert [t.table_id for t in waiting.tables] == [created.table.table_id]
    assert list(playing.tables) == []


async def test_an_aborted_table_ends_without_a_winner_and_tells_its_bots(
    server: RookeryServer,
    bots: Callable[..., RawBot],
    stub: arena_service_pb2_grpc.ArenaServiceAsyncStub,
) -> None:
    players = await connected(server, bots)
    created = await stub.CreateTable(create_request())
    await players[0].read_kind("table_joined")
    aborted = await stub.AbortTable(api.AbortTableRequest(table_id=created.table.table_id))
    assert aborted.table.status == table_pb2.TABLE_STATUS_FINISHED
    assert aborted.table.result.reason == results_pb2.TERMINATION_REASON_ABORTED
    assert list(aborted.table.result.winners) == []
    finished = await players[0].read_kind("table_finished")
    assert finished.result.reason == results_pb2.TERMINATION_REASON_ABORTED
    with pytest.raises(grpc.aio.AioRpcError) as again:
        await stub.AbortTable(api.AbortTableRequest(table_id=created.table.table_id))
    assert again.value.code() == grpc.StatusCode.FAILED_PRECONDITION


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"preset": "no-such-preset"}, "no-such-preset"),
        ({"seat_bots": ["a", "b", "c"]}, "4 seats"),
        ({"seat_bots": ["a", "b", "c", "bad name"]}, "bad name"),
    ],
)
async def test_a_table_that_cannot_be_created_is_invalid_argument_with_the_reason(
    stub: arena_service_pb2_grpc.ArenaServiceAsyncStub, changes: dict[str, object], words: str
) -> None:
    request = create_request(**changes)
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await stub.CreateTable(request)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert words in (error.value.details() or "")


async def test_a_table_without_rules_is_invalid_argument(
    stub: arena_service_pb2_grpc.ArenaServiceAsyncStub,
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await stub.CreateTable(api.CreateTableRequest(seat_bots=bot_names(4)))
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_an_unknown_table_is_not_found(
    stub: arena_service_pb2_grpc.ArenaServiceAsyncStub,
) -> None:
    for call in (
        stub.GetTable(api.GetTableRequest(table_id="t-missing")),
        stub.GetReplay(api.GetReplayRequest(table_id="t-missing")),
        stub.AbortTable(api.AbortTableRequest(table_id="t-missing")),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await call
        assert error.value.code() == grpc.StatusCode.NOT_FOUND


async def test_tournament_calls_without_the_arena_are_unimplemented_and_say_why(
    stub: arena_service_pb2_grpc.ArenaServiceAsyncStub,
) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as error:
        await stub.ListTournaments(api.ListTournamentsRequest())
    assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "without a tournament backend" in (error.value.details() or "")


async def test_league_calls_without_a_league_are_unimplemented_and_say_how_to_start_one(
    stub: arena_service_pb2_grpc.ArenaServiceAsyncStub,
) -> None:
    for call in (
        stub.GetLeagueBoard(league_pb2.GetLeagueBoardRequest()),
        stub.SubmitVersion(league_pb2.SubmitVersionRequest(bot_name="alpha")),
    ):
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await call
        assert error.value.code() == grpc.StatusCode.UNIMPLEMENTED
        assert "start one with `rookery league serve`" in (error.value.details() or "")


class FakeTournaments:
    """A tournament backend that knows one tournament."""

    async def create_tournament(self, spec: api.TournamentSpec) -> api.TournamentInfo:
        return api.TournamentInfo(tournament_id="tour-1", spec=spec)

    async def get_tournament(self, tournament_id: str) -> api.TournamentInfo:
        if tournament_id != "tour-1":
            raise TournamentNotFoundError(f"no tournament {tournament_id!r}")
        return api.TournamentInfo(tournament_id="tour-1")

    async def list_tournaments(self) -> Sequence[api.TournamentInfo]:
        return [api.TournamentInfo(tournament_id="tour-1")]

    async def list_games(self, tournament_id: str, limit: int) -> Sequence[api.GameSummary]:
        return [api.GameSummary(game_id=f"g{i}") for i in range(limit)]

    async def get_standings(self, tournament_id: str) -> Sequence[api.Standing]:
        raise ValueError("standings need at least one finished game")


async def test_tournament_calls_are_delegated_to_the_backend() -> None:
    async with (
        running_server(ServerConfig(log_level="warning"), tournaments=FakeTournaments()) as server,
        grpc.aio.insecure_channel(server.target) as channel,
    ):
        stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
        created = await stub.CreateTournament(
            api.CreateTournamentRequest(spec=api.TournamentSpec(name="cup"))
        )
        games = await stub.ListGames(api.ListGamesRequest(tournament_id="tour-1", limit=3))
        with pytest.raises(grpc.aio.AioRpcError) as missing:
            await stub.GetTournament(api.GetTournamentRequest(tournament_id="nope"))
        with pytest.raises(grpc.aio.AioRpcError) as invalid:
            await stub.GetStandings(api.GetStandingsRequest(tournament_id="tour-1"))
    assert created.tournament.spec.name == "cup"
    assert [g.game_id for g in games.games] == ["g0", "g1", "g2"]
    assert missing.value.code() == grpc.StatusCode.NOT_FOUND
    assert "nope" in (missing.value.details() or "")
    assert invalid.value.code() == grpc.StatusCode.INVALID_ARGUMENT


async def test_finished_replays_are_written_and_served_after_the_table_is_forgotten(
    tmp_path: Path, bots: Callable[..., RawBot]
) -> None:
    config = ServerConfig(replay_dir=str(tmp_path), finished_tables_kept=1, log_level="warning")
    async with running_server(config) as server:
        first = await server.create_table(TableSpec(Ruleset.preset("standard"), bot_names(4)))
        first.abort("first")
        await first.wait_finished()
        players = await connected(server, bots)
        second = await server.create_table(TableSpec(Ruleset.preset("standard"), bot_names(4)))
        await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
        outcome = await second.wait_finished()
        assert first.id not in server.tables
        assert (tmp_path / f"{second.id}.jsonl.gz").is_file()
        assert server.replay(first.id).result.reason == results_pb2.TERMINATION_REASON_ABORTED
        assert server.replay(second.id) == outcome.replay


async def test_a_running_tournaments_replays_are_withheld_until_it_is_released(
    server: RookeryServer,
    bots: Callable[..., RawBot],
    stub: arena_service_pb2_grpc.ArenaServiceAsyncStub,
) -> None:
    """A tournament replays its seeds: a finished game's replay would show a deal still to come."""
    players = await connected(server, bots)
    server.withhold_replays("cup")
    spec = TableSpec(Ruleset.preset("standard"), bot_names(4), seed=5, tournament_id="cup")
    table = await server.create_table(spec)
    await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
    await table.wait_finished()
    with pytest.raises(grpc.aio.AioRpcError) as withheld:
        await stub.GetReplay(api.GetReplayRequest(table_id=table.id))
    assert withheld.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "tournament 'cup'" in (withheld.value.details() or "")
    server.release_replays("cup")
    replay = (await stub.GetReplay(api.GetReplayRequest(table_id=table.id))).replay
    assert replay.header.seed == 5


async def test_a_replay_is_withheld_while_another_table_plays_the_same_seed(
    server: RookeryServer,
    bots: Callable[..., RawBot],
    stub: arena_service_pb2_grpc.ArenaServiceAsyncStub,
) -> None:
    players = await connected(server, bots)
    first = await server.create_table(TableSpec(Ruleset.preset("standard"), bot_names(4), seed=8))
    await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
    await first.wait_finished()
    twin_seats = ("w0", "w1", "w2", "w3")  # never connect: the twin waits for its bots
    twin = await server.create_table(TableSpec(Ruleset.preset("standard"), twin_seats, seed=8))
    with pytest.raises(grpc.aio.AioRpcError) as withheld:
        await stub.GetReplay(api.GetReplayRequest(table_id=first.id))
    assert withheld.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "same seed" in (withheld.value.details() or "")
    server.abort_table(twin.id)
    await twin.wait_finished()
    replay = (await stub.GetReplay(api.GetReplayRequest(table_id=first.id))).replay
    assert replay.header.seed == 8
