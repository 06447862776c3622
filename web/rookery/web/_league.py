"""The league's pages and JSON: the board with its history, each bot's page, the final evaluation.

- ``GET /league``: the board (main board and every version), the rating chart, recent games,
  incidents, and the final evaluation's progress once the deadline has passed.
- ``GET /league/bots/<bot>``: one bot's versions, their rating chart, recent games, incidents.
- ``GET /api/league``, ``GET /api/league/bots/<bot>``: their JSON.

Everything is public and read-only, under the same rules as the rest of the dashboard: a game's
replay is linked (and served, by the replay viewer) only once its duplicate pair is committed, so
that no deal still in play is shown; build logs and command lines are not shown at all (they are
the author's).
"""

from __future__ import annotations

import asyncio
import html
from http import HTTPStatus
from pathlib import Path
from typing import Any

from rookery.arena.league import League, PairRecord, RatingPoint, VersionRecord, VersionState
from rookery.wire.replay import read_replay

from ._model import replay_json
from ._pages import _asset, _script_json
from ._responses import HttpError, json_response

__all__ = [
    "LeagueRoutes",
    "league_bot_json",
    "league_json",
    "league_page_html",
    "league_replay_json",
]

JSON = dict[str, Any]

#: The rating history keeps at most this many points per version (evenly thinned).
_HISTORY_POINTS = 200
_RECENT_PAIRS = 30


def league_page_html(title: str, boot: JSON) -> str:
    """A league page: self-contained (inline CSS and JS), its data from the JSON API."""
    return (
        "<!doctype html>\n"
        '<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{html.escape(title)}</title>\n"
        f"<style>{_asset('app.css')}{_asset('league.css')}</style>\n"
        "</head><body>\n"
        '<header class="top"><a class="brand" href="/">Rookery</a>'
        '<nav id="crumbs"><a href="/league">league</a></nav></header>\n'
        '<main id="app"><noscript>This page needs JavaScript.</noscript></main>\n'
        f'<script type="application/json" id="rookery-boot">{_script_json(boot)}</script>\n'
        f"<script>{_asset('league.js')}</script>\n"
        "</body></html>\n"
    )


def _version_json(version: VersionRecord, rating: RatingPoint | None) -> JSON:
    return {
        "version_id": version.version_id,
        "bot": version.bot,
        "number": version.number,
        "status": version.status,
        "detail": version.detail,
        "note": version.note,
        "sha256": version.content_sha256[:16],
        "submitted_at": version.submitted_at,
        "elo": round(rating.elo, 1) if rating else None,
        "lower": round(rating.lower, 1) if rating else None,
        "upper": round(rating.upper, 1) if rating else None,
        "games": rating.games if rating else 0,
    }


def _history_json(points: list[RatingPoint], wanted: set[str]) -> JSON:
    by_version: dict[str, list[list[float]]] = {}
    for p in points:
        if p.version_id in wanted:
            by_version.setdefault(p.version_id, []).append(
                [p.pairs, round(p.elo, 1), round(p.lower, 1), round(p.upper, 1)]
            )
    for key, series in by_version.items():
        if len(series) > _HISTORY_POINTS:
            step = len(series) / _HISTORY_POINTS
            by_version[key] = [series[int(i * step)] for i in range(_HISTORY_POINTS)] + [series[-1]]
    return by_version


def _pair_json(pair: PairRecord, names: dict[str, str]) -> JSON:
    return {
        "pair_id": pair.pair_id,
        "kind": pair.kind,
        "a": pair.a,
        "b": pair.b,
        "score_a": pair.score_a,
        "rated": pair.rated,
        "void": pair.void,
        "finished_at": pair.finished_at,
        "games": [
            {
                "game_id": g.game_id,
                "seats": [names.get(s, s) for s in g.seats],
                "ranks": list(g.ranks),
                "scores": list(g.scores),
                "termination": g.termination,
                "hands": g.hands,
            }
            for g in pair.games
        ],
    }


def _names(league: League) -> dict[str, str]:
    from rookery.arena.league import seat_name

    return {seat_name(v.version_id): v.version_id for v in league.store.versions(house=True)}


