"""grpc.aio's server types as the interceptors use them, in one place.

types-grpcio types a method handler's behaviours as synchronous (``RpcMethodHandler.unary_unary``
returns the response and is given a ``grpc.ServicerContext``); under ``grpc.aio`` each is a
coroutine function or an async generator function given a ``grpc.aio.ServicerContext``. The
interceptors read a handler's behaviour and build its replacement only through
:func:`answering`, :func:`streaming` and :func:`rebuilt`, which tell the type checker so once.
The servicers' own methods need none of this: each takes its typed
``grpc.aio.ServicerContext[Request, Response]``.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import TypeAlias, TypeVar, cast

import grpc

__all__ = [
    "Answering",
    "Context",
    "Continuation",
    "Streaming",
    "answering",
    "is_streaming",
    "rebuilt",
    "streaming",
]

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")

Context: TypeAlias = "grpc.aio.ServicerContext[_Request, _Response]"
"""A call's context, generic in its request and response messages."""

Answering: TypeAlias = Callable[
    [object, "grpc.aio.ServicerContext[_Request, _Response]"], Awaitable[object]
]
"""A coroutine behaviour under grpc.aio: given the request (or, for a streaming request, the async
iterator of them) and the context, it answers the response (or writes them, answering None)."""

Streaming: TypeAlias = Callable[
    [object, "grpc.aio.ServicerContext[_Request, _Response]"], AsyncGenerator[_Response, None]
]
"""An async generator behaviour under grpc.aio: it yields the responses."""

Continuation: TypeAlias = Callable[
    [grpc.HandlerCallDetails], Awaitable["grpc.RpcMethodHandler[_Request, _Response] | None"]
]
"""What an interceptor calls for the handler of a call (grpc's ``continuation``)."""


def _inner(handler: grpc.RpcMethodHandler[_Request, _Response]) -> object:
    """Of the handler's four behaviour slots, the one its streaming flags name."""
    if handler.request_streaming and handler.response_streaming:
        inner: object = handler.stream_stream
    elif handler.request_streaming:
        inner = handler.stream_unary
    elif handler.response_streaming:
        inner = handler.unary_stream
    else:
        inner = handler.unary_unary
    if inner is None:
        raise TypeError("a gRPC method handler without the behaviour its streaming flags name")
    return inner


def is_streaming(handler: grpc.RpcMethodHandler[_Request, _Response]) -> bool:
    """Whether the handler's behaviour is an async generator (it yields its responses) rather than
    a coroutine (it answers, or writes with ``context.write``)."""
    return inspect.isasyncgenfunction(_inner(handler))


def answering(
    handler: grpc.RpcMethodHandler[_Request, _Response],
) -> Answering[_Request, _Response]:
    """The handler's coroutine behaviour (``is_streaming`` is false)."""
    inner = _inner(handler)
    if inspect.isasyncgenfunction(inner):
        raise TypeError("the gRPC method handler's behaviour is an async generator")
    return cast("Answering[_Request, _Response]", inner)


def streaming(
    handler: grpc.RpcMethodHandler[_Request, _Response],
) -> Streaming[_Request, _Response]:
    """The handler's async generator behaviour (``is_streaming`` is true)."""
    inner = _inner(handler)
    if not inspect.isasyncgenfunction(inner):
        raise TypeError("the gRPC method handler's behaviour is not an async generator")
    return cast("Streaming[_Request, _Response]", inner)


def rebuilt(
    handler: grpc.RpcMethodHandler[_Request, _Response],
    replacement: Answering[_Request, _Response] | Streaming[_Request, _Response],
    request_deserializer: Callable[[bytes], object] | None = None,
) -> grpc.RpcMethodHandler[_Request, _Response]:
    """A handler like ``handler`` (same streaming kind and serializers) whose behaviour is
    ``replacement``; its request deserializer ``request_deserializer`` when one is given."""
    build = {
        (False, False): grpc.unary_unary_rpc_method_handler,
        (True, False): grpc.stream_unary_rpc_method_handler,
        (False, True): grpc.unary_stream_rpc_method_handler,
        (True, True): grpc.stream_stream_rpc_method_handler,
    }[(bool(handler.request_streaming), bool(handler.response_streaming))]
    parse = cast(
        "Callable[[bytes], _Request] | None", request_deserializer or handler.request_deserializer
    )
    return build(
        replacement, request_deserializer=parse, response_serializer=handler.response_serializer
    )
