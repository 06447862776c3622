"""The ArenaService's tournament and league calls: delegated to the server's backends (the
arena's), each backend error answered with its status code; UNIMPLEMENTED without a backend."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import NoReturn, TypeVar

import grpc

from ._auth import bearer_token
from ._hub import ServerHub
from ._league import LeagueBackend, QuotaExceededError, SubmissionsClosedError
from ._tournament import TournamentBackend

__all__ = ["abort", "bearer", "league_call", "tournament_call"]

_Code = grpc.StatusCode
_T = TypeVar("_T")
_B = TypeVar("_B")
_Request = TypeVar("_Request")
_Response = TypeVar("_Response")


async def abort(
    context: grpc.aio.ServicerContext[_Request, _Response], code: grpc.StatusCode, details: str
) -> NoReturn:
    """Ends the call with ``code`` and ``details`` (never returns)."""
    await context.abort(code, details)
    raise AssertionError("unreachable: context.abort raises")


#: What a backend's errors answer, the first that matches; the client sees the error's message.
_ErrorCodes = tuple[tuple[type[Exception], grpc.StatusCode], ...]
_TOURNAMENT_ERRORS: _ErrorCodes = (
    (LookupError, _Code.NOT_FOUND),
    (ValueError, _Code.INVALID_ARGUMENT),
)
#: The league's errors (as :class:`LeagueBackend` documents them).
_LEAGUE_ERRORS: _ErrorCodes = (
    (PermissionError, _Code.PERMISSION_DENIED),
    (FileExistsError, _Code.ALREADY_EXISTS),
    (LookupError, _Code.NOT_FOUND),
    (SubmissionsClosedError, _Code.FAILED_PRECONDITION),
    (QuotaExceededError, _Code.RESOURCE_EXHAUSTED),
    (ValueError, _Code.INVALID_ARGUMENT),
)
_NO_TOURNAMENTS = (
    "tournaments need the arena: this server was started without a tournament "
    "backend (rookery serve without the arena); ad-hoc tables work (CreateTable)"
)
_NO_LEAGUE = "this server runs no league: start one with `rookery league serve`"


async def _delegate(
    context: grpc.aio.ServicerContext[_Request, _Response],
    backend: _B | None,
    missing: str,
    call: Callable[[_B], Awaitable[_T]],
    errors: _ErrorCodes,
) -> _T:
    """``call(backend)``, its errors aborted with their status codes; UNIMPLEMENTED without one."""
    if backend is None:
        await abort(context, _Code.UNIMPLEMENTED, missing)
    try:
        return await call(backend)
    except tuple(kind for kind, _ in errors) as error:
        code = next(code for kind, code in errors if isinstance(error, kind))
        # A KeyError's str() is the repr of its key: the message without the quotes.
        details = str(error).strip("'\"") if isinstance(error, LookupError) else str(error)
        await abort(context, code, details)


async def tournament_call(
    server: ServerHub,
    context: grpc.aio.ServicerContext[_Request, _Response],
    call: Callable[[TournamentBackend], Awaitable[_T]],
) -> _T:
    """``call`` on the server's tournament backend, its errors as status codes."""
    return await _delegate(context, server.tournaments, _NO_TOURNAMENTS, call, _TOURNAMENT_ERRORS)


async def league_call(
    server: ServerHub,
    context: grpc.aio.ServicerContext[_Request, _Response],
    call: Callable[[LeagueBackend], Awaitable[_T]],
) -> _T:
    """``call`` on the server's league backend, its errors as status codes."""
    return await _delegate(context, server.league, _NO_LEAGUE, call, _LEAGUE_ERRORS)


def bearer(context: grpc.aio.ServicerContext[_Request, _Response]) -> str | None:
    """The call's bearer token, if any."""
    return bearer_token(context.invocation_metadata())
