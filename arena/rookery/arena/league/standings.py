"""The league's standings: its rated games, the Bradley–Terry fit and the rating history, the
boards, and the final evaluation's ranking and verdicts (all read from the store)."""

from __future__ import annotations

import asyncio
import itertools
import time
from dataclasses import dataclass

import structlog
from rookery.arena.stats._ratings import BradleyTerryFit, GameScore, fit_bradley_terry

from .matchmaking import Placed, Separation, centred_los, separations
from .store import LeagueStore, RatingPoint, SeasonRecord, VersionRecord, VersionState

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

log = structlog.get_logger("rookery.league")


def seat_name(version_id: str) -> str:
    """The name a version's bot plays under at the tables: ``alpha@3`` → ``alpha.v3``."""
    bot, _, number = version_id.rpartition("@")
    return f"{bot}.v{number}"


def neighbour_los(fit: BradleyTerryFit, ranked: list[str]) -> dict[tuple[str, str], float]:
    """Each neighbour pair of ``ranked`` (best first) and its likelihood of superiority, from
    the fit's refits centred on its own ratings (:func:`~.matchmaking.centred_los`): at least ½
    for the upper one of every pair ranked by rating."""
    index = {name: i for i, name in enumerate(fit.names)}
    elo = {r.name: r.elo for r in fit.ratings}
    result = {}
    for upper, lower in itertools.pairwise(ranked):
        i, j = index[upper], index[lower]
        differences = [sample[i] - sample[j] for sample in fit.samples]
        result[(upper, lower)] = centred_los(elo[upper] - elo[lower], differences)
    return result


@dataclass(frozen=True)
class BoardLine:
    """One line of a board."""

    rank: int
    version: VersionRecord
    elo: float
    lower: float
    upper: float
    games: int
    tied_with_next: bool

    @property
    def error(self) -> float:
        """Half the interval's width."""
        return (self.upper - self.lower) / 2


@dataclass(frozen=True)
class Board:
    """A board, best first; the final evaluation's verdicts once the season is closed."""

    lines: tuple[BoardLine, ...]
    verdicts: tuple[str, ...] = ()
    final: bool = False


