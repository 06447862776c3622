"""The sandbox's Unix socket serves BotService only, client-streaming calls included.

A sandboxed bot reaches the server through the Unix socket mounted into its sandbox; every
ArenaService and SpectatorService call there is refused (PERMISSION_DENIED). The guard wrapped
unary and server-streaming handlers only, so ArenaService.SubmitVersionUpload (a client stream:
a league's upload) went through to the servicer: on the old code this call got the servicer's
own answer, UNIMPLEMENTED "this server runs no league", instead of the refusal.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from rookery.server.testing import running_server
from rookery.v1 import arena_service_pb2_grpc, league_pb2


async def _upload() -> AsyncIterator[league_pb2.SubmitVersionUploadRequest]:
    yield league_pb2.SubmitVersionUploadRequest(
        request=league_pb2.SubmitVersionRequest(bot_name="mallory")
    )
    yield league_pb2.SubmitVersionUploadRequest(archive_chunk=b"\x1f\x8b" + b"\x00" * 64)


async def test_a_client_stream_through_the_unix_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "server.sock"
    async with (
        running_server(log_level="warning", unix_socket=str(path)),
        grpc.aio.insecure_channel(f"unix:{path}") as channel,
    ):
        arena = arena_service_pb2_grpc.ArenaServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as refused:
            await arena.SubmitVersionUpload(_upload())
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED, refused.value.details()
    assert "BotService only" in str(refused.value.details())


async def test_the_same_upload_over_tcp_reaches_the_servicer(tmp_path: Path) -> None:
    """The control: over TCP the call is the servicer's (no league here: UNIMPLEMENTED)."""
    async with (
        running_server(log_level="warning", unix_socket=str(tmp_path / "server.sock")) as server,
        grpc.aio.insecure_channel(server.target) as channel,
    ):
        arena = arena_service_pb2_grpc.ArenaServiceStub(channel)
        with pytest.raises(grpc.aio.AioRpcError) as answered:
            await arena.SubmitVersionUpload(_upload())
    assert answered.value.code() == grpc.StatusCode.UNIMPLEMENTED
