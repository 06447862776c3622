"""What the gRPC servicers need from the server: its tables, its sessions' roster and seating.

``RookeryServer`` satisfies :class:`ServerHub` structurally. The servicers are typed against this
Protocol, so ``_services`` never imports ``_server`` (which builds the servicers in ``start``).
"""

from __future__ import annotations

from typing import Protocol

from rookery.v1 import replay_pb2

from ._config import ServerConfig
from ._league import LeagueBackend
from ._registry import BotRegistry
from ._roster import SessionRoster
from ._table import Table, TableSpec, TableStatus
from ._tournament import TournamentBackend

__all__ = ["ServerHub"]


class ServerHub(Protocol):
    """The tables, the roster of sessions and seating, as the servicers use them."""

    config: ServerConfig
    bots: BotRegistry
    tournaments: TournamentBackend | None
    league: LeagueBackend | None
    roster: SessionRoster
    """The sessions: admission, launch keys, resume, spectators per address (a concrete class:
    the servicers use all of it)."""

    @property
    def is_stopping(self) -> bool:
        """Whether the server is shutting down."""
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
