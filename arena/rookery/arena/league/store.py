"""The league's SQLite file: seasons, the roster's versions, builds, pairs, games, rating history.

Everything the league knows is in this one file (WAL journal); the versions' folders and the
replay files sit next to it (``versions/<id>/``, ``replays/<game>.jsonl.gz``). A duplicate pair is
committed in one transaction, after both its replay files are on disk: a pair cut short by a
restart is simply not there and is played again, nothing is counted twice.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seasons (
    season_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    deadline REAL NOT NULL,
    status TEXT NOT NULL,
    confidence REAL NOT NULL,
    final_pair_budget INTEGER NOT NULL,
    created_at REAL NOT NULL,
    final_json TEXT NOT NULL DEFAULT ''
);
CREATE TABLE IF NOT EXISTS versions (
    version_id TEXT PRIMARY KEY,
    bot TEXT NOT NULL,
    number INTEGER NOT NULL,
    season_id INTEGER NOT NULL,
    content_sha256 TEXT NOT NULL,
    identity_sha256 TEXT NOT NULL UNIQUE,
    command TEXT NOT NULL,
    build TEXT NOT NULL,
    note TEXT NOT NULL,
    status TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    submitted_at REAL NOT NULL,
    house INTEGER NOT NULL DEFAULT 0,
    UNIQUE (bot, number)
);
CREATE TABLE IF NOT EXISTS builds (
    version_id TEXT PRIMARY KEY,
    exit_code INTEGER NOT NULL,
    seconds REAL NOT NULL,
    log TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS challenges (
    challenge_id INTEGER PRIMARY KEY,
    season_id INTEGER NOT NULL,
    version_id TEXT NOT NULL,
    opponent_id TEXT NOT NULL,
    pairs INTEGER NOT NULL,
    rated INTEGER NOT NULL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS pairs (
    pair_id INTEGER PRIMARY KEY,
    season_id INTEGER NOT NULL,
    kind TEXT NOT NULL,
    a TEXT NOT NULL,
    b TEXT NOT NULL,
    seed INTEGER NOT NULL,
    rated INTEGER NOT NULL,
    challenge_id INTEGER,
    score_a REAL NOT NULL,
    void INTEGER NOT NULL,
    finished_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    game_id TEXT PRIMARY KEY,
    pair_id INTEGER NOT NULL REFERENCES pairs(pair_id),
    seats TEXT NOT NULL,
    sides TEXT NOT NULL,
    ranks TEXT NOT NULL,
    scores TEXT NOT NULL,
    termination TEXT NOT NULL,
    detail TEXT NOT NULL,
    hands INTEGER NOT NULL,
    duration_s REAL NOT NULL,
    replay_path TEXT NOT NULL,
    replay_sha256 TEXT NOT NULL,
    forfeit TEXT NOT NULL,
    finished_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS games_by_pair ON games (pair_id);
CREATE TABLE IF NOT EXISTS ratings (
    season_id INTEGER NOT NULL,
    pairs INTEGER NOT NULL,
    at REAL NOT NULL,
    version_id TEXT NOT NULL,
    elo REAL NOT NULL,
    lower REAL NOT NULL,
    upper REAL NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY (season_id, pairs, version_id)
);
CREATE TABLE IF NOT EXISTS incidents (
    incident_id INTEGER PRIMARY KEY,
    version_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    at REAL NOT NULL
);
"""


class VersionState:
    """The states of a version (the text stored; ``league.proto`` ``VersionStatus``)."""

    BUILDING = "building"
    QUALIFYING = "qualifying"
    ACTIVE = "active"
    BUILD_FAILED = "build_failed"
    QUALIFICATION_FAILED = "qualification_failed"
    RETIRED = "retired"
    DISQUALIFIED = "disqualified"


@dataclass(frozen=True)
class SeasonRecord:
    """One season."""

    season_id: int
    name: str
    deadline: float
    status: str
    confidence: float
    final_pair_budget: int
    created_at: float
    final: dict[str, Any]


