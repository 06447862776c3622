"""Request bytes that are not a valid protobuf message: answered with INVALID_ARGUMENT.

grpc.aio reports a request it cannot deserialize as UNKNOWN ("Unexpected DecodeError …"). The
interceptor below gives unary-request RPCs a lenient deserializer and answers INVALID_ARGUMENT
with the parser's reason instead; BotService.Connect handles its own stream (see ``_services``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc
from google.protobuf.message import DecodeError

__all__ = ["MalformedRequestInterceptor", "malformed_detail"]


def malformed_detail(error: Exception) -> str:
    """The status detail for request bytes that do not parse."""
    return f"a malformed request (not a valid protobuf message): {error}"


class _Malformed:
    """What the lenient deserializer returns for bytes that do not parse."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


class MalformedRequestInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Answers unary requests that do not parse with INVALID_ARGUMENT instead of UNKNOWN."""

    async def intercept_service(
        self,
        continuation: Callable[[Any], Awaitable[Any]],
        handler_call_details: Any,
    ) -> Any:
        handler = await continuation(handler_call_details)
        if handler is None or handler.request_streaming or handler.request_deserializer is None:
            return handler
        parse = handler.request_deserializer

        def lenient(data: bytes) -> Any:
            try:
                return parse(data)
            except DecodeError as error:
                return _Malformed(error)

        if handler.response_streaming:
            streaming = handler.unary_stream

            async def stream(request: Any, context: Any) -> AsyncIterator[Any]:
                if isinstance(request, _Malformed):
                    await context.abort(
                        grpc.StatusCode.INVALID_ARGUMENT, malformed_detail(request.error)
                    )
                async for response in streaming(request, context):
                    yield response

            return handler._replace(request_deserializer=lenient, unary_stream=stream)
        unary = handler.unary_unary

        async def single(request: Any, context: Any) -> Any:
            if isinstance(request, _Malformed):
                await context.abort(
                    grpc.StatusCode.INVALID_ARGUMENT, malformed_detail(request.error)
                )
            return await unary(request, context)

        return handler._replace(request_deserializer=lenient, unary_unary=single)
