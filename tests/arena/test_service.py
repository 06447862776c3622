"""Tournaments on `rookery serve` over ArenaService, with remote SDK bot processes."""

from __future__ import annotations

import contextlib
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from rookery.engine import Ruleset
from rookery.v1 import arena_service_pb2 as api
from rookery.v1 import arena_service_pb2_grpc, table_pb2
from rookery.wire.convert import ruleset_to_proto

HERE = Path(__file__).parent
BOTS = HERE / "sdk_bots.py"
CLI = [sys.executable, "-m", "rookery.cli.main"]
#: Short games: the first side to 100 points wins.
SHORT = Ruleset.preset("standard").replace(target=100)


@dataclass
class Serve:
    """A running `rookery serve` with its arena store and an ArenaService stub."""

    target: str
    store: Path
    stub: arena_service_pb2_grpc.ArenaServiceStub


def _wait_for_file(path: Path, process: subprocess.Popen[bytes], timeout_s: float) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text().strip()
        assert process.poll() is None, "rookery serve exited at start"
        time.sleep(0.05)
    raise AssertionError(f"{path} did not appear within {timeout_s} s")


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)


@pytest.fixture(scope="module")
def serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    """`rookery serve` on loopback, and two remote SDK bots connected to it by name."""
    root = tmp_path_factory.mktemp("serve")
    port_file = root / "port"
    env = {**os.environ, "ROOKERY_ARENA_DIR": str(root / "arena")}
    processes: list[subprocess.Popen[bytes]] = []
    with contextlib.ExitStack() as stack:

        def start(name: str, argv: list[str]) -> subprocess.Popen[bytes]:
            log = stack.enter_context((root / f"{name}.log").open("wb"))
            process = subprocess.Popen(argv, stdout=log, stderr=log, env=env)
            processes.append(process)
            return process

        try:
            serve_argv = [*CLI, "serve", "--address", "127.0.0.1:0", "--open",
                          "--port-file", str(port_file), "--log-level", "warning"]  # fmt: skip
            server = start("serve", serve_argv)
            target = f"127.0.0.1:{_wait_for_file(port_file, server, 30)}"
            for name, cls in (("random", "RandomBot"), ("greedy", "GreedyBot")):
                bot_argv = [*CLI, "bot", "run", f"{BOTS}:{cls}", "--server", target,
                            "--name", name, "--sessions", "2", "--max-tables", "2"]  # fmt: skip
                start(name, bot_argv)
            with grpc.insecure_channel(target) as channel:
                stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
                yield Serve(target, root / "arena", stub)
        finally:
            for process in reversed(processes):
                _stop(process)


def _spec(name: str, *bots: api.TournamentBot, games: int = 2) -> api.TournamentSpec:
    return api.TournamentSpec(
        name=name,
        bots=bots,
        ruleset=ruleset_to_proto(SHORT),
        games=games,
        duplicate=True,
        concurrency=2,
        seed=7,
        time_control=table_pb2.TimeControl(action_ms=1000, strike_limit=3, grace_ms=500),
    )


def _finished(stub: arena_service_pb2_grpc.ArenaServiceStub, tid: str) -> api.TournamentInfo:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        info = stub.GetTournament(api.GetTournamentRequest(tournament_id=tid), timeout=10)
        tournament: api.TournamentInfo = info.tournament
        if tournament.status != api.TOURNAMENT_STATUS_RUNNING:
            return tournament
        time.sleep(0.2)
    raise AssertionError(f"tournament {tid} still running after 90 s")


@pytest.fixture(scope="module")
def finished_round_robin(serve: Serve) -> api.TournamentInfo:
    """A round-robin of the two remote bots and one launched bot, played to the end."""
    command = shlex.join([*CLI, "bot", "run", f"{BOTS}:GreedyBot"])
    spec = _spec(
        "remote round-robin",
        api.TournamentBot(name="random"),
        api.TournamentBot(name="greedy"),
        api.TournamentBot(name="first", command=command),
    )
    created = serve.stub.CreateTournament(api.CreateTournamentRequest(spec=spec), timeout=10)
    assert created.tournament.status == api.TOURNAMENT_STATUS_RUNNING
    return _finished(serve.stub, created.tournament.tournament_id)


