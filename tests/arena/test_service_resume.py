"""A tournament on `rookery serve` survives a SIGKILL of the server: the next server resumes it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
from rookery.arena.records import RunStore
from rookery.engine import Ruleset
from rookery.v1 import arena_service_pb2 as api
from rookery.v1 import arena_service_pb2_grpc, table_pb2
from rookery.wire.convert import ruleset_to_proto

BOTS = Path(__file__).parent / "sdk_bots.py"
CLI = [sys.executable, "-m", "rookery.cli.main"]


def _port(port_file: Path, process: subprocess.Popen[bytes]) -> int:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if port_file.exists() and port_file.read_text().strip():
            return int(port_file.read_text())
        assert process.poll() is None, "rookery serve exited at start"
        time.sleep(0.05)
    raise AssertionError("rookery serve did not write its port within 30 s")


@contextlib.contextmanager
def _processes() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    try:
        yield started
    finally:
        for process in reversed(started):
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)


def _tournament(stub: arena_service_pb2_grpc.ArenaServiceStub, tid: str) -> api.TournamentInfo:
    reply = stub.GetTournament(api.GetTournamentRequest(tournament_id=tid), timeout=10)
    info: api.TournamentInfo = reply.tournament
    return info


def test_a_tournament_cut_by_a_server_crash_resumes_on_the_next_server(tmp_path: Path) -> None:
    store = tmp_path / "arena"
    env = {**os.environ, "ROOKERY_ARENA_DIR": str(store)}
    with _processes() as processes:

        def serve(port: int, name: str) -> tuple[subprocess.Popen[bytes], int]:
            port_file = tmp_path / f"{name}.port"
            log = (tmp_path / f"{name}.log").open("wb")
            argv = [*CLI, "serve", "--address", f"127.0.0.1:{port}", "--open", "--web-address",
                    "off", "--port-file", str(port_file), "--log-level", "warning"]  # fmt: skip
            process = subprocess.Popen(argv, stdout=log, stderr=log, env=env)
            processes.append(process)
            return process, _port(port_file, process)

        first, port = serve(0, "first")
        target = f"127.0.0.1:{port}"
        for name in ("random", "greedy"):
            log = (tmp_path / f"{name}.log").open("wb")
            argv = [*CLI, "bot", "run", f"{BOTS}:{name.capitalize()}Bot", "--server", target,
                    "--name", name, "--sessions", "2", "--max-tables", "2"]  # fmt: skip
            processes.append(subprocess.Popen(argv, stdout=log, stderr=log, env=env))
        spec = api.TournamentSpec(
            name="crash cup",
            bots=[api.TournamentBot(name="random"), api.TournamentBot(name="greedy")],
            ruleset=ruleset_to_proto(Ruleset.preset("standard").replace(target=100)),
            games=12,
            duplicate=True,
            concurrency=2,
            seed=3,
            time_control=table_pb2.TimeControl(action_ms=1000, grace_ms=500),
        )
        with grpc.insecure_channel(target) as channel:
            stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
            created = stub.CreateTournament(api.CreateTournamentRequest(spec=spec), timeout=10)
            tid = created.tournament.tournament_id
            deadline = time.monotonic() + 90
            while _tournament(stub, tid).games_done < 3:
                assert time.monotonic() < deadline, "no games recorded within 90 s"
                time.sleep(0.1)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
        with RunStore(store / tid) as run:
            recorded_before = {row.index: row.replay_sha256 for row in run.games(tid)}
        assert 3 <= len(recorded_before) < 12

        # The bots reconnect by themselves (same address); the new server resumes the tournament.
        serve(port, "second")
        with grpc.insecure_channel(target) as channel:
            stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
            deadline = time.monotonic() + 120
            while (info := _tournament(stub, tid)).status == api.TOURNAMENT_STATUS_RUNNING:
                assert time.monotonic() < deadline, "the resumed tournament did not finish"
                time.sleep(0.2)
            assert info.status == api.TOURNAMENT_STATUS_FINISHED
            games = stub.ListGames(api.ListGamesRequest(tournament_id=tid), timeout=10).games
    with RunStore(store / tid) as run:
        rows = run.games(tid)
    assert sorted(row.index for row in rows) == list(range(12))
    assert len(games) == 12
    for row in rows:
        if row.index in recorded_before:
            assert row.replay_sha256 == recorded_before[row.index]
        assert (store / tid / "replays").joinpath(Path(row.replay_path).name).exists()
