"""Where the dashboard's tournaments come from: arena run directories (their SQLite file and
replays), read with the arena's own summary so the pages and ``rookery arena report`` agree."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Mapping, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rookery.arena.config import config_from_dict
from rookery.arena.errors import StorageError
from rookery.arena.records import (
    DATABASE_NAME,
    GameRow,
    RunData,
    RunStore,
    rating_history,
    report_dict,
    summary_for,
)
from rookery.arena.run import Schedule
from rookery.arena.stats import SprtDecision

from ._errors import ReplayWithheldError, UnknownTournamentError

__all__ = [
    "RunDirectories",
    "load_run_readonly",
    "tournament_json",
    "twin_of",
    "withheld_seeds",
]

JSON = dict[str, Any]


def withheld_seeds(data: RunData) -> set[int]:
    """The seeds of the games still to be played: a finished game on one of them stays private.

    Games share seeds (a duplicate pair, and every pairing of a round), so the replay of a
    finished game shows the deals of its twins; it is public only once no game on its seed is
    left to play, or the tournament has finished.
    """
    if data.tournament.status == "finished":
        return set()
    schedule = Schedule.from_config(data.config)
    recorded = {game.index for game in data.games}
    return {game.seed for game in schedule.games() if game.index not in recorded}


def twin_of(row: GameRow, rows: Sequence[GameRow], withheld: Set[int]) -> str | None:
    """The game id of ``row``'s duplicate twin among ``rows`` (same pair, same seed, another
    game) when its replay is public, else None."""
    for other in rows:
        if (
            other.game_id != row.game_id
            and other.group == row.group
            and other.seed == row.seed
            and other.replay_path
            and other.seed not in withheld
        ):
            return other.game_id
    return None


def _public_config(config: Mapping[str, object], finished: bool) -> dict[str, object]:
    """The configuration without the bots' command lines and environments, and without the
    tournament seed (every game's deals derive from it) until the tournament has finished."""
    out = {key: value for key, value in config.items() if key not in ("bots", "seed")}
    bots = config.get("bots", ())
    out["bots"] = [
        {"name": bot.get("name", ""), "remote": bot.get("remote", False)}
        for bot in (bots if isinstance(bots, list | tuple) else ())
        if isinstance(bot, Mapping)
    ]
    if finished:
        out["seed"] = config.get("seed")
    return out


def tournament_json(data: RunData, key: str | None = None) -> JSON:
    """A tournament for the pages: the arena's report data (its configuration made public),
    progress, rating history (the leaderboard's Elo over time: ``rating_history``) and games;
    a game's seed and replay only once they are public."""
    out = report_dict(data)
    record = data.tournament
    names = [standing.name for standing in data.summary.standings]
    history = rating_history(data.games, data.config.ruleset, names)
    withheld = withheld_seeds(data)
    out["kind"] = "tournament"
    out["key"] = key or record.tournament_id
    out["config"] = _public_config(dict(record.config), record.status == "finished")
    out["progress"] = {
        "done": len(data.games),
        "total": record.games_total,
        "status": record.status,
    }
    out["history"] = [{"game": index, "elo": ratings} for index, ratings in history]
    out["game_list"] = [
        {
            "game_id": g.game_id,
            "index": g.index,
            "pair": g.group,
            "round": g.round,
            "seed": str(g.seed) if g.seed not in withheld else None,
            "seats": list(g.seat_bots),
            "winners": list(g.winners),
            "scores": list(g.scores),
            "termination": g.termination,
            "detail": g.detail,
            "hands": g.hands_played,
            "duration_s": g.duration_s,
            "has_replay": bool(g.replay_path) and g.seed not in withheld,
            "twin": twin_of(g, data.games, withheld),
        }
        for g in data.games
    ]
    out["move_incidents"] = move_incidents_json(data, withheld)
    return out


#: The most move incidents a tournament's page lists (each bot's counts are in its standing).
MOVE_INCIDENTS_SHOWN = 500


def move_incidents_json(data: RunData, withheld: set[int]) -> list[JSON]:
    """The incidents of the games' moves, for the games whose replays are public (a fallback's
    reason or a rejection's message may name a card of a deal still to be played)."""
    public = {g.game_id for g in data.games if g.replay_path and g.seed not in withheld}
    try:
        with _ReadOnlyStore(data.run_dir) as store:
            incidents = store.move_incidents(data.tournament.tournament_id)
    except (StorageError, sqlite3.OperationalError):  # a run from before move incidents
        return []
    shown = [i.to_dict() for i in incidents if i.game_id in public]
    return shown[:MOVE_INCIDENTS_SHOWN]


class _ReadOnlyStore(RunStore):
    """A run's database opened read-only: it creates nothing and removes nothing, so reading a
    run that is being played never races the runner (``RunStore`` tidies the replay folder)."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.path = self.run_dir / DATABASE_NAME
        try:
            self._db = sqlite3.connect(
                f"file:{self.path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
            )
            self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError as error:
            raise StorageError(f"{self.path}: not a readable arena database: {error}") from None


def load_run_readonly(run_dir: str | Path, tournament_id: str | None = None) -> RunData:
    """``rookery.arena.records._report.load_run`` without writing to the run directory."""
    run_dir = Path(run_dir)
    with _ReadOnlyStore(run_dir) as store:
        records = store.tournaments()
        if not records:
            raise StorageError(f"{run_dir}: the database holds no tournament")
        record = records[-1] if tournament_id is None else store.tournament(tournament_id)
        config = config_from_dict(record.config, str(store.path))
        summary = summary_for(config, store, record.tournament_id)
        if summary.sprt is not None and record.sprt_decision:
            summary.sprt.decision = SprtDecision(record.sprt_decision)
        games = tuple(store.games(record.tournament_id))
    return RunData(run_dir, record, config, games, summary)


@dataclass(frozen=True)
class _Entry:
    run_dir: Path
    tournament_id: str


def _stamp(run_dir: Path) -> tuple[int, ...]:
    """Changes whenever the run's database does (the WAL file included)."""
    stamp: list[int] = []
    for name in (DATABASE_NAME, DATABASE_NAME + "-wal"):
        try:
            info = (run_dir / name).stat()
        except FileNotFoundError:
            stamp += [0, 0]
        else:
            stamp += [info.st_mtime_ns, info.st_size]
    return tuple(stamp)


class RunDirectories:
    """Arena run directories: each path is a run directory (it holds ``arena.sqlite``) or a
    folder of run directories. Looked up afresh on every call, so new runs appear; a
    tournament's summary is cached until its database changes.

    Blocking (SQLite, the rating fit): call it from a thread (``asyncio.to_thread``).
    """

    def __init__(self, paths: Sequence[str | Path] = ()) -> None:
        self.paths = tuple(Path(p) for p in paths)
        self._lock = threading.Lock()
        self._cache: dict[tuple[Path, str], tuple[tuple[int, ...], JSON, frozenset[int]]] = {}

    def run_dirs(self) -> list[Path]:
        """Every run directory under the configured paths, in name order."""
        found: list[Path] = []
        for path in self.paths:
            if (path / DATABASE_NAME).is_file():
                found.append(path)
            elif path.is_dir():
                # A link (`rookery arena run`'s runs/latest) names a run listed already.
                found += sorted(
                    p
                    for p in path.iterdir()
                    if (p / DATABASE_NAME).is_file() and not p.is_symlink()
                )
        return found

    def _entries(self) -> dict[str, _Entry]:
        entries: list[_Entry] = []
        for run_dir in self.run_dirs():
            with _ReadOnlyStore(run_dir) as store:
                entries += [_Entry(run_dir, t.tournament_id) for t in store.tournaments()]
        ids = [e.tournament_id for e in entries]
        keyed: dict[str, _Entry] = {}
        for entry in entries:
            key = entry.tournament_id
            if ids.count(key) > 1:
                key = f"{entry.run_dir.name}.{entry.tournament_id}"
            keyed[key] = entry
        return keyed

    def tournaments(self) -> list[JSON]:
        """One line per tournament: key, name, status and progress."""
        lines: list[JSON] = []
        for key, entry in self._entries().items():
            with _ReadOnlyStore(entry.run_dir) as store:
                record = store.tournament(entry.tournament_id)
                done = store.count_games(entry.tournament_id)
                bots = [b.name for b in store.bots(entry.tournament_id)]
            lines.append(
                {
                    "key": key,
                    "tournament_id": record.tournament_id,
                    "name": record.name,
                    "status": record.status,
                    "format": record.config.get("format", ""),
                    "bots": bots,
                    "done": done,
                    "total": record.games_total,
                    "created_at": record.created_at,
                    "run_dir": entry.run_dir.name,
                }
            )
        return lines

    def tournament(self, key: str) -> JSON:
        """The whole tournament view (``UnknownTournamentError`` for an unknown key)."""
        return self._load(key)[0]

    def _load(self, key: str) -> tuple[JSON, frozenset[int]]:
        entry = self._entries().get(key)
        if entry is None:
            raise UnknownTournamentError(f"no tournament {key!r}")
        stamp = _stamp(entry.run_dir)
        cache_key = (entry.run_dir, entry.tournament_id)
        with self._lock:
            cached = self._cache.get(cache_key)
        if cached is not None and cached[0] == stamp:
            return cached[1], cached[2]
        data = load_run_readonly(entry.run_dir, entry.tournament_id)
        view = tournament_json(data, key)
        withheld = frozenset(withheld_seeds(data))
        with self._lock:
            self._cache[cache_key] = (stamp, view, withheld)
        return view, withheld

    def replay_path(self, game_id: str) -> Path | None:
        """The replay file of a recorded (so finished) game, by game id; None if unknown.

        ``ReplayWithheldError`` while a game on the same seed is still to be played.
        """
        for key, entry in self._entries().items():
            with _ReadOnlyStore(entry.run_dir) as store:
                row = next(
                    (g for g in store.iter_games(entry.tournament_id) if g.game_id == game_id),
                    None,
                )
            if row is None or not row.replay_path:
                continue
            if row.seed in self._withheld(key):
                raise ReplayWithheldError(
                    f"game {game_id!r} is over, but a game on the same deals is still to be "
                    f"played in tournament {entry.tournament_id!r}: its replay is withheld "
                    "until then"
                )
            return entry.run_dir / row.replay_path
        return None

    def twin(self, game_id: str) -> str | None:
        """The game id of ``game_id``'s duplicate twin (the same deals, the sides swapped),
        if it has a public replay; None otherwise."""
        for key, entry in self._entries().items():
            with _ReadOnlyStore(entry.run_dir) as store:
                rows = list(store.iter_games(entry.tournament_id))
            row = next((g for g in rows if g.game_id == game_id), None)
            if row is None:
                continue
            withheld = self._withheld(key)
            return twin_of(row, rows, withheld)
        return None

    def _withheld(self, key: str) -> frozenset[int]:
        return self._load(key)[1]

    def tournament_withholds(self, tournament_id: str, seed: int) -> bool | None:
        """Whether ``tournament_id`` still has a game to play on ``seed`` (None: unknown)."""
        for key, entry in self._entries().items():
            if entry.tournament_id == tournament_id:
                return seed in self._withheld(key)
        return None
