"""A stranger's refused oversize messages cost a running server no memory it keeps.

Each attack opens fresh connections to a real `rookery serve` process and sends one message of
900 KiB (under the 1 MiB limit) that the server refuses: a Hello with a 900 KiB version or name,
an ActionReply as the first message, an ArenaService call naming a 900 KiB table. No token is
needed. The server's resident memory, read from /proc, must come back near where it started:
on the old server 300 such Hellos grew it from 62 to 341 MiB and none of it came back (gRPC kept
each refused call, and the message in it, in a cycle with the handler's frames).
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path

import grpc
import pytest
from rookery.v1 import (
    arena_service_pb2,
    arena_service_pb2_grpc,
    bot_service_pb2,
    results_pb2,
    table_pb2,
)
from rookery.v1 import bot_service_pb2_grpc as bot_grpc

_SCRIPT = Path(sys.executable).with_name("rookery")
_BIG = 900 * 1024
_CONNECTIONS = 240
_AT_ONCE = 16
_KEPT_MIB = 48
"""The most the server's RSS may stay above its start after an attack (the old server: 279 MiB
after 300 Hellos, about 0.93 MiB kept per refused message)."""


def rss_mib(pid: int) -> float:
    """The resident memory of process ``pid`` in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"no VmRSS for process {pid}")


@pytest.fixture(params=["open", "token"])
def serve(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[int, str]]:
    """A `rookery serve` process (open mode, or token mode with a registry): (pid, target)."""
    port_file = tmp_path / "port"
    mode = ["--db", str(tmp_path / "bots.db")] if request.param == "token" else []
    process = subprocess.Popen(
        [str(_SCRIPT), "serve", "--address", "127.0.0.1:0", "--web-address", "off",
         "--log-level", "warning", "--port-file", str(port_file), *mode],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists():
            assert process.poll() is None, "rookery serve ended before it served"
            assert time.monotonic() < deadline, "rookery serve did not start within 60 s"
            time.sleep(0.05)
        yield process.pid, f"127.0.0.1:{port_file.read_text().strip()}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _first_message(channel: grpc.aio.Channel, message: bot_service_pb2.ConnectRequest) -> str:
    call = bot_grpc.BotServiceStub(channel).Connect(iter([message]))
    try:
        async for _ in call:
            pass
    except grpc.aio.AioRpcError as error:
        return f"{error.code().name}: {(error.details() or '')[:60]}"
    return "OK"


async def _hello_version(channel: grpc.aio.Channel, index: int) -> str:
    hello = bot_service_pb2.Hello(name=f"stranger{index}", version="v" * _BIG)
    return await _first_message(channel, bot_service_pb2.ConnectRequest(hello=hello))


async def _hello_name(channel: grpc.aio.Channel, index: int) -> str:
    hello = bot_service_pb2.Hello(name="n" * _BIG)
    return await _first_message(channel, bot_service_pb2.ConnectRequest(hello=hello))


async def _first_reply(channel: grpc.aio.Channel, index: int) -> str:
    reply = bot_service_pb2.ActionReply(table_id="t" * _BIG)
    return await _first_message(channel, bot_service_pb2.ConnectRequest(action_reply=reply))


async def _get_replay(channel: grpc.aio.Channel, index: int) -> str:
    stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
    try:
        await stub.GetReplay(arena_service_pb2.GetReplayRequest(table_id="t" * _BIG))
    except grpc.aio.AioRpcError as error:
        return f"{error.code().name}: {(error.details() or '')[:60]}"
    return "OK"


ATTACKS: dict[str, tuple[Callable[[grpc.aio.Channel, int], Awaitable[str]], str]] = {
    "hello_version": (_hello_version, "INVALID_ARGUMENT: Hello.version is 921600 characters long"),
    "hello_name": (_hello_name, "INVALID_ARGUMENT: Hello.name: invalid bot name"),
    "first_reply": (_first_reply, "INVALID_ARGUMENT: the first message of a session must be a"),
    "get_replay": (_get_replay, "NOT_FOUND: no table 'tttttttttttttttttttttttttttttttttttttttt"),
}


async def _attack(target: str, attack: str, connections: int) -> list[str]:
    send, _ = ATTACKS[attack]
    options = [("grpc.max_send_message_length", 4 << 20)]

    async def once(index: int) -> str:
        async with grpc.aio.insecure_channel(target, options=options) as channel:
            return await send(channel, index)

    answers: list[str] = []
    for start in range(0, connections, _AT_ONCE):
        batch = range(start, min(connections, start + _AT_ONCE))
        answers += await asyncio.gather(*(once(index) for index in batch))
    return answers


async def _settled_rss(pid: int, start: float) -> float:
    """The server's RSS once it stops falling (at most 5 s after the attack)."""
    deadline = time.monotonic() + 5.0
    now = rss_mib(pid)
    while now > start + _KEPT_MIB / 2 and time.monotonic() < deadline:
        await asyncio.sleep(0.25)
        now = rss_mib(pid)
    return now


@pytest.mark.parametrize("attack", list(ATTACKS))
async def test_refused_oversize_messages_leave_no_memory_behind(
    serve: tuple[int, str], attack: str
) -> None:
    pid, target = serve
    # One short warm-up so the start figure includes gRPC's own first-use allocations.
    await _attack(target, attack, _AT_ONCE)
    start = rss_mib(pid)
    answers = await _attack(target, attack, _CONNECTIONS)
    _, expected = ATTACKS[attack]
    assert [a for a in answers if not a.startswith(expected[:60])] == [], answers[:3]
    kept = await _settled_rss(pid, start) - start
    assert kept < _KEPT_MIB, (
        f"{_CONNECTIONS} refused {attack} messages of {_BIG // 1024} KiB left the server "
        f"{kept:.0f} MiB larger (from {start:.0f} MiB)"
    )


_HONEST_BOT = """
from rookery.client import Bot


class Honest(Bot):
    def act(self, observation):
        return next(iter(observation.legal_actions()))
"""


@pytest.mark.parametrize("serve", ["open"], indirect=True)
async def test_an_honest_game_beside_the_attack_finishes_undisturbed(
    serve: tuple[int, str], tmp_path: Path
) -> None:
    _, target = serve
    (tmp_path / "honest.py").write_text(_HONEST_BOT)
    bot = await asyncio.create_subprocess_exec(
        str(_SCRIPT), "bot", "run", f"{tmp_path / 'honest.py'}:Honest", "--server", target,
        "--sessions", "4", "--games", "1", "--log-level", "error",
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with grpc.aio.insecure_channel(target) as channel:
        stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
        request = arena_service_pb2.CreateTableRequest(
            preset="standard",
            seat_bots=["Honest"] * 4,
            time_control=table_pb2.TimeControl(action_ms=2000, strike_limit=3),
        )
        table = (await stub.CreateTable(request, timeout=10)).table
        attacks = [_attack(target, attack, _CONNECTIONS // 2) for attack in ATTACKS]
        await asyncio.gather(*attacks)
        _, err = await asyncio.wait_for(bot.communicate(), 120)
        assert bot.returncode == 0, err.decode()
        summary = err.decode().splitlines()[-1]
        assert "games=1 " in summary and "fallbacks=0 rejections=0 reconnects=0" in summary
        get = arena_service_pb2.GetTableRequest(table_id=table.table_id)
        result = (await stub.GetTable(get, timeout=10)).table.result
    assert result.reason in (
        results_pb2.TERMINATION_REASON_TARGET_REACHED,
        results_pb2.TERMINATION_REASON_MAX_HANDS,
    ), result.detail
