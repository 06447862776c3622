"""A tournament created over ArenaService on a running `rookery serve` sandboxes its bots.

`rookery serve` listens on a Unix socket of its own besides its port, and the tournaments its
ArenaService creates launch their bots in the arena's sandbox through it, as `rookery arena run`
does. The attack: a launched bot that looks outside its folder at its first move (the
organiser's home, the server's tournament store, an older run's SQLite file, the other bot's
folder) and reports what it found. Before, these bots ran unconfined and read all of it.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from rookery.engine import Ruleset
from rookery.v1 import arena_service_pb2 as api
from rookery.v1 import arena_service_pb2_grpc, table_pb2
from rookery.wire.convert import ruleset_to_proto

HERE = Path(__file__).parent
CLI = [sys.executable, "-m", "rookery.cli.main"]
SECRETS = {
    "home secret": "SECRET-OF-THE-HOME",
    "older run's database": "SECRET-OF-AN-OLDER-RUN",
    "other bot's file": "SECRET-OF-THE-OTHER-BOT",
}


def _bot_folder(root: Path, name: str) -> Path:
    folder = root / "bots" / name
    folder.mkdir(parents=True)
    folder.chmod(0o755)
    shutil.copy(HERE / "serve_looker_bot.py", folder / "bot.py")
    return folder


def _looks(root: Path) -> dict[str, str]:
    """The secrets on the host, as paths the looker tries."""
    home = root / "home"
    home.mkdir()
    (home / "id_ed25519").write_text(SECRETS["home secret"])
    older = root / "store" / "older-run-0123abcd"
    older.mkdir(parents=True)
    (older / "arena.sqlite").write_text(SECRETS["older run's database"])
    (root / "bots" / "plain" / "notes.txt").write_text(SECRETS["other bot's file"])
    return {
        "home secret": str(home / "id_ed25519"),
        "older run's database": str(older / "arena.sqlite"),
        "other bot's file": str(root / "bots" / "plain" / "notes.txt"),
        "the store": str(root / "store"),
        "the home": str(home),
    }


@pytest.fixture(params=["open", "token"])
def looker_log(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Plays a tournament of the looker and a plain bot on `rookery serve` (open mode, or token
    mode with a registry and an admin token); its log."""
    root = tmp_path
    token_mode = request.param == "token"
    mode = ["--db", str(root / "bots.db"), "--admin-token", "admin-secret"] if token_mode else []
    admin = (("authorization", "Bearer admin-secret"),) if token_mode else ()
    looker, plain = _bot_folder(root, "looker"), _bot_folder(root, "plain")
    (looker / "looks.json").write_text(json.dumps(_looks(root)))
    port_file = root / "port"
    env = {**os.environ, "ROOKERY_ARENA_DIR": str(root / "store"), "HOME": str(root / "home")}
    with (root / "serve.log").open("wb") as log:
        serve = subprocess.Popen(
            [*CLI, "serve", "--address", "127.0.0.1:0", "--web-address", "off",
             "--port-file", str(port_file), "--log-level", "info", "--log-format", "console",
             *mode],
            stdout=log,
            stderr=log,
            env=env,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not port_file.exists():
            assert serve.poll() is None, (root / "serve.log").read_text()
            assert time.monotonic() < deadline, "rookery serve did not start within 60 s"
            time.sleep(0.05)
        target = f"127.0.0.1:{port_file.read_text().strip()}"
        spec = api.TournamentSpec(
            name="looking",
            bots=[
                api.TournamentBot(name="looker", command=_command(looker, "Looker")),
                api.TournamentBot(name="plain", command=_command(plain, "Plain")),
            ],
            ruleset=ruleset_to_proto(Ruleset.preset("standard").replace(max_hands=1)),
            games=2,
            concurrency=1,
            seed=5,
            time_control=table_pb2.TimeControl(action_ms=5000, strike_limit=3, grace_ms=500),
        )
        with grpc.insecure_channel(target) as channel:
            stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
            create = api.CreateTournamentRequest(spec=spec)
            created = stub.CreateTournament(create, timeout=10, metadata=admin)
            tournament_id = created.tournament.tournament_id
            info = _finished(stub, tournament_id, root)
            standings = stub.GetStandings(
                api.GetStandingsRequest(tournament_id=tournament_id), timeout=10
            ).standings
        assert info.status == api.TOURNAMENT_STATUS_FINISHED, (root / "serve.log").read_text()
        assert info.games_done == info.games_total == 2
        for standing in standings:
            assert standing.crashes == standing.timeouts == standing.illegal_replies == 0
        yield (root / "store" / tournament_id / "logs" / "looker.log").read_text()
    finally:
        serve.terminate()
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()


def _command(folder: Path, cls: str) -> str:
    return shlex.join([*CLI, "bot", "run", f"{folder / 'bot.py'}:{cls}"])


def _finished(
    stub: arena_service_pb2_grpc.ArenaServiceStub, tournament_id: str, root: Path
) -> api.TournamentInfo:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        request = api.GetTournamentRequest(tournament_id=tournament_id)
        info: api.TournamentInfo = stub.GetTournament(request, timeout=10).tournament
        if info.status != api.TOURNAMENT_STATUS_RUNNING:
            return info
        time.sleep(0.2)
    raise AssertionError(f"still running after 120 s:\n{(root / 'serve.log').read_text()}")


def _results(log: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for line in log.splitlines():
        if line.startswith("LOOK "):
            what, _, result = line[len("LOOK ") :].partition(": ")
            found.setdefault(what, result)
    return found


def test_a_bot_of_a_served_tournament_sees_its_folder_and_nothing_else(looker_log: str) -> None:
    results = _results(looker_log)
    assert results.get("done") == "ok", looker_log
    assert results["own folder"].startswith("ok") and "bot.py" in results["own folder"]
    seen = {what: result for what, result in results.items() if what not in ("own folder",)}
    for what in ("home secret", "older run's database", "other bot's file", "the store"):
        assert seen[what].startswith("refused"), f"the looker read {what}: {seen[what]}"
    for secret in SECRETS.values():
        assert secret not in looker_log
    assert int(results["uid"]) != os.getuid(), "the bot ran under the server's own user id"
