"""The run directory: one SQLite file (results, bots, progress) and the replay files.

Layout of a run directory::

    arena.sqlite            tournaments, bots, games, bot incidents (WAL journal)
    replays/<game>.jsonl.gz one replay per finished game
    logs/<bot>.log          stderr of each launched bot
    report.html, ...        written by ``rookery arena report``

Crash safety: a game's replay is written to a temporary file, flushed, fsynced and renamed into
place *before* the game's row is committed, in one transaction per game. After a SIGKILL the
games with a row are complete (replay included) and are skipped on resume; a replay file
without a row belongs to a game that is played again, and its file is replaced.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rookery.arena.errors import StorageError
from rookery.arena.records._move_incidents import MoveIncident
from rookery.wire.documents import JsonObject, JsonValue

__all__ = [
    "DATABASE_NAME",
    "BotGameStats",
    "GameRow",
    "RunStore",
    "StoredBot",
    "TournamentMismatchError",
    "TournamentRecord",
    "file_sha256",
    "write_atomically",
    "write_bytes_atomically",
    "write_files_atomically",
]

DATABASE_NAME = "arena.sqlite"
SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS tournaments (
    tournament_id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    config TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    status TEXT NOT NULL,
    games_total INTEGER NOT NULL,
    created_at REAL NOT NULL,
    finished_at REAL,
    next_index INTEGER NOT NULL DEFAULT 0,
    sprt_decision TEXT NOT NULL DEFAULT '',
    sprt_llr REAL NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS bots (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    name TEXT NOT NULL,
    version TEXT NOT NULL DEFAULT '',
    command TEXT NOT NULL DEFAULT '',
    remote INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tournament_id, name)
);
CREATE TABLE IF NOT EXISTS games (
    tournament_id TEXT NOT NULL REFERENCES tournaments(tournament_id),
    game_index INTEGER NOT NULL,
    game_id TEXT NOT NULL,
    pair_index INTEGER NOT NULL,
    round INTEGER NOT NULL,
    seed INTEGER NOT NULL,
    seats TEXT NOT NULL,
    side_bots TEXT NOT NULL,
    winners TEXT NOT NULL,
    scores TEXT NOT NULL,
    ranks TEXT NOT NULL,
    termination TEXT NOT NULL,
    forfeit_seat INTEGER NOT NULL,
    detail TEXT NOT NULL,
    hands_played INTEGER NOT NULL,
    duration_s REAL NOT NULL,
    replay_path TEXT NOT NULL,
    replay_sha256 TEXT NOT NULL,
    bot_stats TEXT NOT NULL,
    finished_at REAL NOT NULL,
    PRIMARY KEY (tournament_id, game_index)
);
CREATE TABLE IF NOT EXISTS incidents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id TEXT NOT NULL,
    bot TEXT NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL,
    at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS move_incidents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id TEXT NOT NULL,
    game_index INTEGER NOT NULL,
    game_id TEXT NOT NULL,
    bot TEXT NOT NULL,
    seat INTEGER NOT NULL,
    hand INTEGER NOT NULL,
    move INTEGER NOT NULL,
    kind TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS move_incidents_bot ON move_incidents(tournament_id, bot);
"""


@dataclass(frozen=True)
class BotGameStats:
    """What one bot did in one game, summed over the seats it held."""

    actions: int = 0
    think_ms_total: float = 0.0
    think_ms_max: float = 0.0
    timeouts: int = 0
    auto_plays: int = 0
    illegal_replies: int = 0
    malformed_replies: int = 0
    disconnects: int = 0
    fallbacks: int = 0
    #: A language-model seat's ledger in this game (``_ledger.BotLedger.to_dict``);
    #: empty for other bots.
    ledger: Mapping[str, float] = field(default_factory=dict)

    @property
    def think_ms_mean(self) -> float:
        """Mean thinking time per action, in milliseconds."""
        return self.think_ms_total / self.actions if self.actions else 0.0

    def to_dict(self) -> dict[str, JsonValue]:
        """A JSON-able dict."""
        return {
            "actions": self.actions,
            "think_ms_total": self.think_ms_total,
            "think_ms_max": self.think_ms_max,
            "timeouts": self.timeouts,
            "auto_plays": self.auto_plays,
            "illegal_replies": self.illegal_replies,
            "malformed_replies": self.malformed_replies,
            "disconnects": self.disconnects,
            "fallbacks": self.fallbacks,
            **({"ledger": dict(self.ledger)} if self.ledger else {}),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BotGameStats:
        """The inverse of :meth:`to_dict`."""
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})

    def __add__(self, other: BotGameStats) -> BotGameStats:
        return BotGameStats(
            actions=self.actions + other.actions,
            think_ms_total=self.think_ms_total + other.think_ms_total,
            think_ms_max=max(self.think_ms_max, other.think_ms_max),
            timeouts=self.timeouts + other.timeouts,
            auto_plays=self.auto_plays + other.auto_plays,
            illegal_replies=self.illegal_replies + other.illegal_replies,
            malformed_replies=self.malformed_replies + other.malformed_replies,
            disconnects=self.disconnects + other.disconnects,
            fallbacks=self.fallbacks + other.fallbacks,
            ledger={
                name: self.ledger.get(name, 0) + other.ledger.get(name, 0)
                for name in {**self.ledger, **other.ledger}
            },
        )


