"""Request bytes that are not a valid protobuf message: answered with INVALID_ARGUMENT.

grpc.aio reports a request it cannot deserialize as UNKNOWN ("Unexpected DecodeError …"). The
interceptor below gives unary-request RPCs a lenient deserializer and answers INVALID_ARGUMENT
with the parser's reason instead; BotService.Connect handles its own stream (see ``_services``).
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import TypeVar

import grpc
from google.protobuf.message import DecodeError

from ._grpc_types import Continuation, answering, rebuilt, streaming

__all__ = ["MalformedRequestInterceptor", "malformed_detail"]

_Request = TypeVar("_Request")
_Response = TypeVar("_Response")


def malformed_detail(error: Exception) -> str:
    """The status detail for request bytes that do not parse."""
    return f"a malformed request (not a valid protobuf message): {error}"


class _Malformed:
    """What the lenient deserializer returns for bytes that do not parse."""

    __slots__ = ("error",)

    def __init__(self, error: Exception) -> None:
        self.error = error


class MalformedRequestInterceptor(grpc.aio.ServerInterceptor):
    """Answers unary requests that do not parse with INVALID_ARGUMENT instead of UNKNOWN."""

    async def intercept_service(
        self,
        continuation: Continuation[_Request, _Response],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler[_Request, _Response] | None:
        handler = await continuation(handler_call_details)
        if handler is None or handler.request_streaming or handler.request_deserializer is None:
            return handler
        parse = handler.request_deserializer

        def lenient(data: bytes) -> _Request | _Malformed:
            try:
                return parse(data)
            except DecodeError as error:
                return _Malformed(error)

        if handler.response_streaming:
            streaming_behaviour = streaming(handler)

            async def stream(
                request: object, context: grpc.aio.ServicerContext[_Request, _Response]
            ) -> AsyncGenerator[_Response, None]:
                if isinstance(request, _Malformed):
                    await context.abort(
                        grpc.StatusCode.INVALID_ARGUMENT, malformed_detail(request.error)
                    )
                async for response in streaming_behaviour(request, context):
                    yield response

            return rebuilt(handler, stream, request_deserializer=lenient)
        unary = answering(handler)

        async def single(
            request: object, context: grpc.aio.ServicerContext[_Request, _Response]
        ) -> object:
            if isinstance(request, _Malformed):
                await context.abort(
                    grpc.StatusCode.INVALID_ARGUMENT, malformed_detail(request.error)
                )
            return await unary(request, context)

        return rebuilt(handler, single, request_deserializer=lenient)
