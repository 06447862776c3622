"""The league backend: what the ArenaService league RPCs delegate to (the arena's league).

The server only authenticates and converts: the league itself (submissions, builds, matchmaking,
ratings, the final evaluation) lives in the arena, which implements :class:`LeagueBackend`, so
the server never imports the arena.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

from rookery.v1 import league_pb2

__all__ = ["LeagueBackend", "QuotaExceededError", "SubmissionsClosedError"]


class SubmissionsClosedError(Exception):
    """The season's deadline has passed (or it is not open): no new versions, no challenges."""


class QuotaExceededError(Exception):
    """One of the league's quotas is spent (submissions a day, challenge pairs queued): the
    message says which, its limit and when the call will be accepted."""


@runtime_checkable
class LeagueBackend(Protocol):
    """A league for ArenaService. Set it as ``server.league``; without one the league RPCs
    answer UNIMPLEMENTED.

    ``token`` is the caller's bearer token (``None`` without one): the backend checks that it is
    the token of the bot the call acts for. Errors: ``PermissionError`` → PERMISSION_DENIED,
    ``LookupError`` → NOT_FOUND, ``FileExistsError`` (a duplicate submission) → ALREADY_EXISTS,
    :class:`SubmissionsClosedError` → FAILED_PRECONDITION, :class:`QuotaExceededError` →
    RESOURCE_EXHAUSTED, ``ValueError`` → INVALID_ARGUMENT;
    each with the message passed to the client.
    """

    async def submit_version(
        self, request: league_pb2.SubmitVersionRequest, token: str | None
    ) -> league_pb2.BotVersion:
        """Stores a new immutable version; it builds and qualifies in the background."""
        ...

    async def submit_version_upload(
        self, chunks: AsyncIterator[league_pb2.SubmitVersionUploadRequest], token: str | None
    ) -> league_pb2.BotVersion:
        """:meth:`submit_version` with the archive in chunks: the first message is the request,
        the token and quotas are checked before any chunk is kept."""
        ...

    async def list_versions(self, bot_name: str, token: str | None) -> list[league_pb2.BotVersion]:
        """Every version (of ``bot_name`` if given); a version's command and build step only
        for its bot's token or the admin token."""
        ...

    async def get_version(
        self, request: league_pb2.GetVersionRequest, token: str | None
    ) -> league_pb2.GetVersionResponse:
        """One version, with its command, build step, build log and the end of its runtime log
        for its bot's token or the admin token."""
        ...

    async def retire_version(self, version_id: str, token: str | None) -> league_pb2.BotVersion:
        """Retires one of the caller's versions."""
        ...

    async def disqualify_version(self, version_id: str, reason: str) -> league_pb2.BotVersion:
        """Disqualifies a version (the interceptor has checked the admin token)."""
        ...

    async def challenge(self, request: league_pb2.ChallengeRequest, token: str | None) -> int:
        """Queues duplicate pairs between one of the caller's versions and another: its id."""
        ...

    async def board(self, all_versions: bool) -> league_pb2.GetLeagueBoardResponse:
        """The board, best first (the final standings once the season is closed)."""
        ...

    async def create_season(self, request: league_pb2.CreateSeasonRequest) -> league_pb2.Season:
        """Starts a new season (the interceptor has checked the admin token)."""
        ...

    async def start_final_evaluation(self) -> league_pb2.Season:
        """Closes submissions now and starts the final evaluation."""
        ...