@dataclass(frozen=True)
class VersionRecord:
    """One immutable version of a bot."""

    version_id: str
    bot: str
    number: int
    season_id: int
    content_sha256: str
    command: str
    build: str
    note: str
    status: str
    detail: str
    submitted_at: float
    house: bool


@dataclass(frozen=True)
class LeagueGame:
    """One game of a recorded pair."""

    game_id: str
    seats: tuple[str, ...]
    sides: tuple[tuple[str, ...], ...]
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    termination: str
    detail: str
    hands: int
    duration_s: float
    replay_path: str
    replay_sha256: str
    #: The seat name of the bot that forfeited, or "".
    forfeit: str = ""


@dataclass(frozen=True)
class PairRecord:
    """One finished duplicate pair between versions ``a`` and ``b``."""

    pair_id: int
    season_id: int
    kind: str
    a: str
    b: str
    seed: int
    rated: bool
    challenge_id: int | None
    #: ``a``'s pair score, 0 to 2 (each game 1 for a win, ½ for a draw).
    score_a: float
    #: A pair with a game aborted or voided: not rated.
    void: bool
    finished_at: float
    games: tuple[LeagueGame, ...] = ()


@dataclass(frozen=True)
class RatingPoint:
    """A version's rating after the season's ``pairs``-th pair."""

    pairs: int
    at: float
    version_id: str
    elo: float
    lower: float
    upper: float
    games: int


def _version(row: Sequence[Any]) -> VersionRecord:
    return VersionRecord(
        row[0],
        row[1],
        row[2],
        row[3],
        row[4],
        row[5],
        row[6],
        row[7],
        row[8],
        row[9],
        row[10],
        bool(row[11]),
    )


_VERSION_COLUMNS = (
    "version_id, bot, number, season_id, content_sha256, command, build, note, status, detail, "
    "submitted_at, house"
)


def _game_record(row: Sequence[Any]) -> LeagueGame:
    """A game from its row of ``_GAME_COLUMNS`` (the JSON lists decoded)."""
    return LeagueGame(
        row[0],
        tuple(json.loads(row[1])),
        tuple(tuple(side) for side in json.loads(row[2])),
        tuple(json.loads(row[3])),
        tuple(json.loads(row[4])),
        *row[5:12],
    )


_GAME_COLUMNS = (
    "game_id, seats, sides, ranks, scores, termination, detail, hands, duration_s, replay_path, "
    "replay_sha256, forfeit"
)


