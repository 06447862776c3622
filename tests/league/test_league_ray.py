"""A season on a Ray cluster of two worker nodes on loopback: ``rookery league serve --backend
ray``, versions in Python and in JavaScript (Node, the TypeScript kit's build) in the workers'
sandbox, a worker node killed while it plays a pair, then the league process killed and
restarted. Every pair is recorded once, with both its games and their replays, the stored
ratings are a recomputation from the stored games, and no worker outlives the league."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from league_helpers import (
    ADMIN,
    MIX_COMMAND,
    LeagueProcess,
    built_typescript_kit,
    mix_folder,
    node_folder,
)
from ray_cluster import LoopbackCluster, node_processes, ray_environment, running_task
from rookery.arena.league.ray import CACHE_ENV
from rookery.arena.league.store import LeagueStore
from rookery.arena.league.submissions import pack_folder
from rookery.arena.stats import GameScore, fit_bradley_terry
from rookery.v1 import league_pb2

BOOTSTRAP = 20
SERVE_ARGS = [
    "--sandbox", "on", "--target", "100", "--max-hands", "3", "--concurrency", "4",
    "--min-pairs", "1", "--bootstrap", str(BOOTSTRAP), "--grace-ms", "1000",
    "--backend", "ray", "--ray-cpus-per-pair", "1", "--max-message-mb", "8",
]  # fmt: skip


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[LoopbackCluster, list[str]]]:
    """A head that runs no pair and two worker nodes of one CPU each; the versions' cache of
    every node in one folder of this test."""
    running = LoopbackCluster(env={CACHE_ENV: str(tmp_path / "worker-cache")})
    try:
        running.start(nodes=2)
        yield running, running.nodes
    finally:
        running.stop()


def _wait(
    what: str,
    check: Callable[[], bool],
    timeout_s: float,
    interval_s: float = 0.2,
    explain: Callable[[], str] = str,
) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s:g} s waiting for {what}\n{explain()}")
        time.sleep(interval_s)


def _title(pid: int) -> str:
    """A process's title (Ray titles an actor's process ``ray::Class`` and ``ray::Class.method``
    while it runs one)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
    except OSError:
        return ""


def _playing(marker: str, workers: list[int]) -> bool:
    """Whether a league worker of the node ``marker`` is playing a pair now (its workers'
    processes are found once, then only they are read: fast enough to see a short pair)."""
    if not workers:
        workers += [p for p in node_processes(marker) if _title(p).startswith("ray::PairWorker")]
    return any(_title(pid).startswith("ray::PairWorker.play") for pid in workers)


def _explain(league: LeagueProcess) -> str:
    """The versions' states, the league's log and the versions' runtime logs (their ends)."""
    lines = [f"{v.version_id}: {v.status} {v.detail}" for v in league.versions()]
    lines.append((league.root / "server.log").read_text()[-3000:])
    for path in sorted((league.root / "league" / "logs").glob("*")):
        lines.append(f"--- {path.name}\n{path.read_text(errors='replace')[-1500:]}")
    return "\n".join(lines)


def _count(db: Path, sql: str) -> int:
    with sqlite3.connect(db) as connection:
        return int(connection.execute(sql).fetchone()[0])


def _rated(db: Path) -> int:
    return _count(db, "SELECT COUNT(*) FROM pairs WHERE kind = 'rated'")