def test_a_tournament_created_over_grpc_plays_every_game(
    finished_round_robin: api.TournamentInfo,
) -> None:
    assert finished_round_robin.status == api.TOURNAMENT_STATUS_FINISHED
    assert finished_round_robin.games_done == finished_round_robin.games_total == 6
    assert finished_round_robin.spec.name == "remote round-robin"


def test_the_standings_list_every_bot_with_a_rating(
    serve: Serve, finished_round_robin: api.TournamentInfo
) -> None:
    request = api.GetStandingsRequest(tournament_id=finished_round_robin.tournament_id)
    standings = serve.stub.GetStandings(request, timeout=30).standings
    assert sorted(s.bot_name for s in standings) == ["first", "greedy", "random"]
    assert all(s.games == 4 and s.wins + s.losses + s.draws == 4 for s in standings)
    assert abs(sum(s.elo for s in standings)) < 1e-6
    assert all(s.elo_error > 0 for s in standings)
    assert [s.elo for s in standings] == sorted((s.elo for s in standings), reverse=True)


def test_list_games_returns_every_recorded_game_newest_first(
    serve: Serve, finished_round_robin: api.TournamentInfo
) -> None:
    tid = finished_round_robin.tournament_id
    games = serve.stub.ListGames(api.ListGamesRequest(tournament_id=tid), timeout=10).games
    assert len(games) == finished_round_robin.games_total
    assert sorted(g.game_id for g in games) == [f"{i:06d}" for i in range(6)]
    pairs: dict[int, set[int]] = {}
    for game in games:
        assert len(game.seats) == 4 and game.result.scores and game.duration_ms > 0
        pairs.setdefault(game.pair_index, set()).add(game.seed)
    assert len(pairs) == 3 and all(len(seeds) == 1 for seeds in pairs.values())
    limited = serve.stub.ListGames(api.ListGamesRequest(tournament_id=tid, limit=2), timeout=10)
    assert [g.game_id for g in limited.games] == [g.game_id for g in games[:2]]


def test_the_run_directory_is_a_regular_arena_run(
    serve: Serve, finished_round_robin: api.TournamentInfo
) -> None:
    run_dir = serve.store / finished_round_robin.tournament_id
    assert len(list((run_dir / "replays").glob("*.jsonl.gz"))) == 6
    report = subprocess.run(
        [*CLI, "arena", "report", str(run_dir), "--quiet"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert report.returncode == 0, report.stderr
    assert (run_dir / "report.html").exists()


def test_list_tournaments_includes_the_tournament(
    serve: Serve, finished_round_robin: api.TournamentInfo
) -> None:
    listed = serve.stub.ListTournaments(api.ListTournamentsRequest(), timeout=10).tournaments
    assert finished_round_robin.tournament_id in [t.tournament_id for t in listed]


def test_an_unknown_tournament_is_not_found(serve: Serve) -> None:
    with pytest.raises(grpc.RpcError) as error:
        serve.stub.GetStandings(api.GetStandingsRequest(tournament_id="nope"), timeout=10)
    assert error.value.code() == grpc.StatusCode.NOT_FOUND
    assert "nope" in (error.value.details() or "")


def test_a_spec_with_one_bot_is_an_invalid_argument_with_the_reason(serve: Serve) -> None:
    spec = _spec("lonely", api.TournamentBot(name="random"))
    with pytest.raises(grpc.RpcError) as error:
        serve.stub.CreateTournament(api.CreateTournamentRequest(spec=spec), timeout=10)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "at least two bots" in (error.value.details() or "")
