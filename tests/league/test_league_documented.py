"""The season of docs/league.md as printed: ``rookery league serve --league league/league.sqlite``
(a path relative to the organiser's folder) with the sandbox on, and a Python version submitted
as an archive that builds and qualifies there."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from league_helpers import ADMIN, MIX_COMMAND, LeagueProcess, mix_folder
from rookery.arena.league.submissions import pack_folder
from rookery.arena.sandbox import probe
from rookery.v1 import league_pb2

SERVE_ARGS = [
    "--sandbox", "on", "--target", "100", "--max-hands", "2", "--concurrency", "2",
    "--min-pairs", "1", "--bootstrap", "20", "--grace-ms", "1000",
]  # fmt: skip


def wait_settled(league: LeagueProcess, version_id: str, timeout_s: float = 90) -> int:
    """The version's status once it has built and qualified (or failed to)."""
    pending = (league_pb2.VERSION_STATUS_BUILDING, league_pb2.VERSION_STATUS_QUALIFYING)
    deadline = time.monotonic() + timeout_s
    while True:
        status = {v.version_id: v.status for v in league.versions()}[version_id]
        if status not in pending:
            return status
        assert time.monotonic() < deadline, f"{version_id} still {status} after {timeout_s:g} s"
        time.sleep(0.2)


@pytest.fixture(scope="module")
def documented(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LeagueProcess]:
    """A sandboxed league started as docs/league.md prints it, with a season open."""
    if not probe().available:
        pytest.fail(f"these tests run the sandbox: {probe().describe()}")
    league = LeagueProcess(tmp_path_factory.mktemp("documented"))
    league.league_path = "league/league.sqlite"
    league.args = SERVE_ARGS
    league.start()
    try:
        deadline = Timestamp()
        deadline.FromSeconds(int(time.time()) + 3600)
        request = league_pb2.CreateSeasonRequest(name="spring", deadline=deadline)
        league.call("CreateSeason", request, ADMIN)
        yield league
    finally:
        league.stop()


def submit(
    league: LeagueProcess, bot: str, token: str, folder: Path, **fields: str
) -> league_pb2.BotVersion:
    request = league_pb2.SubmitVersionRequest(
        bot_name=bot, command=fields.pop("command", MIX_COMMAND), archive=pack_folder(folder),
        **fields,
    )  # fmt: skip
    response = league.call("SubmitVersion", request, token)
    assert isinstance(response, league_pb2.SubmitVersionResponse)
    return response.version


def test_the_relative_league_path_of_the_docs_runs_a_python_version_in_the_sandbox(
    documented: LeagueProcess,
) -> None:
    token = documented.add_bot("alpha")
    folder = mix_folder(documented.root / "sources", "alpha", 1.0)
    version = submit(
        documented, "alpha", token, folder, build="echo built > built.txt", note="first"
    )
    status = wait_settled(documented, version.version_id)
    detail = {v.version_id: v.detail for v in documented.versions()}[version.version_id]
    assert status == league_pb2.VERSION_STATUS_ACTIVE, detail
    stored = documented.root / "league" / "versions" / version.version_id
    assert (stored / "built.txt").read_text() == "built\n", "the build ran in its folder"
