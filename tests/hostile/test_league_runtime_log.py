"""A version's runtime log (its processes' output: the traceback of a bot whose every move raises)
through the API:
its author and the organiser read its end with ``GetVersion(runtime_log_bytes=N)`` (and
``rookery league version ID --log``); anyone else, with another author's token or none, gets
nothing of it."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import grpc
import pytest
from league_support import ADMIN, LeagueUnderAttack, league_under_attack
from rookery.arena.launch import probe
from rookery.v1 import league_pb2

MARKER = "crash-marker-5e1f: the evaluation table is missing"
CRASH_BOT = f'''
from rookery.client import Bot


class CrashBot(Bot):
    def act(self, observation):
        raise RuntimeError("{MARKER}")
'''


@pytest.fixture
async def league(tmp_path: Path) -> AsyncIterator[LeagueUnderAttack]:
    if not probe().available:
        pytest.fail(f"the versions run in the sandbox: {probe().describe()}")
    async with league_under_attack(tmp_path, ("dave", "mallory"), sandbox="on") as running:
        folder = tmp_path / "dave"
        folder.mkdir()
        (folder / "crash_bot.py").write_text(CRASH_BOT)
        await running.submit("dave", folder, command="rookery bot run crash_bot.py:CrashBot")
        await running.settled("dave@1", timeout_s=90)  # its qualification pair is played
        yield running


async def _runtime_log(league: LeagueUnderAttack, token: str, size: int = 65536) -> str:
    request = league_pb2.GetVersionRequest(version_id="dave@1", runtime_log_bytes=size)
    response = await league.call("GetVersion", request, token)
    assert isinstance(response, league_pb2.GetVersionResponse)
    return response.runtime_log


@pytest.mark.parametrize("caller", ["author", "organiser"])
async def test_the_author_and_the_organiser_read_a_crashed_bots_traceback(
    league: LeagueUnderAttack, caller: str
) -> None:
    token = league.tokens["dave"] if caller == "author" else ADMIN
    log = await _runtime_log(league, token)
    assert "Traceback (most recent call last)" in log and MARKER in log, log[-2000:]
    tail = await _runtime_log(league, token, 100)
    assert len(tail.encode()) <= 100 and log.endswith(tail)


@pytest.mark.parametrize("caller", ["no token", "another author"])
async def test_nobody_else_reads_any_of_the_runtime_log(
    league: LeagueUnderAttack, caller: str
) -> None:
    token = "" if caller == "no token" else league.tokens["mallory"]
    assert await _runtime_log(league, token) == ""


async def test_more_than_the_limit_is_refused_with_the_limit(league: LeagueUnderAttack) -> None:
    with pytest.raises(grpc.aio.AioRpcError) as refused:
        await _runtime_log(league, league.tokens["dave"], 1 << 20)
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert refused.value.details() == "runtime_log_bytes: 1 to 262144, got 1048576"


async def test_the_cli_prints_it_for_the_author_only(league: LeagueUnderAttack) -> None:
    command = [
        sys.executable, "-m", "rookery.cli.main", "league", "version", "dave@1", "--log",
        "--server", league.running.server.target,
    ]  # fmt: skip

    def run(token: str) -> str:
        env = {"PATH": "/usr/bin:/bin", "ROOKERY_TOKEN": token}
        done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
        assert done.returncode == 0, done.stderr
        return done.stdout

    own = await asyncio.to_thread(run, league.tokens["dave"])
    assert "--- runtime log (its last 65536 bytes) ---" in own and MARKER in own
    other = await asyncio.to_thread(run, league.tokens["mallory"])
    assert MARKER not in other and "for the bot's token or the admin token only" in other
