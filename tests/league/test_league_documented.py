"""The season of docs/league.md as printed: ``rookery league serve --league league/league.sqlite``
(a path relative to the organiser's folder) with the sandbox on, a Python version submitted as
an archive that builds and qualifies there, and one bigger than a gRPC message submitted with
``rookery league submit ./folder`` as the docs print it (sent in chunks)."""

from __future__ import annotations

import os
import random
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from league_helpers import ADMIN, MIX_COMMAND, ROOKERY, LeagueProcess, mix_folder
from rookery.arena.league.submissions import pack_folder
from rookery.arena.sandbox import probe
from rookery.v1 import league_pb2

SERVE_ARGS = [
    "--sandbox", "on", "--target", "100", "--max-hands", "2", "--concurrency", "2",
    "--min-pairs", "1", "--bootstrap", "20", "--grace-ms", "1000",
    # Sandboxed bots start afresh for every game: on a loaded machine (a load of 17 on two
    # cores failed the default 30 s once) they take longer to join.
    "--join-timeout", "90",
]  # fmt: skip


def wait_settled(league: LeagueProcess, version_id: str, timeout_s: float = 200) -> int:
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


def test_a_submission_bigger_than_a_message_is_sent_in_chunks_by_the_cli(
    documented: LeagueProcess,
) -> None:
    token = documented.add_bot("beta")
    folder = mix_folder(documented.root, "beta-bot", 0.5)
    (folder / "weights.bin").write_bytes(random.Random(3).randbytes(3 * 1024 * 1024))
    assert len(pack_folder(folder)) > 3 * 1024 * 1024, "incompressible: over the 1 MiB limit"
    done = subprocess.run(
        [
            str(ROOKERY), "league", "submit", "beta", "./beta-bot", "--command", MIX_COMMAND,
            "--build", "wc -c weights.bin > size.txt", "--server", documented.target,
        ],
        cwd=documented.root, env={**os.environ, "ROOKERY_TOKEN": token},
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("beta@1 submitted"), done.stdout
    status = wait_settled(documented, "beta@1")
    detail = {v.version_id: v.detail for v in documented.versions()}["beta@1"]
    assert status == league_pb2.VERSION_STATUS_ACTIVE, detail
    built = documented.root / "league" / "versions" / "beta@1" / "size.txt"
    assert built.read_text().split()[0] == str(3 * 1024 * 1024)


@pytest.mark.parametrize(
    "how", ["nothing", "--config", "ROOKERY_MAX_MESSAGE_BYTES", "--max-message-mb"]
)
def test_league_serve_takes_the_servers_options_from_a_file_the_environment_or_a_flag(
    league_process: LeagueProcess, how: str
) -> None:
    big = 4 * 1024 * 1024
    league_process.args = ["--sandbox", "off"]
    if how == "--config":
        (league_process.root / "server.toml").write_text(f"max_message_bytes = {big}\n")
        league_process.args += ["--config", "server.toml"]
    elif how == "--max-message-mb":
        league_process.args += ["--max-message-mb", "4"]
    elif how != "nothing":
        league_process.env = {how: str(big)}
    league_process.start()
    deadline = Timestamp()
    deadline.FromSeconds(int(time.time()) + 3600)
    league_process.call(
        "CreateSeason", league_pb2.CreateSeasonRequest(name="s", deadline=deadline), ADMIN
    )
    token = league_process.add_bot("gamma")
    folder = mix_folder(league_process.root, "gamma-bot", 0.5)
    (folder / "weights.bin").write_bytes(random.Random(4).randbytes(2 * 1024 * 1024))
    if how == "nothing":  # the default 1 MiB: such a message is refused (the CLI sends chunks)
        with pytest.raises(grpc.RpcError) as refused:
            submit(league_process, "gamma", token, folder)
        assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        return
    version = submit(league_process, "gamma", token, folder)  # one message of over 2 MiB
    assert version.version_id == "gamma@1"
