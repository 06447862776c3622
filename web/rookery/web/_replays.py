"""The dashboard's replays of finished games: the viewer's data, the replay file and one hand's
double-dummy analysis and par, each under the same withholding (a replay stays private while
its deals are still to be played: by a live table on the same seed, or by its tournament's
other games)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from http import HTTPStatus

from rookery.arena.league import League
from rookery.server import RookeryServer, Table, TableNotFinishedError, UnknownTableError
from rookery.v1 import replay_pb2
from rookery.wire.analysis import AnalysisError
from rookery.wire.documents import JsonValue
from rookery.wire.replay import encode_replay, read_replay

from ._analysis import ReplayAnalyses, league_replay
from ._errors import ReplayWithheldError
from ._league import league_replay_json
from ._model import replay_json
from ._responses import HttpError, json_response
from ._sources import RunDirectories

__all__ = ["ReplayRoutes"]

JSON = dict[str, JsonValue]

#: Replay views kept in memory (the withholding is checked again on every hit).
_CACHED_VIEWS = 32


class ReplayRoutes:
    """``/api/replays/<game>`` (and ``/file``, ``/analysis``, ``/par``): the replays of ``server``'s
    finished tables, of the arena runs in ``runs`` and of ``league``'s committed games."""

    def __init__(
        self, server: RookeryServer | None, runs: RunDirectories, league: League | None
    ) -> None:
        self.server = server
        self.runs = runs
        self.league = league
        self._views: OrderedDict[str, tuple[JSON, replay_pb2.ReplayHeader, bool]] = OrderedDict()
        """Replay views by game id, with the header and whether the game server gave it."""
        self.analyses = ReplayAnalyses()
        """The viewer's double-dummy analyses of public replays (``/api/replays/ID/analysis``)."""

    def _live_tables(self) -> list[Table]:
        return [] if self.server is None else self.server.list_tables()

    async def view(self, game_id: str) -> JSON:
        """The replay viewer's data of a finished game (a server table or an arena game).

        ``HttpError`` 409 while the game is being played, 404 when nobody knows it.
        """
        if self.league is not None:  # a league game: public once its pair is committed
            league_view = await asyncio.to_thread(league_replay_json, self.league, game_id)
            if league_view is not None:
                return league_view
        cached = self._views.get(game_id)
        if cached is not None:
            view, header, from_server = cached
            # The cache answers only what a fresh read would: the same withholding first.
            try:
                if from_server:
                    assert self.server is not None  # only a server's replays are from_server
                    try:
                        self.server.check_replay_public(game_id, header.tournament_id, header.seed)
                    except TableNotFinishedError as error:
                        raise HttpError(HTTPStatus.CONFLICT, str(error)) from None
                    await self._check_server_replay(game_id, header)
                else:
                    await asyncio.to_thread(self.runs.replay_path, game_id)
            except ReplayWithheldError as error:
                raise HttpError(HTTPStatus.CONFLICT, str(error)) from None
            self._views.move_to_end(game_id)
            return view
        replay, from_server = await self._read(game_id)
        view = await asyncio.to_thread(replay_json, replay, game_id)
        view["twin"] = await asyncio.to_thread(self.runs.twin, game_id)
        self._views[game_id] = (view, replay.header, from_server)
        while len(self._views) > _CACHED_VIEWS:
            self._views.popitem(last=False)
        return view

    async def _read(self, game_id: str) -> tuple[replay_pb2.Replay, bool]:
        """A finished game's replay, and whether the game server gave it; ``HttpError`` 409
        while it is withheld, 404 when nobody knows it."""
        replay: replay_pb2.Replay | None = None
        from_server = False
        try:
            if self.server is not None:
                try:
                    replay = self.server.replay(game_id)
                except TableNotFinishedError as error:
                    raise HttpError(HTTPStatus.CONFLICT, str(error)) from None
                except UnknownTableError:
                    replay = None
                if replay is not None:
                    from_server = True
                    await self._check_server_replay(game_id, replay.header)
            if replay is None:
                path = await asyncio.to_thread(self.runs.replay_path, game_id)
                if path is None or not path.is_file():
                    raise HttpError(HTTPStatus.NOT_FOUND, f"no finished game {game_id!r}")
                replay = await asyncio.to_thread(read_replay, path)
        except ReplayWithheldError as error:
            raise HttpError(HTTPStatus.CONFLICT, str(error)) from None
        return replay, from_server

    async def _check_server_replay(self, game_id: str, header: replay_pb2.ReplayHeader) -> None:
        """A finished table's replay stays private while its deals are still to be played: by
        a table of this server on the same seed, or by its tournament's remaining games."""
        seed = header.seed
        for table in self._live_tables():
            if not table.is_finished and table.seed == seed:
                raise ReplayWithheldError(
                    f"table {game_id!r} is over, but table {table.id!r} is playing the same "
                    "deals: its replay is withheld until that game ends"
                )
        tournament = header.tournament_id
        if tournament:
            pending = await asyncio.to_thread(self.runs.tournament_withholds, tournament, seed)
            if pending is None:
                raise ReplayWithheldError(
                    f"table {game_id!r} belongs to tournament {tournament!r}, whose run "
                    "directory this dashboard does not read: its replay is withheld (games "
                    "share deals); see the tournament's own pages once it has ended"
                )
            if pending:
                raise ReplayWithheldError(
                    f"table {game_id!r} is over, but tournament {tournament!r} still has a "
                    "game to play on the same deals: its replay is withheld until then"
                )

    async def api_replay(self, game_id: str, *, query: dict[str, str]) -> tuple[str, bytes]:
        return json_response(await self.view(game_id))

    async def api_replay_file(self, game_id: str, *, query: dict[str, str]) -> tuple[str, bytes]:
        """The replay file itself (``.jsonl.gz``, as ``rookery replay verify`` reads it), under
        the same withholding as its view."""
        replay, _ = await self._read(game_id)
        return "application/gzip", await asyncio.to_thread(encode_replay, replay)

    async def api_replay_analysis(
        self, game_id: str, *, query: dict[str, str]
    ) -> tuple[str, bytes]:
        """One hand's double-dummy analysis (``?hand=N``, 0-based), under the same withholding
        as the replay: 409 while the game, or another on its deals, is being played."""
        return await self._analysed(game_id, query, self.analyses.hand)

    async def api_replay_par(self, game_id: str, *, query: dict[str, str]) -> tuple[str, bytes]:
        """One hand's par (``?hand=N``, 0-based): each seat's best contract, the auction of
        perfect information and the bidding side's regrets, under the same withholding as the
        replay."""
        return await self._analysed(game_id, query, self.analyses.par)

    async def _analysed(
        self,
        game_id: str,
        query: dict[str, str],
        analyse: Callable[[str, replay_pb2.Replay, int], Awaitable[JSON]],
    ) -> tuple[str, bytes]:
        try:
            hand = int(query.get("hand", ""))
        except ValueError:
            raise HttpError(
                HTTPStatus.BAD_REQUEST, "name the hand to analyse: ?hand=N (from 0)"
            ) from None
        replay = None
        if self.league is not None:
            replay = await asyncio.to_thread(league_replay, self.league, game_id)
        if replay is None:
            replay, _ = await self._read(game_id)
        try:
            view = await analyse(game_id, replay, hand)
        except LookupError as error:
            raise HttpError(HTTPStatus.NOT_FOUND, str(error)) from None
        except AnalysisError as error:
            raise HttpError(
                HTTPStatus.UNPROCESSABLE_ENTITY, f"cannot analyse {game_id!r}: {error}"
            ) from None
        return json_response(view)
