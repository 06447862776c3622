"""1,000 connects and disconnects against a `rookery serve` process: it survives, forgets every
session, and its memory comes back to its baseline.

grpc.aio has had leaks on cancelled streams; the loop ends its streams every way a client can:
cancelling the call, half-closing it, closing the channel under it, and disconnecting before the
Hello. The server's resident memory (``/proc/PID/status`` VmRSS) is read after a warm-up of the
same loop (the baseline), right after the loop, and after a settle; the tolerance is 8 MiB over
the baseline (allocator noise: the loop itself holds ~1 MiB of live data at its peak).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
from rookery.server.testing import serve_process
from rookery.v1 import (
    arena_service_pb2,
    arena_service_pb2_grpc,
    bot_service_pb2,
    bot_service_pb2_grpc,
)

pb = bot_service_pb2
CONNECTS = 1000
WARM_UP = 200
AT_ONCE = 25
TOLERANCE_BYTES = 8 * 1024 * 1024


def rss_bytes(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


async def one_connect(target: str, number: int) -> None:
    """Connect, Hello, Welcome, then leave in one of four ways."""
    channel = grpc.aio.insecure_channel(target)
    try:
        call = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
        way = number % 4
        if way == 3:  # leaves before its Hello
            call.cancel()
            return
        await call.write(pb.ConnectRequest(hello=pb.Hello(name=f"churn{number % 50}")))
        welcome = await asyncio.wait_for(call.read(), 10)
        assert isinstance(welcome, pb.ConnectResponse)
        assert welcome.WhichOneof("message") == "welcome"
        if way == 0:
            call.cancel()
        elif way == 1:
            await call.done_writing()
            assert await asyncio.wait_for(call.read(), 10) is grpc.aio.EOF
        # way 2: the channel is closed under the open call
    finally:
        await channel.close()


async def churn(target: str, count: int) -> None:
    started = time.monotonic()
    for first in range(0, count, AT_ONCE):
        await asyncio.gather(
            *(one_connect(target, n) for n in range(first, min(count, first + AT_ONCE)))
        )
        assert time.monotonic() - started < 120, "the connect loop is far too slow"


async def connected_sessions(target: str) -> int:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
        bots = await stub.ListBots(arena_service_pb2.ListBotsRequest(), timeout=10)
        return sum(1 for bot in bots.bots if bot.connected)


async def test_a_thousand_connects_and_disconnects_leave_memory_at_its_baseline(
    tmp_path: Path,
) -> None:
    with serve_process("--open", "--log-level", "warning", directory=tmp_path) as serve:
        pid = serve.process.pid
        await churn(serve.target, WARM_UP)
        await asyncio.sleep(1.0)
        baseline = rss_bytes(pid)
        await churn(serve.target, CONNECTS)
        after_loop = rss_bytes(pid)
        for _ in range(50):  # at most 10 s for the last streams to be noticed gone
            if not await connected_sessions(serve.target):
                break
            await asyncio.sleep(0.2)
        await asyncio.sleep(1.0)
        settled = rss_bytes(pid)
        assert await connected_sessions(serve.target) == 0
        assert serve.process.poll() is None, serve.log()
    mib = 1024 * 1024
    print(
        f"churn: {CONNECTS} connects; server RSS baseline {baseline / mib:.1f} MiB, "
        f"after the loop {after_loop / mib:.1f} MiB, settled {settled / mib:.1f} MiB"
    )
    assert settled - baseline <= TOLERANCE_BYTES, (baseline, after_loop, settled)