class StoreFile:
    """One SQLite file of the league's schema: its connection (serialised by a lock: worker
    threads use it), its transactions and its stored settings (``meta``)."""

    def __init__(self, path: str | Path) -> None:
        # Absolute: the sandbox mounts a version's folder at the same path it runs it from, and a
        # relative one would be taken from the sandbox's root, not the organiser's folder.
        self.path = Path(path).absolute()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        self._lock = threading.RLock()
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.executescript(_SCHEMA)

    @property
    def folder(self) -> Path:
        """The folder of the file: ``versions/`` and ``replays/`` live there."""
        return self.path.parent

    def close(self) -> None:
        """Closes the file."""
        with self._lock:
            self._db.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield self._db
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _all(self, sql: str, args: Sequence[object] = ()) -> list[Any]:
        with self._lock:
            return self._db.execute(sql, tuple(args)).fetchall()

    # Meta ---------------------------------------------------------------------------------------

    def meta(self, key: str, default: str = "") -> str:
        """A stored setting (the ruleset, the seed key)."""
        rows = self._all("SELECT value FROM meta WHERE key = ?", (key,))
        return str(rows[0][0]) if rows else default

    def set_meta(self, key: str, value: str) -> None:
        """Stores a setting."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                (key, value),
            )


class LeagueStore(StoreFile):
    """The league's SQLite file (one connection, serialised by a lock: worker threads use it)."""

    # Seasons ------------------------------------------------------------------------------------

    def add_season(
        self, name: str, deadline: float, confidence: float, final_pair_budget: int
    ) -> SeasonRecord:
        """A new open season (the current one from now on)."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO seasons (name, deadline, status, confidence, final_pair_budget, "
                "created_at) VALUES (?, ?, 'open', ?, ?, ?)",
                (name, deadline, confidence, final_pair_budget, time.time()),
            )
            season_id = int(cursor.lastrowid or 0)
        return self.season(season_id)

    def season(self, season_id: int | None = None) -> SeasonRecord:
        """One season (the latest without an id); ``LookupError`` if there is none."""
        sql = (
            "SELECT season_id, name, deadline, status, confidence, final_pair_budget, created_at, "
            "final_json FROM seasons "
        )
        rows = (
            self._all(sql + "WHERE season_id = ?", (season_id,))
            if season_id is not None
            else self._all(sql + "ORDER BY season_id DESC LIMIT 1")
        )
        if not rows:
            raise LookupError("this league has no season yet: create one (rookery league season)")
        r = rows[0]
        final = json.loads(r[7]) if r[7] else {}
        return SeasonRecord(r[0], r[1], r[2], r[3], r[4], r[5], r[6], final)

    def set_season_status(
        self, season_id: int, status: str, final: Mapping[str, object] | None = None
    ) -> None:
        """Moves a season to ``status`` (and stores its final standings)."""
        with self._transaction() as db:
            db.execute("UPDATE seasons SET status = ? WHERE season_id = ?", (status, season_id))
            if final is not None:
                db.execute(
                    "UPDATE seasons SET final_json = ? WHERE season_id = ?",
                    (json.dumps(final), season_id),
                )

    # Versions -----------------------------------------------------------------------------------

    def add_version(
        self,
        bot: str,
        season_id: int,
        content_sha256: str,
        identity_sha256: str,
        command: str,
        build: str,
        note: str,
        status: str,
        *,
        house: bool = False,
    ) -> VersionRecord:
        """A new version ``<bot>@<n+1>``; ``FileExistsError`` naming the version it repeats."""
        with self._transaction() as db:
            same = db.execute(
                "SELECT version_id FROM versions WHERE identity_sha256 = ?", (identity_sha256,)
            ).fetchone()
            if same is not None:
                raise FileExistsError(
                    f"this submission is identical to version {same[0]} (same files, command and "
                    "build): versions are immutable, change something to submit a new one"
                )
            row = db.execute("SELECT MAX(number) FROM versions WHERE bot = ?", (bot,)).fetchone()
            number = int(row[0] or 0) + 1
            version_id = f"{bot}@{number}"
            db.execute(
                f"INSERT INTO versions ({_VERSION_COLUMNS}, identity_sha256) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, ?)",
                (
                    version_id,
                    bot,
                    number,
                    season_id,
                    content_sha256,
                    command,
                    build,
                    note,
                    status,
                    time.time(),
                    int(house),
                    identity_sha256,
                ),
            )
        return self.version(version_id)

    def submission_times(self, bot: str, since: float) -> list[float]:
        """When ``bot``'s versions submitted after ``since`` were submitted, oldest first."""
        rows = self._all(
            "SELECT submitted_at FROM versions WHERE bot = ? AND house = 0 AND submitted_at > ? "
            "ORDER BY submitted_at",
            (bot, since),
        )
        return [float(r[0]) for r in rows]

    def version(self, version_id: str) -> VersionRecord:
        """One version; ``LookupError`` if unknown."""
        rows = self._all(
            f"SELECT {_VERSION_COLUMNS} FROM versions WHERE version_id = ?", (version_id,)
        )
        if not rows:
            raise LookupError(f"no version {version_id!r} in this league")
        return _version(rows[0])

    def versions(self, bot: str = "", *, house: bool = False) -> list[VersionRecord]:
        """Every version (of ``bot``), by bot and number; the house bots only with ``house``."""
        sql = f"SELECT {_VERSION_COLUMNS} FROM versions WHERE (? = '' OR bot = ?)"
        if not house:
            sql += " AND house = 0"
        return [_version(r) for r in self._all(sql + " ORDER BY bot, number", (bot, bot))]

    def set_version_status(self, version_id: str, status: str, detail: str = "") -> None:
        """Moves a version to ``status``, with why."""
        with self._transaction() as db:
            db.execute(
                "UPDATE versions SET status = ?, detail = ? WHERE version_id = ?",
                (status, detail, version_id),
            )

    def record_build(self, version_id: str, exit_code: int, seconds: float, log: str) -> None:
        """A version's build: its exit code, time and log."""
        with self._transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO builds (version_id, exit_code, seconds, log) "
                "VALUES (?, ?, ?, ?)",
                (version_id, exit_code, seconds, log),
            )

    def build_log(self, version_id: str) -> str:
        """A version's build log ('' without a build)."""
        rows = self._all("SELECT log FROM builds WHERE version_id = ?", (version_id,))
        return str(rows[0][0]) if rows else ""

    # Challenges ---------------------------------------------------------------------------------

    def add_challenge(
        self, season_id: int, version_id: str, opponent_id: str, pairs: int, rated: bool
    ) -> int:
        """A queued challenge: its id."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO challenges (season_id, version_id, opponent_id, pairs, rated, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (season_id, version_id, opponent_id, pairs, int(rated), time.time()),
            )
            return int(cursor.lastrowid or 0)

    def open_challenges(self, season_id: int) -> list[tuple[int, str, str, int, bool]]:
        """Challenges with pairs still to play: (id, version, opponent, pairs left, rated)."""
        rows = self._all(
            "SELECT c.challenge_id, c.version_id, c.opponent_id, "
            "c.pairs - (SELECT COUNT(*) FROM pairs p WHERE p.challenge_id = c.challenge_id), "
            "c.rated FROM challenges c WHERE c.season_id = ? ORDER BY c.challenge_id",
            (season_id,),
        )
        return [(r[0], r[1], r[2], r[3], bool(r[4])) for r in rows if r[3] > 0]

    # Pairs and games ----------------------------------------------------------------------------

    def record_pair(self, pair: PairRecord) -> int:
        """Commits one finished pair and its games in one transaction: the pair's id."""
        with self._transaction() as db:
            cursor = db.execute(
                "INSERT INTO pairs (season_id, kind, a, b, seed, rated, challenge_id, score_a, "
                "void, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    pair.season_id,
                    pair.kind,
                    pair.a,
                    pair.b,
                    pair.seed,
                    int(pair.rated),
                    pair.challenge_id,
                    pair.score_a,
                    int(pair.void),
                    pair.finished_at,
                ),
            )
            pair_id = int(cursor.lastrowid or 0)
            for game in pair.games:
                db.execute(
                    "INSERT INTO games (game_id, pair_id, seats, sides, ranks, scores, "
                    "termination, detail, hands, duration_s, replay_path, replay_sha256, "
                    "forfeit, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        game.game_id,
                        pair_id,
                        json.dumps(game.seats),
                        json.dumps(game.sides),
                        json.dumps(game.ranks),
                        json.dumps(game.scores),
                        game.termination,
                        game.detail,
                        game.hands,
                        game.duration_s,
                        game.replay_path,
                        game.replay_sha256,
                        game.forfeit,
                        pair.finished_at,
                    ),
                )
        return pair_id

    def pairs(
        self, season_id: int, *, kinds: Sequence[str] = (), version: str = "", limit: int = 0
    ) -> list[PairRecord]:
        """The season's pairs, oldest first (the newest ``limit`` of them), with their games."""
        sql = (
            "SELECT pair_id, season_id, kind, a, b, seed, rated, challenge_id, score_a, void, "
            "finished_at FROM pairs WHERE season_id = ?"
        )
        args: list[object] = [season_id]
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            args += list(kinds)
        if version:
            sql += " AND (a = ? OR b = ?)"
            args += [version, version]
        sql += " ORDER BY pair_id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        rows = self._all(sql, args)[::-1]
        games: dict[int, list[LeagueGame]] = {}
        if rows:
            ids = [r[0] for r in rows]
            for g in self._all(
                f"SELECT pair_id, {_GAME_COLUMNS} FROM games "
                "WHERE pair_id BETWEEN ? AND ? ORDER BY game_id",
                (min(ids), max(ids)),
            ):
                games.setdefault(g[0], []).append(_game_record(g[1:]))
        return [
            PairRecord(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                r[5],
                bool(r[6]),
                r[7],
                r[8],
                bool(r[9]),
                r[10],
                tuple(games.get(r[0], ())),
            )
            for r in rows
        ]

    def count_pairs(self, season_id: int, kinds: Sequence[str] = ()) -> int:
        """How many pairs the season has played (of these kinds)."""
        sql = "SELECT COUNT(*) FROM pairs WHERE season_id = ?"
        args: list[object] = [season_id]
        if kinds:
            sql += f" AND kind IN ({','.join('?' * len(kinds))})"
            args += list(kinds)
        return int(self._all(sql, args)[0][0])

    def game(self, game_id: str) -> LeagueGame | None:
        """One recorded game, or None."""
        rows = self._all(
            f"SELECT {_GAME_COLUMNS} FROM games WHERE game_id = ?",
            (game_id,),
        )
        if not rows:
            return None
        return _game_record(rows[0])

    # Ratings ------------------------------------------------------------------------------------

    def record_ratings(self, season_id: int, pairs: int, points: Sequence[RatingPoint]) -> None:
        """The ratings after the season's ``pairs``-th pair (the history)."""
        with self._transaction() as db:
            db.executemany(
                "INSERT OR REPLACE INTO ratings (season_id, pairs, at, version_id, elo, lower, "
                "upper, games) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (season_id, pairs, p.at, p.version_id, p.elo, p.lower, p.upper, p.games)
                    for p in points
                ],
            )

    def rating_history(self, season_id: int, version: str = "") -> list[RatingPoint]:
        """Every stored rating (of ``version``), oldest first."""
        rows = self._all(
            "SELECT pairs, at, version_id, elo, lower, upper, games FROM ratings "
            "WHERE season_id = ? AND (? = '' OR version_id = ?) ORDER BY pairs, version_id",
            (season_id, version, version),
        )
        return [RatingPoint(*r) for r in rows]

    def latest_ratings(self, season_id: int) -> dict[str, RatingPoint]:
        """Each version's latest stored rating."""
        rows = self._all(
            "SELECT r.pairs, r.at, r.version_id, r.elo, r.lower, r.upper, r.games FROM ratings r "
            "JOIN (SELECT version_id, MAX(pairs) AS m FROM ratings WHERE season_id = ? "
            "GROUP BY version_id) l ON l.version_id = r.version_id AND l.m = r.pairs "
            "WHERE r.season_id = ?",
            (season_id, season_id),
        )
        return {r[2]: RatingPoint(*r) for r in rows}

    # Incidents ----------------------------------------------------------------------------------

    def record_incident(self, version_id: str, kind: str, detail: str) -> None:
        """Something a version's processes did (a crash, the sandbox's events)."""
        with self._transaction() as db:
            db.execute(
                "INSERT INTO incidents (version_id, kind, detail, at) VALUES (?, ?, ?, ?)",
                (version_id, kind, detail, time.time()),
            )

    def incidents(self, version: str = "", limit: int = 100) -> list[tuple[str, str, str, float]]:
        """The newest incidents (of ``version``): (version, kind, detail, time)."""
        rows = self._all(
            "SELECT version_id, kind, detail, at FROM incidents WHERE (? = '' OR version_id = ?) "
            "ORDER BY incident_id DESC LIMIT ?",
            (version, version, limit),
        )
        return [(r[0], r[1], r[2], r[3]) for r in rows]