def league_json(league: League) -> JSON:
    """The board page's data (runs in a worker thread: it reads SQLite and may fit)."""
    store = league.store
    season = store.season()
    ratings = store.latest_ratings(season.season_id)
    main = league.board(False)
    every = league.board(True)
    shown = {line.version.version_id for line in every.lines}
    names = _names(league)
    final: JSON | None = None
    if season.status in ("final", "closed"):
        played = store.count_pairs(season.season_id, ("final",))
        if season.status == "closed" and season.final:
            verdicts = list(season.final.get("verdicts", ()))
            steps = None
        else:
            _ranked, separations, _fit = league.final_state(season.season_id)
            steps = [
                {
                    "upper": step.upper,
                    "lower": step.lower,
                    "los": round(step.los, 3),
                    "separated": step.separated,
                }
                for step in separations
            ]
            verdicts = []
        final = {
            "status": season.status,
            "pairs_played": played,
            "budget": season.final_pair_budget,
            "confidence": season.confidence,
            "steps": steps,
            "verdicts": verdicts,
            "tied": season.final.get("tied", []) if season.final else [],
        }

    def line_json(line: Any) -> JSON:
        # The line's own rating: once the season is closed, the final fit's the ranking is in.
        rating = ratings.get(line.version.version_id)
        if every.final:
            version_id = line.version.version_id
            rating = RatingPoint(0, 0.0, version_id, line.elo, line.lower, line.upper, line.games)
            rating = rating if line.games else None
        data = _version_json(line.version, rating)
        data["rank"] = line.rank
        data["tied_with_next"] = line.tied_with_next
        return data

    return {
        "season": {
            "name": season.name,
            "status": season.status,
            "deadline": season.deadline,
            "confidence": season.confidence,
            "pairs_played": store.count_pairs(season.season_id),
        },
        "board": [line_json(line) for line in main.lines],
        "all": [line_json(line) for line in every.lines],
        "history": _history_json(store.rating_history(season.season_id), shown),
        "recent": [
            _pair_json(p, names) for p in store.pairs(season.season_id, limit=_RECENT_PAIRS)
        ][::-1],
        "incidents": [
            {"version_id": v, "kind": k, "detail": d[:300], "at": t}
            for v, k, d, t in store.incidents(limit=30)
        ],
        "final": final,
    }


def league_bot_json(league: League, bot: str) -> JSON | None:
    """One bot's page data, or None for a bot with no version."""
    store = league.store
    versions = store.versions(bot)
    if not versions:
        return None
    season = store.season()
    ratings = store.latest_ratings(season.season_id)
    ids = {v.version_id for v in versions}
    names = _names(league)
    recent: list[JSON] = []
    for pair in store.pairs(season.season_id, limit=400)[::-1]:
        if pair.a in ids or pair.b in ids:
            recent.append(_pair_json(pair, names))
        if len(recent) >= _RECENT_PAIRS:
            break
    incidents: list[JSON] = [
        {"version_id": v, "kind": k, "detail": d[:300], "at": t}
        for vid in sorted(ids)
        for v, k, d, t in store.incidents(vid, limit=20)
    ]
    return {
        "bot": bot,
        "season": {"name": season.name, "status": season.status},
        "versions": [_version_json(v, ratings.get(v.version_id)) for v in versions],
        "history": _history_json(store.rating_history(season.season_id), ids),
        "recent": recent,
        "incidents": sorted(incidents, key=lambda i: -i["at"])[:30],
        "active": [v.version_id for v in versions if v.status == VersionState.ACTIVE],
    }


def league_replay_json(league: League, game_id: str) -> JSON | None:
    """The viewer's data of a league game whose pair is committed (None: not one of those)."""
    game = league.store.game(game_id)
    if game is None:
        return None
    path = Path(league.folder) / game.replay_path
    if not path.is_file():
        return None
    return replay_json(read_replay(path), game_id)


class LeagueRoutes:
    """``/league`` and ``/league/bots/<bot>`` with their JSON, for ``league`` (a
    ``rookery.arena.league.League``; None: 404, the dashboard shows no league)."""

    def __init__(self, league: League | None) -> None:
        self.league = league

    def _the_league(self) -> League:
        if self.league is None:
            raise HttpError(HTTPStatus.NOT_FOUND, "this dashboard shows no league")
        return self.league

    async def api_league(self, *, query: dict[str, str]) -> tuple[str, bytes]:
        league = self._the_league()
        try:
            view = await asyncio.to_thread(league_json, league)
        except LookupError as error:
            raise HttpError(HTTPStatus.NOT_FOUND, str(error).strip("'\"")) from None
        return json_response(view)

    async def api_league_bot(self, bot: str, *, query: dict[str, str]) -> tuple[str, bytes]:
        league = self._the_league()
        try:
            view = await asyncio.to_thread(league_bot_json, league, bot)
        except LookupError as error:
            raise HttpError(HTTPStatus.NOT_FOUND, str(error).strip("'\"")) from None
        if view is None:
            raise HttpError(HTTPStatus.NOT_FOUND, f"no bot {bot!r} in this league")
        return json_response(view)

    async def page_league(self, *, query: dict[str, str]) -> tuple[str, bytes]:
        self._the_league()
        page = league_page_html("League — Rookery", {"view": "board"})
        return "text/html; charset=utf-8", page.encode()

    async def page_league_bot(self, bot: str, *, query: dict[str, str]) -> tuple[str, bytes]:
        self._the_league()
        page = league_page_html(f"{bot} — Rookery league", {"view": "bot", "bot": bot})
        return "text/html; charset=utf-8", page.encode()
