"""The bot registry: bot names and the SHA-256 hashes of their tokens, in one SQLite file.

A token is 32 random bytes, shown once (URL-safe base64 with a ``rk_`` prefix); only its hash is
stored, and a presented token is compared with :func:`hmac.compare_digest`.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from ._errors import InvalidBotNameError, UnknownBotError

__all__ = ["BotRegistry", "RegisteredBot", "validate_bot_name"]

_NAME = re.compile(r"[A-Za-z0-9._-]{1,64}")
_TOKEN_PREFIX = "rk_"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS bot_tokens (
    name TEXT PRIMARY KEY,
    token_sha256 TEXT NOT NULL,
    created_at REAL NOT NULL,
    active INTEGER NOT NULL DEFAULT 1,
    version TEXT NOT NULL DEFAULT ''
)
"""


def validate_bot_name(name: str) -> str:
    """``name`` if it is a valid bot name, else :class:`InvalidBotNameError` saying why."""
    if not _NAME.fullmatch(name):
        # At most 64 characters of it are repeated: an error is no amplifier.
        shown = repr(name) if len(name) <= 64 else f"{name[:64]!r}… ({len(name)} characters)"
        raise InvalidBotNameError(
            f"invalid bot name {shown}: use 1–64 letters, digits, '-', '_' or '.'"
        )
    return name


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class RegisteredBot:
    """A registered bot (never its token)."""

    name: str
    created_at: float
    active: bool
    version: str


class BotRegistry:
    """Registered bots and their hashed tokens (``path=":memory:"`` for a registry in memory)."""

    def __init__(self, path: str | Path = ":memory:") -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        if self.path != ":memory:":
            self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(_SCHEMA)

    def close(self) -> None:
        """Closes the database file."""
        self._db.close()

    def add(self, name: str) -> tuple[RegisteredBot, str]:
        """Registers ``name`` (or re-activates a revoked one) and returns it with its new token.

        A name only seen in open mode (no token yet) is given one.

        Raises :class:`InvalidBotNameError`, or ``ValueError`` if an active bot has that name.
        """
        validate_bot_name(name)
        token = _TOKEN_PREFIX + secrets.token_urlsafe(32)
        now = time.time()
        with self._db:
            row = self._db.execute(
                "SELECT active, token_sha256 FROM bot_tokens WHERE name = ?", (name,)
            ).fetchone()
            if row is not None and row[0] and row[1]:
                raise ValueError(f"a bot named {name!r} is already registered")
            self._db.execute(
                "INSERT INTO bot_tokens (name, token_sha256, created_at, active) "
                "VALUES (?, ?, ?, 1) "
                "ON CONFLICT(name) DO UPDATE SET token_sha256 = excluded.token_sha256, "
                "created_at = excluded.created_at, active = 1",
                (name, _hash(token), now),
            )
        return self.get(name), token

    def remove(self, name: str) -> None:
        """Revokes ``name``'s token; :class:`UnknownBotError` if no active bot has that name."""
        cursor = self._db.execute(
            "UPDATE bot_tokens SET active = 0 WHERE name = ? AND active = 1", (name,)
        )
        if cursor.rowcount == 0:
            raise UnknownBotError(f"no registered bot named {name!r}")

    def get(self, name: str) -> RegisteredBot:
        """The bot ``name`` (active or revoked); :class:`UnknownBotError` if never registered."""
        row = self._db.execute(
            "SELECT name, created_at, active, version FROM bot_tokens WHERE name = ?", (name,)
        ).fetchone()
        if row is None:
            raise UnknownBotError(f"no registered bot named {name!r}")
        return RegisteredBot(row[0], row[1], bool(row[2]), row[3])

    def list(self) -> list[RegisteredBot]:
        """Every bot ever registered, by name."""
        rows = self._db.execute(
            "SELECT name, created_at, active, version FROM bot_tokens ORDER BY name"
        ).fetchall()
        return [RegisteredBot(r[0], r[1], bool(r[2]), r[3]) for r in rows]

    def is_active(self, name: str) -> bool:
        """Whether ``name`` is registered and not revoked."""
        row = self._db.execute("SELECT active FROM bot_tokens WHERE name = ?", (name,)).fetchone()
        return row is not None and bool(row[0])

    def check_token(self, name: str, token: str) -> bool:
        """Whether ``token`` is the active token of bot ``name`` (constant-time comparison)."""
        row = self._db.execute(
            "SELECT token_sha256, active FROM bot_tokens WHERE name = ?", (name,)
        ).fetchone()
        # Hash even for an unknown bot so that timing does not tell which names exist.
        presented = _hash(token)
        if row is None:
            hmac.compare_digest(presented, presented)
            return False
        return hmac.compare_digest(presented, row[0]) and bool(row[1])

    def note_version(self, name: str, version: str) -> None:
        """Records the version a registered bot gave in its Hello."""
        self._db.execute("UPDATE bot_tokens SET version = ? WHERE name = ?", (version, name))

    def note_seen(self, name: str, version: str) -> None:
        """Records the version a bot gave in its Hello; registers unknown names (open mode)."""
        with self._db:
            self._db.execute(
                "INSERT INTO bot_tokens (name, token_sha256, created_at, active, version) "
                "VALUES (?, '', ?, 1, ?) "
                "ON CONFLICT(name) DO UPDATE SET version = excluded.version",
                (name, time.time(), version),
            )
