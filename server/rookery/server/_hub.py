"""What the gRPC servicers need from the server: the hub of sessions, tables and seating.

``RookeryServer`` satisfies :class:`ServerHub` structurally. The servicers are typed against this
Protocol, so ``_services`` never imports ``_server`` (which builds the servicers in ``start``).
"""

from __future__ import annotations

from typing import Protocol

from rookery.v1 import bot_service_pb2, replay_pb2

from ._config import ServerConfig
from ._league import LeagueBackend
from ._registry import BotRegistry
from ._session import Session
from ._table import Table, TableSpec, TableStatus
from ._tournament import TournamentBackend

__all__ = ["ServerHub"]


class ServerHub(Protocol):
    """Sessions, tables, admission and seating, as the servicers use them."""

    config: ServerConfig
    bots: BotRegistry
    tournaments: TournamentBackend | None
    league: LeagueBackend | None

    @property
    def is_stopping(self) -> bool:
        """Whether the server is shutting down."""
        ...

    @property
    def sessions(self) -> dict[str, list[Session]]:
        """Connected sessions by bot name."""
        ...

    def session(self, session_id: str) -> Session | None:
        """A session (connected or awaiting resume) by id."""
        ...

    def admission_problem(self, bot: str, peer: str, key: str = "") -> str:
        """Why a new session of ``bot`` from ``peer`` is refused ("" when admitted)."""
        ...

    def is_launch_key(self, bot: str, key: str) -> bool:
        """Whether ``key`` is a live launch key of ``bot``."""
        ...

    def open_session(self, hello: bot_service_pb2.Hello, *, peer: str = "") -> Session:
        """A new session for an admitted Hello."""
        ...

    def session_detached(self, session: Session) -> None:
        """A session's stream ended."""
        ...

    def seat_waiting(self) -> None:
        """Seats every waiting table that can now get a free session per seat."""
        ...

    async def create_table(self, spec: TableSpec) -> Table:
        """Creates a table."""
        ...

    def get_table(self, table_id: str) -> Table:
        """A table by id (``UnknownTableError`` if unknown)."""
        ...

    def list_tables(self, status: TableStatus | None = None) -> list[Table]:
        """Every table in memory, oldest first."""
        ...

    def replay(self, table_id: str) -> replay_pb2.Replay:
        """A finished game's replay."""
        ...

    def watchers_of(self, peer: str) -> int:
        """Spectator streams open from ``peer``."""
        ...

    def watcher_opened(self, peer: str) -> None:
        """A spectator stream from ``peer`` opened."""
        ...

    def watcher_closed(self, peer: str) -> None:
        """A spectator stream from ``peer`` closed."""
        ...