@pytest.mark.alone
@pytest.mark.timeout(600)
def test_a_season_on_two_ray_nodes_survives_a_lost_node_and_a_killed_league(
    cluster: tuple[LoopbackCluster, list[str]], league_process: LeagueProcess, tmp_path: Path
) -> None:
    ray_cluster, nodes = cluster
    built_typescript_kit()
    league = league_process
    league.args = [*SERVE_ARGS, "--ray-address", ray_cluster.address]
    league.env = ray_environment()
    league.start()
    tokens = {name: league.add_bot(name) for name in ("alice", "bob", "carol")}
    deadline = Timestamp()
    deadline.FromSeconds(int(time.time()) + 3600)
    league.call("CreateSeason", league_pb2.CreateSeasonRequest(name="s", deadline=deadline), ADMIN)
    sources = tmp_path / "sources"
    submissions = [
        ("alice", mix_folder(sources, "alice", 1.0), MIX_COMMAND),
        ("bob", mix_folder(sources, "bob", 0.0), MIX_COMMAND),
        ("carol", node_folder(sources / "carol"), "node bot.js"),
    ]
    for bot, folder, command in submissions:
        league.call(
            "SubmitVersion",
            league_pb2.SubmitVersionRequest(
                bot_name=bot, command=command, archive=pack_folder(folder)
            ),
            tokens[bot],
        )
    active = league_pb2.VERSION_STATUS_ACTIVE
    _wait(
        "the three versions to qualify on the cluster",
        lambda: sum(v.status == active for v in league.versions()) == 3,
        180,
        explain=lambda: _explain(league),
    )
    db = tmp_path / "league" / "league.sqlite"
    _wait("2 rated pairs", lambda: _rated(db) >= 2, 120, explain=lambda: _explain(league))

    # A worker node lost while it plays a pair: the league plays that pair again on the other.
    # (With three versions, one pair is in flight at a time, on the worker with both warm.)
    workers: dict[str, list[int]] = {node: [] for node in nodes}
    playing: list[str] = []

    def a_pair_playing() -> bool:
        playing[:] = [node for node in nodes if _playing(node, workers[node])]
        return bool(playing)

    _wait(
        "a pair on a worker node",
        a_pair_playing,
        60,
        0.01,
        explain=lambda: str({n: [_title(pid) for pid in node_processes(n)] for n in nodes}),
    )
    assert ray_cluster.kill_node(playing[0]) > 0
    lost_at = _rated(db)
    _wait("3 more rated pairs on the node left", lambda: _rated(db) >= lost_at + 3, 180)

    # The league process killed (a power cut), then started again on the same cluster.
    league.kill()
    kept = _count(db, "SELECT COUNT(*) FROM pairs")
    league.start()
    _wait(
        "2 more pairs after the restart",
        lambda: _count(db, "SELECT COUNT(*) FROM pairs") >= kept + 2,
        180,
    )
    league.stop()
    # No worker outlives its league: the killed run's were ended by the restarted league, whose
    # own ended with it (else they would linger, idle, holding the cluster's CPUs).
    _wait(
        "the workers to end with the league",
        lambda: not any(running_task(marker, "PairWorker") for marker in nodes),
        30,
    )

    store = LeagueStore(db)
    try:
        season = store.season()
        pairs = store.pairs(season.season_id)
        assert len(pairs) >= kept + 2
        failed = _count(db, "SELECT COUNT(*) FROM incidents WHERE kind = 'pair_failed'")
        assert failed == 0, "a pair failed instead of being played again elsewhere"
        game_ids = [g.game_id for p in pairs for g in p.games]
        assert len(game_ids) == len(set(game_ids)) == 2 * len(pairs), "a pair is not 2 games"
        tags = {g.game_id.rsplit("-", 1)[0] for p in pairs for g in p.games}
        assert len(tags) == len(pairs), "a pair was recorded twice"
        for pair in pairs:
            assert not pair.void, pair
            for game in pair.games:
                replay = tmp_path / "league" / game.replay_path
                assert replay.stat().st_size > 0, game
        languages = {p.a for p in pairs} | {p.b for p in pairs}
        assert {"alice@1", "bob@1", "carol@1"} <= languages

        # The stored ratings are those of the stored games.
        by_seat = {f"{v.bot}.v{v.number}": v.version_id for v in store.versions()}
        games = [
            GameScore(
                tuple(tuple(by_seat.get(s, s) for s in side) for side in game.sides),
                game.ranks,
                pair.pair_id,
            )
            for pair in pairs
            if pair.rated and not pair.void
            for game in pair.games
        ]
        fit = fit_bradley_terry(
            games, None, bootstrap=BOOTSTRAP, seed=len(games), confidence=season.confidence
        )
        stored = store.latest_ratings(season.season_id)
        assert {r.name: round(r.elo, 6) for r in fit.ratings} == {
            v: round(point.elo, 6) for v, point in stored.items()
        }
    finally:
        store.close()

    # Each version's files reached the workers once, unpacked into the machine's cache by their
    # identity: three versions, three folders.
    cached = [p for p in (tmp_path / "worker-cache").iterdir() if not p.name.startswith(".")]
    assert len(cached) == 3, cached
