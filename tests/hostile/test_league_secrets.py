"""Another author, or anyone with no token, tries to read what a league keeps for a version's
author and the organiser: its command line, its build step and its build log (docs/league.md,
Trust). They get the version's public face, with those fields empty; the author's own token and
the admin token get all of it."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from league_support import ADMIN, LeagueUnderAttack, bot_folder, league_under_attack
from rookery.v1 import league_pb2

SECRET = "dave-s-secret-opening-book-7f3a"
BUILD = f"echo building with {SECRET}; echo the last line names {SECRET}; exit 4"
COMMAND = f"rookery bot run rookery.client.bots.random_bot:RandomBot --name-{SECRET}"


@pytest.fixture
async def league(tmp_path: Path) -> AsyncIterator[LeagueUnderAttack]:
    async with league_under_attack(tmp_path, ("dave", "mallory")) as running:
        await running.submit("dave", bot_folder(tmp_path, "dave"), command=COMMAND, build=BUILD)
        settled = await running.settled("dave@1")
        assert settled.status == league_pb2.VERSION_STATUS_BUILD_FAILED
        yield running


def _shows_secret(message: object) -> bool:
    return SECRET in str(message)


@pytest.mark.parametrize("caller", ["no token", "another author"])
async def test_get_version_hides_the_build_log_and_command_from_others(
    league: LeagueUnderAttack, caller: str
) -> None:
    token = "" if caller == "no token" else league.tokens["mallory"]
    response = await league.version("dave@1", token)
    assert response.version.version_id == "dave@1"
    assert response.version.status == league_pb2.VERSION_STATUS_BUILD_FAILED
    assert response.build_log == ""
    assert response.version.command == "" and response.version.build == ""
    assert not _shows_secret(response), f"{caller} read: {response}"


@pytest.mark.parametrize("caller", ["no token", "another author"])
async def test_list_versions_hides_every_command_and_build_from_others(
    league: LeagueUnderAttack, caller: str
) -> None:
    token = "" if caller == "no token" else league.tokens["mallory"]
    for bot in ("", "dave"):
        request = league_pb2.ListVersionsRequest(bot_name=bot)
        response = await league.call("ListVersions", request, token)
        assert [v.version_id for v in response.versions] == ["dave@1"]
        assert not _shows_secret(response), f"{caller} read: {response}"


@pytest.mark.parametrize("caller", ["author", "organiser"])
async def test_the_author_and_the_organiser_read_all_of_it(
    league: LeagueUnderAttack, caller: str
) -> None:
    token = league.tokens["dave"] if caller == "author" else ADMIN
    response = await league.version("dave@1", token)
    assert response.version.command == COMMAND and response.version.build == BUILD
    assert f"the last line names {SECRET}" in response.build_log
    assert response.version.detail == "build exited with code 4"
    listed = await league.call("ListVersions", league_pb2.ListVersionsRequest(), token)
    assert [v.command for v in listed.versions] == [COMMAND]


async def test_the_cli_without_a_token_prints_no_build_log(league: LeagueUnderAttack) -> None:
    rookery = [sys.executable, "-m", "rookery.cli.main", "league"]
    target = league.running.server.target
    for command in (["version", "dave@1"], ["versions"]):
        shown = await _run([*rookery, *command, "--server", target], token="")
        assert "dave@1" in shown and not _shows_secret(shown), shown
    own = await _run([*rookery, "version", "dave@1", "--server", target], league.tokens["dave"])
    assert f"the last line names {SECRET}" in own


async def _run(command: list[str], token: str) -> str:
    import asyncio

    def run() -> str:
        env = {"PATH": "/usr/bin:/bin", "ROOKERY_TOKEN": token}
        done = subprocess.run(
            command, capture_output=True, text=True, timeout=60, env=env, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout + done.stderr

    return await asyncio.to_thread(run)
