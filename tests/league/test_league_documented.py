"""The season of docs/league.md as printed: ``rookery league serve --league league/league.sqlite``
(a path relative to the organiser's folder) with the sandbox on, a Python version submitted as
an archive that builds and qualifies there, and versions bigger than a gRPC message submitted
with ``rookery league submit ./folder`` as the docs print it (sent in chunks): a Python one, a
TypeScript one with its node_modules, compiled by its build step in the sandbox, and a Go one
with its modules vendored, built with ``-mod=vendor`` and no network there, which qualifies and
plays rated pairs."""

from __future__ import annotations

import contextlib
import fcntl
import os
import random
import re
import shlex
import shutil
import sqlite3
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from league_helpers import ADMIN, MIX_COMMAND, ROOKERY, LeagueProcess, mix_folder
from rookery.arena.launch import probe
from rookery.arena.league.submissions import pack_folder
from rookery.v1 import league_pb2

DOC = Path(__file__).parents[2] / "docs" / "league.md"

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


def season_line() -> str:
    """docs/league.md's line that opens a season (step 3 of "Running a season")."""
    lines = [
        line.strip()
        for line in DOC.read_text().splitlines()
        if line.strip().startswith("rookery league season ")
    ]
    assert len(lines) == 1, f"docs/league.md should print one season line: {lines}"
    return lines[0]


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
        # The season opens with docs/league.md's own line, run as printed.
        line = season_line()
        opened = subprocess.run(
            ["bash", "-c", line.replace("rookery ", f"{shlex.quote(str(ROOKERY))} ", 1)],
            cwd=league.root, env={**os.environ, "ADMIN": ADMIN, "ROOKERY_SERVER": league.target},
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert opened.returncode == 0, f"{line}\n{opened.stdout}{opened.stderr}"
        assert opened.stdout.startswith("season spring (id "), opened.stdout
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
    assert "\nbeta@1 submitted" in done.stdout, done.stdout
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


REPO = Path(__file__).resolve().parents[2]
TS_KIT = REPO / "clients" / "typescript"
#: The kit's packages a bot's build and run do not need (code generators, formatters).
TS_UNNEEDED = ("dprint-node", "ts-proto", "ts-poet", "ts-proto-descriptors", "case-anything")
TS_BOT = """import { firstLegal, runMain } from "rookery-bot-kit";

runMain(() => ({ act: (request) => firstLegal(request.legalActions!) }), process.argv.slice(2), {
  version: "1.0.0",
}).then((code) => process.exit(code));
"""
TS_CONFIG = """{
  "compilerOptions": {
    "target": "ES2022", "module": "commonjs", "moduleResolution": "node", "lib": ["ES2022"],
    "types": ["node"], "outDir": "dist", "rootDir": "src", "strict": true, "skipLibCheck": true
  },
  "include": ["src/**/*.ts"]
}
"""


def _built_typescript_kit() -> None:
    """The kit's own build.sh (cached by the script), under the lock the kit tests hold."""
    with (TS_KIT / ".build.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        done = subprocess.run(
            ["nice", "-n", "10", str(TS_KIT / "build.sh")],
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _typescript_bot(folder: Path) -> None:
    """A TypeScript bot's project as an author ships it: its source, and node_modules with the
    kit (copied, not linked: archives carry no links), its packages and the compiler."""
    modules = folder / "node_modules"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "myBot.ts").write_text(TS_BOT)
    (folder / "tsconfig.json").write_text(TS_CONFIG)
    (folder / "package.json").write_text('{"name": "mybot", "version": "1.0.0"}\n')
    kit = modules / "rookery-bot-kit"
    kit.mkdir(parents=True)
    shutil.copy(TS_KIT / "package.json", kit / "package.json")
    shutil.copytree(TS_KIT / "dist" / "src", kit / "dist" / "src")
    skip = shutil.ignore_patterns(*TS_UNNEEDED, "buf", "buf-*", ".bin")
    shutil.copytree(TS_KIT / "node_modules", kit / "node_modules", ignore=skip)
    for package in ("typescript", "@types", "undici-types"):
        shutil.copytree(TS_KIT / "node_modules" / package, modules / package)


@pytest.mark.timeout(900)  # on a fresh machine the kit's build.sh runs npm ci and tsc first
def test_a_typescript_version_with_its_node_modules_builds_and_qualifies_in_the_sandbox(
    documented: LeagueProcess,
) -> None:
    _built_typescript_kit()
    token = documented.add_bot("gamma")
    _typescript_bot(documented.root / "gamma-bot")
    done = subprocess.run(
        [
            str(ROOKERY), "league", "submit", "gamma", "./gamma-bot",
            "--command", "node dist/myBot.js",
            "--build", "node node_modules/typescript/bin/tsc -p .",
            "--server", documented.target,
        ],
        cwd=documented.root, env={**os.environ, "ROOKERY_TOKEN": token},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    size = int(done.stdout.split("sent ")[1].split()[0])
    assert size > 1024 * 1024, f"{size} bytes: the archive is bigger than a message"
    status = wait_settled(documented, "gamma@1", timeout_s=400)
    detail = {v.version_id: v.detail for v in documented.versions()}["gamma@1"]
    log = (documented.root / "league" / "logs" / "gamma@1.build.log").read_text()[-2000:]
    assert status == league_pb2.VERSION_STATUS_ACTIVE, f"{detail}\n{log}"
    built = documented.root / "league" / "versions" / "gamma@1" / "dist" / "myBot.js"
    assert "firstLegal" in built.read_text(), "compiled by its build step"


GO_KIT = REPO / "clients" / "go"
GO_BOT = """package main

import (
	"context"

	pb "rookery/kit/gen/rookery/v1"
	"rookery/kit/rookery"
)

type firstLegal struct{}

func (firstLegal) Act(
	_ context.Context, req *pb.ActionRequest, _ *rookery.TableInfo,
) (*pb.Action, error) {
	return rookery.FirstLegal(req.GetLegalActions()), nil
}

func main() {
	rookery.BotVersion = "1.0.0"
	rookery.Main(func(*rookery.TableInfo) rookery.Bot { return firstLegal{} })
}
"""


def _built_go_kit() -> None:
    """The kit's own build.sh (cached by the script; it fills the machine's Go module cache with
    the kit's modules and writes gen/), under the lock the kit tests hold."""
    with (GO_KIT / ".build.lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        done = subprocess.run(
            ["nice", "-n", "10", str(GO_KIT / "build.sh")],
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _go_readme_blocks() -> tuple[str, list[str]]:
    """The commands of clients/go/README.md's "Vendored, for a league": the vendoring block
    (run as printed in the bot's folder) and the submission's line (its argv)."""
    text = (GO_KIT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Vendored, for a league\n", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"^```\w*\n(.*?)^```$", section, re.MULTILINE | re.DOTALL)
    assert len(blocks) == 2, blocks
    return blocks[0], shlex.split(blocks[1])


def _vendored_go_bot(author: Path, commands: str) -> Path:
    """A Go bot in a module of its own as an author ships it, made by the README's commands:
    the kit through a relative ``replace`` to the author's checkout (``../rookery``), every
    module vendored with ``go mod vendor`` from the machine's module cache (the kit's build
    filled it). The checkout stays on the author's side: the league sees only the folder."""
    author.mkdir()
    (author / "rookery").symlink_to(REPO, target_is_directory=True)
    folder = author / "mybot"
    folder.mkdir()
    (folder / "main.go").write_text(GO_BOT)
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", commands], cwd=folder,
        env={**os.environ, "GOFLAGS": "-mod=mod"}, capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, f"{commands}\n{done.stdout}{done.stderr}"
    return folder


def _recorded_games(league: LeagueProcess, version_id: str) -> list[tuple[str, str, int]]:
    """The stored games of ``version_id``'s committed pairs: (game, replay file, rated)."""
    path = league.root / "league" / "league.sqlite"
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
        rows = db.execute(
            "SELECT g.game_id, g.replay_path, p.rated FROM games g JOIN pairs p USING (pair_id)"
            " WHERE (p.a = ? OR p.b = ?) AND p.void = 0",
            (version_id, version_id),
        ).fetchall()
    return [(str(game), str(replay), int(rated)) for game, replay, rated in rows]


@pytest.mark.timeout(900)  # grpc compiled cold in the sandbox, a qualifying pair, a rated pair
def test_a_vendored_go_version_over_a_message_builds_offline_qualifies_and_plays_rated_pairs(
    documented: LeagueProcess,
) -> None:
    _built_go_kit()
    authors = {"alpha", "beta", "gamma"}  # the versions the tests above submitted
    active = league_pb2.VERSION_STATUS_ACTIVE
    if not any(v.status == active and v.bot_name in authors for v in documented.versions()):
        opponent = documented.add_bot("omega")  # alone (-k), the Go version needs an opponent
        submit(documented, "omega", opponent, mix_folder(documented.root / "sources", "omega", 1))
        assert wait_settled(documented, "omega@1") == league_pb2.VERSION_STATUS_ACTIVE
    commands, (variable, rookery, *submit_line) = _go_readme_blocks()
    assert variable.startswith("ROOKERY_TOKEN=") and rookery == "rookery", submit_line
    assert submit_line[:3] == ["league", "submit", "mybot"], submit_line
    assert "-mod=vendor" in submit_line[submit_line.index("--build") + 1], submit_line
    token = documented.add_bot("mybot")
    _vendored_go_bot(documented.root / "author", commands)
    done = subprocess.run(
        [str(ROOKERY), *submit_line, "--server", documented.target],
        cwd=documented.root / "author", env={**os.environ, "ROOKERY_TOKEN": token},
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    size, chunks = (int(word) for word in done.stdout.split("sent ")[1].split()[:4:3])
    assert size > 1024 * 1024, f"{size} bytes: the vendored archive is bigger than a message"
    assert chunks == -(-size // (256 * 1024)) > 4, f"{chunks} chunks of SubmitVersionUpload"
    status = wait_settled(documented, "mybot@1", timeout_s=600)
    detail = {v.version_id: v.detail for v in documented.versions()}["mybot@1"]
    log = (documented.root / "league" / "logs" / "mybot@1.build.log").read_text()[-2000:]
    assert status == league_pb2.VERSION_STATUS_ACTIVE, f"{detail}\n{log}"
    stored = documented.root / "league" / "versions" / "mybot@1"
    assert (stored / "vendor" / "modules.txt").is_file() and (stored / "mybot").is_file()
    assert not (stored.parent / "rookery").exists(), "go.mod's replace names no folder here"
    deadline = time.monotonic() + 300
    while not [game for game in _recorded_games(documented, "mybot@1") if game[2]]:
        assert time.monotonic() < deadline, "no rated pair of the Go version in 300 s"
        time.sleep(0.5)
    games = _recorded_games(documented, "mybot@1")
    assert len([g for g in games if not g[2]]) >= 2, "its qualifying pair's two games"
    assert len([g for g in games if g[2]]) >= 2, "a rated pair: both its games"
    for _, replay, _ in games:
        assert (documented.root / "league" / replay).is_file() or Path(replay).is_file(), replay
    # The board counts a pair's games once the ratings are refitted after its commit.
    board_deadline = time.monotonic() + 120
    while (rated := {v.version_id: v.games for v in documented.versions()}["mybot@1"]) < 2:
        assert time.monotonic() < board_deadline, f"{rated} rated games on the board"
        time.sleep(0.5)
