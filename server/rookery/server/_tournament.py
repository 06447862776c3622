"""The tournament backend: what the ArenaService tournament RPCs delegate to (the arena)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from rookery.v1 import arena_service_pb2

__all__ = ["TournamentBackend"]


@runtime_checkable
class TournamentBackend(Protocol):
    """Tournaments for ArenaService. Set it as ``RookeryServer(config, tournaments=backend)`` (or
    assign ``server.tournaments``); without one the tournament RPCs answer UNIMPLEMENTED.

    Errors: raise :class:`rookery.server.TournamentNotFoundError` (or any ``LookupError``) for an
    unknown id → NOT_FOUND; ``ValueError`` for a spec that cannot be run → INVALID_ARGUMENT, with
    the message passed to the client.
    """

    async def create_tournament(
        self, spec: arena_service_pb2.TournamentSpec
    ) -> arena_service_pb2.TournamentInfo:
        """Starts a tournament (it runs in the background) and returns it."""
        ...

    async def get_tournament(self, tournament_id: str) -> arena_service_pb2.TournamentInfo:
        """One tournament's progress."""
        ...

    async def list_tournaments(self) -> Sequence[arena_service_pb2.TournamentInfo]:
        """Every tournament."""
        ...

    async def list_games(
        self, tournament_id: str, limit: int
    ) -> Sequence[arena_service_pb2.GameSummary]:
        """A tournament's finished games, newest first; ``limit`` 0 for all."""
        ...

    async def get_standings(self, tournament_id: str) -> Sequence[arena_service_pb2.Standing]:
        """A tournament's standings, best first."""
        ...
