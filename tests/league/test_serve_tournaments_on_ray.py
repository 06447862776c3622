"""A tournament created through ArenaService on ``rookery serve`` whose server option
(``ROOKERY_ARENA_BACKEND=ray``, ``ROOKERY_ARENA_RAY_ADDRESS``) plays its games as Ray tasks on a
cluster, where the launched bots run in the worker's sandbox (the default, auto).

The cluster is a head that runs no task and two worker nodes of one CPU: the tournament's
configuration goes to the tasks by value (through Ray's object store, a worker on the other node
could not fetch it here: OwnerDiedError)."""

from __future__ import annotations

import shlex
import subprocess
import sys
import time
from pathlib import Path

import grpc
import pytest
from ray_cluster import LoopbackCluster, ray_environment, running_task
from rookery.engine import Ruleset
from rookery.v1 import arena_service_pb2 as api
from rookery.v1 import arena_service_pb2_grpc, table_pb2
from rookery.wire.convert import ruleset_to_proto

CLI = [sys.executable, "-m", "rookery.cli.main"]


@pytest.mark.alone
@pytest.mark.timeout(400)
def test_a_tournament_created_on_rookery_serve_plays_on_the_ray_cluster(tmp_path: Path) -> None:
    cluster = LoopbackCluster()
    server: subprocess.Popen[bytes] | None = None
    try:
        cluster.start(nodes=2, head_cpus=0)
        env = ray_environment() | {
            "ROOKERY_ARENA_DIR": str(tmp_path / "arena"),
            "ROOKERY_ARENA_BACKEND": "ray",
            "ROOKERY_ARENA_RAY_ADDRESS": cluster.address,
        }
        port_file = tmp_path / "port"
        with (tmp_path / "serve.log").open("wb") as log:
            server = subprocess.Popen(
                [*CLI, "serve", "--address", "127.0.0.1:0", "--open", "--port-file",
                 str(port_file), "--log-level", "warning"],
                stdout=log, stderr=log, env=env,
            )  # fmt: skip
        deadline = time.monotonic() + 60
        while not port_file.exists():
            assert server.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
        target = f"127.0.0.1:{port_file.read_text().strip()}"
        bots = [
            api.TournamentBot(
                name=name,
                command=shlex.join([*CLI, "bot", "run", f"rookery.client.bots.{path}"]),
            )
            for name, path in (
                ("random", "random_bot:RandomBot"),
                ("heuristic", "heuristic:HeuristicBot"),
            )
        ]
        spec = api.TournamentSpec(
            name="on ray",
            bots=bots,
            ruleset=ruleset_to_proto(Ruleset.preset("standard").replace(target=100)),
            games=4,
            duplicate=True,
            concurrency=2,
            seed=7,
            time_control=table_pb2.TimeControl(action_ms=2000, strike_limit=3, grace_ms=1000),
        )
        with grpc.insecure_channel(target) as channel:
            stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
            created = stub.CreateTournament(api.CreateTournamentRequest(spec=spec), timeout=120)
            tid = created.tournament.tournament_id
            seen_on: set[str] = set()
            deadline = time.monotonic() + 240
            while True:
                seen_on |= {n for n in cluster.nodes if running_task(n, "play_chunk")}
                info = stub.GetTournament(api.GetTournamentRequest(tournament_id=tid), timeout=10)
                if info.tournament.status != api.TOURNAMENT_STATUS_RUNNING:
                    break
                assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()[-3000:]
                time.sleep(0.02)
        tournament = info.tournament
        assert tournament.status == api.TOURNAMENT_STATUS_FINISHED, (
            tmp_path / "serve.log"
        ).read_text()[-3000:]
        assert tournament.games_done == tournament.games_total == 4
        # Two tasks of two games, one on each node (one CPU each): both fetched the config.
        assert seen_on == set(cluster.nodes), f"Ray tasks seen on {sorted(seen_on)}"
    finally:
        if server is not None and server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(timeout=10)
        cluster.stop()
