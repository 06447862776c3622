"""File descriptors: slow dashboard visitors cannot exhaust the server's, nor cost a replay.

The attack runs against ``rookery serve`` started under a small open-file limit (``prlimit``), as
a server under the usual 1,024 would be with a thousand visitors.
"""

from __future__ import annotations

import asyncio
import re
import resource
import socket
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from rookery.server.testing import RawBot, bot_names, serve_process
from rookery.v1 import arena_service_pb2, arena_service_pb2_grpc

CLI = (sys.executable, "-m", "rookery.cli.main")


def limited(soft: int, hard: int) -> tuple[str, ...]:
    return ("prlimit", f"--nofile={soft}:{hard}", *CLI)


def web_port(log: str) -> int:
    match = re.search(r"http://127\.0\.0\.1:(\d+)", log)
    assert match, log
    return int(match.group(1))


async def health_seconds(target: str) -> float:
    async with grpc.aio.insecure_channel(target) as channel:
        started = time.monotonic()
        await health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        return time.monotonic() - started


async def test_slow_dashboard_connections_cannot_cost_a_replay(tmp_path: Path) -> None:
    replays = tmp_path / "replays"
    args = ("--replay-dir", str(replays), "--web-address", "127.0.0.1:0", "--log-level", "info")
    with serve_process(*args, executable=limited(256, 256)) as serve, ExitStack() as sockets:
        for _ in range(100):
            if "web dashboard started" in serve.log():
                break
            await asyncio.sleep(0.05)
        port = web_port(serve.log())
        players = [RawBot(serve.target, name) for name in bot_names(4)]
        try:
            for bot in players:
                await bot.connect()
            async with grpc.aio.insecure_channel(serve.target) as channel:
                stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
                created = await stub.CreateTable(
                    arena_service_pb2.CreateTableRequest(
                        preset="standard", seed=3, seat_bots=bot_names(4)
                    )
                )
            # 300 visitors that connect and never send their request.
            slow = []
            for _ in range(300):
                connection = socket.create_connection(("127.0.0.1", port), timeout=5)
                sockets.callback(connection.close)
                slow.append(connection)
            await asyncio.sleep(0.5)
            health_s = await health_seconds(serve.target)
            await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
            table_id = created.table.table_id
            path = replays / f"{table_id}.jsonl.gz"
            for _ in range(100):
                if path.is_file():
                    break
                await asyncio.sleep(0.05)
            refused = 0
            for connection in slow:
                connection.settimeout(0.01)
                try:
                    if connection.recv(64).startswith(b"HTTP/1.1 503"):
                        refused += 1
                except OSError:
                    pass
            print(
                f"300 slow visitors under 256 descriptors: replay written {path.is_file()}, "
                f"health {health_s * 1000:.0f} ms, {refused} answered 503"
            )
            assert path.is_file(), serve.log()[-2000:]
            assert "could not write the replay" not in serve.log()
            assert health_s < 1.0
            assert refused >= 300 - 64
        finally:
            for bot in players:
                await bot.close()


def test_the_server_raises_its_soft_open_file_limit_at_start() -> None:
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    hard = 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)
    with serve_process("--web-address", "off", executable=limited(hard // 8, hard)) as serve:
        limits = Path(f"/proc/{serve.process.pid}/limits").read_text()
        line = next(line for line in limits.splitlines() if line.startswith("Max open files"))
        print(line)
        assert line.split()[3] == str(hard), line
