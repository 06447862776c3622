"""Authentication: the admin token on ArenaService mutations (an interceptor), bot tokens in Hello.

Bots authenticate with the first message of their stream: ``Hello.token`` is checked against the
registry before anything else happens, and a missing or wrong token ends the stream with
UNAUTHENTICATED at once. Organisers authenticate every ArenaService mutation with the metadata
``authorization: Bearer <admin token>``; :class:`AdminInterceptor` refuses a call without it
before the handler runs. Reads (listing tables, bots, replays of finished games) are public.

The Unix socket (``unix_socket``) is the way in for the arena's sandboxed bots, and for them only
BotService: :class:`BotsOnlyOnUnixSocket` refuses every other call that comes through it
(PERMISSION_DENIED). What a bot could read or write there (the registry's Hello versions through
``ListBots``, a finished game's cards through ``WatchTable``) would carry what it saw in one game
into the next, past the fresh process the sandbox gives it for every game.
"""

from __future__ import annotations

import hmac
from collections.abc import AsyncGenerator, Iterable
from typing import TypeVar

import grpc

from ._grpc_types import Continuation, answering, is_streaming, rebuilt, streaming

__all__ = ["GUARDED_METHODS", "AdminInterceptor", "BotsOnlyOnUnixSocket", "bearer_token"]

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")

GUARDED_METHODS = frozenset(
    "/rookery.v1.ArenaService/" + name
    for name in (
        "AddBot",
        "RemoveBot",
        "CreateTable",
        "AbortTable",
        "CreateTournament",
        "DisqualifyVersion",
        "CreateSeason",
        "StartFinalEvaluation",
    )
)
"""The RPCs that need the admin token."""


def bearer_token(metadata: Iterable[tuple[str, str | bytes]] | None) -> str | None:
    """The token of an ``authorization: Bearer <token>`` metadata entry, if any."""
    for key, value in metadata or ():
        if key.lower() == "authorization":
            text = value.decode() if isinstance(value, bytes) else str(value)
            scheme, _, token = text.strip().partition(" ")
            if scheme.lower() == "bearer" and token.strip():
                return token.strip()
    return None


class AdminInterceptor(grpc.aio.ServerInterceptor):
    """Refuses ArenaService mutations without the admin token (UNAUTHENTICATED).

    ``admin_token`` empty with ``required`` (token mode) refuses every mutation: the server was
    started without an admin token. Empty without ``required`` (open mode) lets them through.
    """

    def __init__(self, admin_token: str, *, required: bool) -> None:
        self._token = admin_token
        self._required = required

    async def intercept_service(
        self,
        continuation: Continuation[_Request, _Response],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[_Request, _Response] | None:
        method = handler_call_details.method
        if method not in GUARDED_METHODS or (not self._token and not self._required):
            return await continuation(handler_call_details)
        presented = bearer_token(handler_call_details.invocation_metadata)
        if not self._token:
            problem = (
                "this server has no admin token configured (--admin-token or "
                "ROOKERY_ADMIN_TOKEN), so ArenaService mutations are refused"
            )
        elif presented is None:
            problem = f"{method} needs the admin token: metadata 'authorization: Bearer <token>'"
        elif not hmac.compare_digest(presented.encode(), self._token.encode()):
            problem = "the admin token is wrong"
        else:
            return await continuation(handler_call_details)
        handler = await continuation(handler_call_details)
        return _refusal(handler, problem)


def _refusal(
    handler: grpc.RpcMethodHandler[_Request, _Response] | None, problem: str
) -> grpc.RpcMethodHandler[_Request, _Response]:
    async def refuse(
        request: object, context: grpc.aio.ServicerContext[_Request, _Response]
    ) -> None:
        await context.abort(grpc.StatusCode.UNAUTHENTICATED, problem)

    return grpc.unary_unary_rpc_method_handler(
        refuse,
        request_deserializer=handler.request_deserializer if handler else None,
        response_serializer=handler.response_serializer if handler else None,
    )


#: The one service a client on the Unix socket may call (health and reflection are harmless).
_UNIX_SERVICES = ("/rookery.v1.BotService/", "/grpc.health.v1.Health/", "/grpc.reflection.")


def _on_unix_socket(context: grpc.aio.ServicerContext[_Request, _Response]) -> bool:
    return str(context.peer() or "").startswith("unix:")


class BotsOnlyOnUnixSocket(grpc.aio.ServerInterceptor):
    """Refuses ArenaService and SpectatorService calls that come through the Unix socket."""

    async def intercept_service(
        self,
        continuation: Continuation[_Request, _Response],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[_Request, _Response] | None:
        method = str(handler_call_details.method)
        handler = await continuation(handler_call_details)
        if handler is None or method.startswith(_UNIX_SERVICES):
            return handler
        problem = (
            f"{method} is not served on the Unix socket: a sandboxed bot reaches BotService only"
        )
        # Every kind of call, client streams too (a league's SubmitVersionUpload): a handler
        # that yields its responses is wrapped as a generator, any other as a coroutine.
        if is_streaming(handler):
            stream = streaming(handler)

            async def guarded_stream(
                request: object, context: grpc.aio.ServicerContext[_Request, _Response]
            ) -> AsyncGenerator[_Response, None]:
                if _on_unix_socket(context):
                    await context.abort(grpc.StatusCode.PERMISSION_DENIED, problem)
                async for item in stream(request, context):
                    yield item

            return rebuilt(handler, guarded_stream)
        answer = answering(handler)

        async def guarded(
            request: object, context: grpc.aio.ServicerContext[_Request, _Response]
        ) -> object:
            if _on_unix_socket(context):
                await context.abort(grpc.StatusCode.PERMISSION_DENIED, problem)
            return await answer(request, context)

        return rebuilt(handler, guarded)