class Standings:
    """The ratings, boards and final evaluation of the league stored in ``store``."""

    def __init__(self, store: LeagueStore, bootstrap: int) -> None:
        self.store = store
        self.bootstrap = bootstrap
        self._fit_lock = asyncio.Lock()

    # Ratings ------------------------------------------------------------------------------------

    def rated_games(self, season_id: int, kinds: tuple[str, ...] = ()) -> list[GameScore]:
        """The season's rated games as the ratings see them, by version id (a pair a group)."""
        disqualified = {
            v.version_id for v in self.store.versions() if v.status == VersionState.DISQUALIFIED
        }
        by_seat = {seat_name(v.version_id): v.version_id for v in self.store.versions()}
        games = []
        for pair in self.store.pairs(season_id, kinds=kinds):
            if not pair.rated or pair.void or {pair.a, pair.b} & disqualified:
                continue
            for game in pair.games:
                sides = tuple(tuple(by_seat.get(s, s) for s in side) for side in game.sides)
                games.append(GameScore(sides, game.ranks, pair.pair_id))
        return games

    def fit(self, season_id: int, names: list[str] | None = None) -> BradleyTerryFit:
        """The Bradley–Terry fit of the season's rated games (at its confidence)."""
        season = self.store.season(season_id)
        games = self.rated_games(season_id)
        if names is not None:
            wanted = set(names)
            games = [g for g in games if {b for side in g.sides for b in side} <= wanted]
        return fit_bradley_terry(
            games,
            names,
            bootstrap=self.bootstrap,
            seed=len(games),
            confidence=season.confidence,
        )

    async def refit(self) -> None:
        """Refits the ratings and stores them in the history."""
        async with self._fit_lock:
            season = self.store.season()
            fit = await asyncio.to_thread(self.fit, season.season_id)
            count = self.store.count_pairs(season.season_id)
            now = time.time()
            points = [
                RatingPoint(count, now, r.name, r.elo, r.lower, r.upper, r.games)
                for r in fit.ratings
            ]
            await asyncio.to_thread(self.store.record_ratings, season.season_id, count, points)

    # Boards -------------------------------------------------------------------------------------

    def board(self, all_versions: bool = False) -> Board:
        """The main board (the latest active version of each bot) or every active version;
        once the season is closed, the final standings with their verdicts."""
        season = self.store.season()
        ratings = self.store.latest_ratings(season.season_id)
        versions = {v.version_id: v for v in self.store.versions()}
        if season.status == "closed" and season.final:
            ranked = [versions[v] for v in season.final["ranking"] if v in versions]
            tied = {tuple(pair) for pair in season.final.get("tied", [])}
            verdicts = tuple(season.final.get("verdicts", ()))
            final_ratings = season.final.get("ratings")
            if final_ratings is not None:  # (a season closed before they were stored has none)
                ratings = {
                    v: RatingPoint(0, 0.0, v, elo, lower, upper, games)
                    for v, (elo, lower, upper, games) in final_ratings.items()
                }
        else:
            field = [v for v in versions.values() if v.status == VersionState.ACTIVE]
            ranked = sorted(
                field,
                key=lambda v: -ratings[v.version_id].elo if v.version_id in ratings else 1e9,
            )
            tied = set()
            verdicts = ()
        if not all_versions:
            latest: dict[str, VersionRecord] = {}
            for v in ranked:
                if v.bot not in latest or v.number > latest[v.bot].number:
                    latest[v.bot] = v
            ranked = [v for v in ranked if latest[v.bot] is v]
        lines = []
        for i, v in enumerate(ranked):
            r = ratings.get(v.version_id)
            nxt = ranked[i + 1] if i + 1 < len(ranked) else None
            if season.status == "closed" and season.final:
                tied_next = nxt is not None and (v.version_id, nxt.version_id) in tied
            else:
                rn = ratings.get(nxt.version_id) if nxt is not None else None
                tied_next = r is not None and rn is not None and rn.upper >= r.lower
            lines.append(
                BoardLine(
                    i + 1,
                    v,
                    r.elo if r else 0.0,
                    r.lower if r else 0.0,
                    r.upper if r else 0.0,
                    r.games if r else 0,
                    tied_next,
                )
            )
        return Board(tuple(lines), verdicts, season.status == "closed")

    def playing_field(self) -> list[VersionRecord]:
        """The versions that play and are ranked: active, not the house bot."""
        return [v for v in self.store.versions() if v.status == VersionState.ACTIVE]

    def placed(self, season_id: int) -> list[Placed]:
        ratings = self.store.latest_ratings(season_id)
        counts: dict[str, int] = {}
        for pair in self.store.pairs(season_id, kinds=("rated", "final")):
            for side in (pair.a, pair.b):
                counts[side] = counts.get(side, 0) + 1
        placed = []
        for v in self.playing_field():
            r = ratings.get(v.version_id)
            if r is None:
                placed.append(Placed(v.version_id, 0.0, -1e4, 1e4, 0, v.submitted_at))
            else:
                pairs = counts.get(v.version_id, 0)
                placed.append(Placed(v.version_id, r.elo, r.lower, r.upper, pairs, v.submitted_at))
        return placed

    def final_state(self, season_id: int) -> tuple[list[str], list[Separation], BradleyTerryFit]:
        """The final evaluation's ranking (best first), its neighbour separations and the fit."""
        season = self.store.season(season_id)
        names = [v.version_id for v in self.playing_field()]
        fit = self.fit(season_id, names)
        ranked = [r.name for r in fit.ratings]
        return ranked, separations(ranked, neighbour_los(fit, ranked), season.confidence), fit

    def close_season(
        self,
        season: SeasonRecord,
        ranked: list[str],
        steps: list[Separation],
        fit: BradleyTerryFit,
    ) -> None:
        verdicts = []
        for s in steps:
            if s.separated:
                verdicts.append(f"{s.upper} > {s.lower} (LOS {s.los:.3f})")
            else:
                verdicts.append(
                    f"{s.upper} ~ {s.lower}: statistically tied (LOS {s.los:.3f} < "
                    f"{season.confidence:g} when the budget was spent)"
                )
        final: dict[str, object] = {
            "ranking": ranked,
            # The ranking's own fit: the standings show the ratings they are ordered by.
            "ratings": {r.name: [r.elo, r.lower, r.upper, r.games] for r in fit.ratings},
            "verdicts": verdicts,
            "tied": [[s.upper, s.lower] for s in steps if not s.separated],
            "final_pairs": self.store.count_pairs(season.season_id, ("final",)),
            "pairs": self.store.count_pairs(season.season_id),
            "closed_at": time.time(),
        }
        self.store.set_season_status(season.season_id, "closed", final)
        tied = sum(1 for s in steps if not s.separated)
        log.info("final evaluation done", season=season.name, tied=tied)