@dataclass(frozen=True)
class GameRow:
    """One finished game as stored."""

    tournament_id: str
    index: int
    game_id: str
    group: int
    round: int
    seed: int
    seat_bots: tuple[str, ...]
    side_bots: tuple[str, ...]
    winners: tuple[int, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    #: The termination reason's name, e.g. ``TARGET_REACHED`` or ``FORFEIT_TIMEOUT``.
    termination: str
    forfeit_seat: int
    detail: str
    hands_played: int
    duration_s: float
    #: Relative to the run directory.
    replay_path: str
    replay_sha256: str
    bot_stats: Mapping[str, BotGameStats] = field(default_factory=dict)
    finished_at: float = 0.0

    @property
    def is_draw(self) -> bool:
        """No winner (an exact tie at ``max_hands``, or an aborted game)."""
        return not self.winners


@dataclass(frozen=True)
class TournamentRecord:
    """A tournament's row."""

    tournament_id: str
    name: str
    config: JsonObject
    fingerprint: str
    status: str
    games_total: int
    created_at: float
    finished_at: float | None
    next_index: int
    sprt_decision: str
    sprt_llr: float


@dataclass(frozen=True)
class StoredBot:
    """A bot's row, with its incidents counted (process crashes and restarts)."""

    name: str
    version: str
    command: str
    remote: bool
    crashes: int


class TournamentMismatchError(StorageError):
    """The run directory holds the tournament with another configuration (kept as ``stored``)."""

    def __init__(self, message: str, stored: JsonObject) -> None:
        super().__init__(message)
        self.stored = stored


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, hex."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 16), b""):
            digest.update(chunk)
    return digest.hexdigest()


def write_bytes_atomically(path: Path, data: bytes) -> str:
    """``write_atomically(path, lambda t: t.write_bytes(data))``, its SHA-256 taken from ``data``
    (the bytes written) rather than read back."""
    return write_files_atomically([(path, data)])[0]


def write_files_atomically(files: Sequence[tuple[Path, bytes]]) -> list[str]:
    """Each ``(path, data)`` written to a temporary file, fsynced and renamed to ``path``, then
    each folder fsynced once (a batch of replays costs one folder fsync, not one per file); the
    SHA-256 of each ``data``.

    A reader never sees a partial file at a ``path``. If one fails, the error propagates: the
    files before it are in place, those after it are not written.
    """
    folders: dict[Path, None] = {}
    for path, data in files:
        _place_file(path, functools.partial(_write_bytes, data=data))
        folders[path.parent] = None
    for folder in folders:
        _fsync_folder(folder)
    return [hashlib.sha256(data).hexdigest() for _, data in files]


def write_atomically(path: Path, write: Callable[[Path], object]) -> str:
    """Have ``write`` fill a temporary file, fsync it, rename it to ``path``; its SHA-256.

    A reader never sees a partial file at ``path``: either the old one (or none) or the new one.
    """
    _place_file(path, write)
    _fsync_folder(path.parent)
    return file_sha256(path)


def _write_bytes(temporary: Path, *, data: bytes) -> None:
    temporary.write_bytes(data)


def _place_file(path: Path, write: Callable[[Path], object]) -> None:
    """Have ``write`` fill a temporary file beside ``path``, fsync it, rename it to ``path`` (the
    folder's fsync is the caller's)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(temporary)
        with temporary.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    finally:
        if temporary.exists():
            temporary.unlink()


def _fsync_folder(folder: Path) -> None:
    """Make the names in ``folder`` durable (a rename into it survives a power cut)."""
    directory = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _json(value: JsonValue) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class RunStore:
    """The SQLite file of a run directory (stdlib ``sqlite3``, WAL, a transaction per game)."""

    def __init__(self, run_dir: str | Path) -> None:
        self.run_dir = Path(run_dir)
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "replays").mkdir(exist_ok=True)
        (self.run_dir / "logs").mkdir(exist_ok=True)
        self.path = self.run_dir / DATABASE_NAME
        try:
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.executescript(_SCHEMA)
            # INSERT OR IGNORE: two processes may create the same run's database at once.
            self._db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES('schema', ?)",
                (str(SCHEMA_VERSION),),
            )
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if int(row[0]) != SCHEMA_VERSION:
                raise StorageError(
                    f"{self.path}: schema version {row[0]}, this arena reads {SCHEMA_VERSION}"
                )
        except sqlite3.DatabaseError as error:
            raise StorageError(f"{self.path}: not a usable arena database: {error}") from None
        self._remove_stale_temporaries()

    def close(self) -> None:
        """Close the database."""
        self._db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _remove_stale_temporaries(self) -> None:
        """Removes replay temporaries left by a writer that died; never a live writer's.

        A temporary is named ``.<file>.<pid>.tmp``: while that process lives (a runner in this
        process, or an arena run that a reader opens the run directory beside) it is kept.
        """
        for stale in (self.run_dir / "replays").glob(".*.tmp"):
            if _writer_alive(stale):
                continue
            stale.unlink(missing_ok=True)

    # ------------------------------------------------------------------ tournaments

    def open_tournament(
        self,
        tournament_id: str,
        name: str,
        config: JsonObject,
        fingerprint: str,
        games_total: int,
    ) -> bool:
        """Create the tournament, or check that the stored one is the same; True if resumed.

        A stored tournament with another fingerprint (other bots, ruleset, seed, format, games)
        is refused: resuming it would mix two schedules.
        """
        row = self._db.execute(
            "SELECT fingerprint, config FROM tournaments WHERE tournament_id=?", (tournament_id,)
        ).fetchone()
        if row is not None:
            if row[0] != fingerprint:
                raise TournamentMismatchError(
                    f"{self.run_dir} holds tournament {tournament_id!r} with a different "
                    "configuration (bots, ruleset, format, games or seed changed); "
                    "use another --out directory",
                    json.loads(row[1]),
                )
            self._db.execute(
                "UPDATE tournaments SET config=?, status='running', finished_at=NULL "
                "WHERE tournament_id=?",
                (_json(config), tournament_id),
            )
            return True
        self._db.execute(
            "INSERT INTO tournaments(tournament_id, name, config, fingerprint, status, "
            "games_total, created_at) VALUES(?, ?, ?, ?, 'running', ?, ?)",
            (tournament_id, name, _json(config), fingerprint, games_total, time.time()),
        )
        return False

    def tournaments(self) -> list[TournamentRecord]:
        """Every tournament in the file, oldest first."""
        rows = self._db.execute(
            "SELECT tournament_id, name, config, fingerprint, status, games_total, created_at, "
            "finished_at, next_index, sprt_decision, sprt_llr FROM tournaments "
            "ORDER BY created_at"
        ).fetchall()
        return [
            TournamentRecord(
                r[0], r[1], json.loads(r[2]), r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10]
            )
            for r in rows
        ]

    def tournament(self, tournament_id: str) -> TournamentRecord:
        """One tournament; ``StorageError`` if absent."""
        for record in self.tournaments():
            if record.tournament_id == tournament_id:
                return record
        raise StorageError(f"{self.path}: no tournament {tournament_id!r}")

    def set_sprt(self, tournament_id: str, decision: str, llr: float) -> None:
        """Store the SPRT's current decision and LLR."""
        self._db.execute(
            "UPDATE tournaments SET sprt_decision=?, sprt_llr=? WHERE tournament_id=?",
            (decision, llr, tournament_id),
        )

    def finish(self, tournament_id: str, status: str = "finished") -> None:
        """Mark the tournament finished (or cancelled)."""
        self._db.execute(
            "UPDATE tournaments SET status=?, finished_at=? WHERE tournament_id=?",
            (status, time.time(), tournament_id),
        )

    # ------------------------------------------------------------------------- bots

    def add_bot(self, tournament_id: str, name: str, command: str, remote: bool) -> None:
        """Register a bot of the tournament (keeps its version if already there)."""
        self._db.execute(
            "INSERT INTO bots(tournament_id, name, command, remote) VALUES(?, ?, ?, ?) "
            "ON CONFLICT(tournament_id, name) DO UPDATE SET command=excluded.command, "
            "remote=excluded.remote",
            (tournament_id, name, command, int(remote)),
        )

    def set_bot_version(self, tournament_id: str, name: str, version: str) -> None:
        """Store the version a bot announced in its Hello."""
        self._db.execute(
            "UPDATE bots SET version=? WHERE tournament_id=? AND name=?",
            (version, tournament_id, name),
        )

    def record_incident(self, tournament_id: str, bot: str, kind: str, detail: str) -> None:
        """Log a crash, restart or launch failure of a bot."""
        self._db.execute(
            "INSERT INTO incidents(tournament_id, bot, kind, detail, at) VALUES(?, ?, ?, ?, ?)",
            (tournament_id, bot, kind, detail, time.time()),
        )

    def incidents(self, tournament_id: str) -> list[tuple[str, str, str, float]]:
        """(bot, kind, detail, time) of every incident, in order."""
        rows = self._db.execute(
            "SELECT bot, kind, detail, at FROM incidents WHERE tournament_id=? ORDER BY id",
            (tournament_id,),
        ).fetchall()
        return [(r[0], r[1], r[2], r[3]) for r in rows]

    def bots(self, tournament_id: str) -> list[StoredBot]:
        """The tournament's bots with their crash counts."""
        rows = self._db.execute(
            "SELECT b.name, b.version, b.command, b.remote, "
            "(SELECT COUNT(*) FROM incidents i WHERE i.tournament_id=b.tournament_id "
            " AND i.bot=b.name AND i.kind='crash') FROM bots b WHERE b.tournament_id=? "
            "ORDER BY b.rowid",
            (tournament_id,),
        ).fetchall()
        return [StoredBot(r[0], r[1], r[2], bool(r[3]), r[4]) for r in rows]

    # ------------------------------------------------------------------------ games

    def replay_path(self, game_id: str) -> Path:
        """Where the replay of ``game_id`` goes."""
        return self.run_dir / "replays" / f"{game_id}.jsonl.gz"

    def recorded_indices(self, tournament_id: str) -> set[int]:
        """The schedule positions of the games already recorded."""
        rows = self._db.execute(
            "SELECT game_index FROM games WHERE tournament_id=?", (tournament_id,)
        ).fetchall()
        return {r[0] for r in rows}

    def record_game(
        self,
        row: GameRow,
        move_incidents: Sequence[MoveIncident] = (),
        *,
        sprt: tuple[str, float] | None = None,
    ) -> None:
        """Commit one finished game (its replay must already be in place) with the incidents of
        its moves, in one transaction with the tournament's progress (``next_index``: one past the
        highest game recorded) and, when given, its SPRT's (decision, LLR)."""
        self.record_games([(row, move_incidents)], sprt=sprt)

    def record_games(
        self,
        games: Sequence[tuple[GameRow, Sequence[MoveIncident]]],
        *,
        sprt: tuple[str, float] | None = None,
    ) -> None:
        """``record_game`` for several games of one tournament in one transaction: all are
        committed or none (a game already recorded, or one without its replay file, refuses the
        whole batch with ``StorageError``)."""
        if not games:
            return
        for row, _ in games:
            replay = self.run_dir / row.replay_path
            if row.replay_path and not replay.exists():
                raise StorageError(f"refusing to record game {row.game_id}: {replay} is missing")
        tournament_id = games[0][0].tournament_id
        try:
            self._db.execute("BEGIN IMMEDIATE")
            for row, move_incidents in games:
                self._insert_game(row, move_incidents)
            self._db.execute(
                "UPDATE tournaments SET next_index=MAX(next_index, ?) WHERE tournament_id=?",
                (max(r.index for r, _ in games) + 1, tournament_id),
            )
            if sprt is not None:
                self._db.execute(
                    "UPDATE tournaments SET sprt_decision=?, sprt_llr=? WHERE tournament_id=?",
                    (*sprt, tournament_id),
                )
            self._db.execute("COMMIT")
        except sqlite3.IntegrityError:
            self._db.execute("ROLLBACK")
            raise StorageError(
                f"game {row.index} of tournament {row.tournament_id!r} is already recorded"
            ) from None
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def _insert_game(self, row: GameRow, move_incidents: Sequence[MoveIncident]) -> None:
        """The game's row and its move incidents (inside the caller's transaction)."""
        self._db.execute(
            "INSERT INTO games(tournament_id, game_index, game_id, pair_index, round, seed, "
            "seats, side_bots, winners, scores, ranks, termination, forfeit_seat, detail, "
            "hands_played, duration_s, replay_path, replay_sha256, bot_stats, finished_at) "
            "VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                row.tournament_id,
                row.index,
                row.game_id,
                row.group,
                row.round,
                row.seed,
                _json(list(row.seat_bots)),
                _json(list(row.side_bots)),
                _json(list(row.winners)),
                _json(list(row.scores)),
                _json(list(row.ranks)),
                row.termination,
                row.forfeit_seat,
                row.detail,
                row.hands_played,
                row.duration_s,
                row.replay_path,
                row.replay_sha256,
                _json({bot: stats.to_dict() for bot, stats in row.bot_stats.items()}),
                row.finished_at or time.time(),
            ),
        )
        self._db.executemany(
            "INSERT INTO move_incidents(tournament_id, game_index, game_id, bot, seat, hand, "
            "move, kind, detail) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    row.tournament_id,
                    row.index,
                    row.game_id,
                    i.bot,
                    i.seat,
                    i.hand,
                    i.move,
                    i.kind,
                    i.detail,
                )
                for i in move_incidents
            ],
        )

    def games(self, tournament_id: str) -> list[GameRow]:
        """Every recorded game of the tournament, in schedule order."""
        return list(self.iter_games(tournament_id))

    def iter_games(self, tournament_id: str) -> Iterator[GameRow]:
        """The recorded games one at a time, in schedule order."""
        cursor = self._db.execute(
            "SELECT tournament_id, game_index, game_id, pair_index, round, seed, seats, "
            "side_bots, winners, scores, ranks, termination, forfeit_seat, detail, hands_played, "
            "duration_s, replay_path, replay_sha256, bot_stats, finished_at FROM games "
            "WHERE tournament_id=? ORDER BY game_index",
            (tournament_id,),
        )
        for r in cursor:
            yield GameRow(
                tournament_id=r[0],
                index=r[1],
                game_id=r[2],
                group=r[3],
                round=r[4],
                seed=r[5],
                seat_bots=tuple(json.loads(r[6])),
                side_bots=tuple(json.loads(r[7])),
                winners=tuple(json.loads(r[8])),
                scores=tuple(json.loads(r[9])),
                ranks=tuple(json.loads(r[10])),
                termination=r[11],
                forfeit_seat=r[12],
                detail=r[13],
                hands_played=r[14],
                duration_s=r[15],
                replay_path=r[16],
                replay_sha256=r[17],
                bot_stats={b: BotGameStats.from_dict(s) for b, s in json.loads(r[18]).items()},
                finished_at=r[19],
            )

    def move_incidents(
        self, tournament_id: str, bot: str | None = None, kind: str | None = None
    ) -> list[MoveIncident]:
        """The incidents of the tournament's moves (of ``bot``, of ``kind``), in game order."""
        query = (
            "SELECT game_id, game_index, bot, seat, hand, move, kind, detail FROM move_incidents "
            "WHERE tournament_id=?"
        )
        parameters: list[str] = [tournament_id]
        if bot is not None:
            query += " AND bot=?"
            parameters.append(bot)
        if kind is not None:
            query += " AND kind=?"
            parameters.append(kind)
        rows = self._db.execute(query + " ORDER BY game_index, id", parameters).fetchall()
        return [MoveIncident(*r) for r in rows]

    def count_games(self, tournament_id: str) -> int:
        """How many games of the tournament are recorded."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM games WHERE tournament_id=?", (tournament_id,)
        ).fetchone()
        return int(row[0])


def _writer_alive(temporary: Path) -> bool:
    """True when the process that names ``temporary`` (``.<file>.<pid>.tmp``) is running."""
    try:
        pid = int(temporary.name.rsplit(".", 2)[-2])
    except (ValueError, IndexError):
        return False
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
