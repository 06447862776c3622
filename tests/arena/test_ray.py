"""The Ray backend: the same games as the local backend, and no game lost when a worker dies."""

from __future__ import annotations

import asyncio
import dataclasses
import importlib
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from rookery.arena.config import BotSpec, Format, TournamentConfig
from rookery.arena.errors import ArenaConfigError
from rookery.arena.records import GameRow, RunStore
from rookery.arena.run import LOOPBACK_ONLY, Schedule, TournamentOptions, TournamentRunner
from rookery.arena.run._ray_backend import chunk_games
from rookery.engine import Ruleset
from rookery.wire.replay import read_replay

BotFactory = Callable[..., BotSpec]
ConfigFactory = Callable[..., TournamentConfig]

HERE = Path(__file__).parent
LOCAL = TournamentOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0)
RAY = TournamentOptions(
    connect_timeout_s=30.0,
    join_timeout_s=20.0,
    game_timeout_s=120.0,
    backend="ray",
    ray_games_per_task=2,
)


@pytest.fixture(scope="module", autouse=True)
def local_ray() -> Iterator[None]:
    """One local Ray of two workers for the whole module, every server of it on loopback."""
    os.environ[LOOPBACK_ONLY] = "0"  # read when Ray is imported
    ray = importlib.import_module("ray")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        yield
    finally:
        ray.shutdown()


@pytest.fixture
def deterministic_config(
    make_sdk_bot: BotFactory, make_config: ConfigFactory
) -> Callable[..., TournamentConfig]:
    """Bots whose every action is a function of the observation, so runs can be compared; one
    writes notes and raises on every hand's third trick (its SDK's fallbacks are marked)."""
    bots = (
        make_sdk_bot("random", "SeededRandomBot"),
        make_sdk_bot("greedy", "SeededGreedyBot"),
        make_sdk_bot("flaky", "FlakyNotingBot"),
    )
    return lambda **changes: make_config(bots, seed=11, **changes)


def games(run_dir: Path) -> list[GameRow]:
    with RunStore(run_dir) as store:
        return store.games("test")


def moves(run_dir: Path, row: GameRow) -> list[tuple[object, ...]]:
    """Every hand's deal and its actions (seat, action, note, fallback), without timings."""
    replay = read_replay(run_dir / row.replay_path)
    return [
        (hand.deal.SerializeToString(deterministic=True),)
        + tuple(
            (
                a.seat,
                a.action.SerializeToString(deterministic=True),
                a.note.SerializeToString(deterministic=True),
                a.fallback.reason,
            )
            for a in hand.actions
        )
        for hand in replay.hands
    ]


def outcome(row: GameRow) -> tuple[object, ...]:
    return (row.index, row.group, row.seed, row.seat_bots, row.winners, row.scores,
            row.ranks, row.termination, row.hands_played)  # fmt: skip


async def test_a_round_robin_on_two_ray_workers_matches_the_local_backend(
    tmp_path: Path, deterministic_config: Callable[..., TournamentConfig]
) -> None:
    config = deterministic_config()
    local = await TournamentRunner(config, tmp_path / "local", options=LOCAL).run()
    remote = await TournamentRunner(config, tmp_path / "ray", options=RAY).run()
    assert (local.recorded, remote.recorded, remote.played) == (6, 6, 6)
    local_games, ray_games = games(tmp_path / "local"), games(tmp_path / "ray")
    assert [outcome(g) for g in ray_games] == [outcome(g) for g in local_games]
    for here, there in zip(local_games, ray_games, strict=True):
        assert moves(tmp_path / "ray", there) == moves(tmp_path / "local", here)
        assert there.bot_stats.keys() == here.bot_stats.keys()
        assert {b: s.fallbacks for b, s in there.bot_stats.items()} == {
            b: s.fallbacks for b, s in here.bot_stats.items()
        }
    with RunStore(tmp_path / "local") as store:
        local_incidents = store.move_incidents("test", kind="fallback")
    with RunStore(tmp_path / "ray") as store:
        ray_incidents = store.move_incidents("test", kind="fallback")
    assert local_incidents and ray_incidents == local_incidents


def _running_chunk_workers() -> list[int]:
    """Ray worker processes executing ``play_chunk`` now (their title names the task)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            title = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if title.startswith(b"ray::play_chunk"):
            pids.append(int(entry.name))
    return pids


async def test_a_worker_killed_mid_task_is_retried_without_losing_or_doubling_games(
    tmp_path: Path, deterministic_config: Callable[..., TournamentConfig]
) -> None:
    config = deterministic_config(games=4)
    options = dataclasses.replace(RAY, ray_games_per_task=4)
    run = asyncio.create_task(TournamentRunner(config, tmp_path, options=options).run())
    killed = None
    async with asyncio.timeout(60):
        while killed is None:
            await asyncio.sleep(0.1)
            assert not run.done(), "the run ended before a worker could be killed"
            workers = _running_chunk_workers()
            if workers:
                killed = workers[0]
                os.kill(killed, signal.SIGKILL)
    result = await asyncio.wait_for(run, 120)
    assert killed is not None
    assert (result.recorded, result.total) == (12, 12)
    rows = games(tmp_path)
    assert [row.index for row in rows] == list(range(12))
    replays = sorted(p.name for p in (tmp_path / "replays").glob("*.jsonl.gz"))
    assert replays == [f"{i:06d}.jsonl.gz" for i in range(12)]


async def test_remote_bots_are_refused_by_the_ray_backend(
    tmp_path: Path, make_sdk_bot: BotFactory, make_config: ConfigFactory
) -> None:
    config = make_config((make_sdk_bot("a", "RandomBot"), BotSpec("b", remote=True)))
    with pytest.raises(ArenaConfigError, match="launched bots only"):
        await TournamentRunner(config, tmp_path, options=RAY).run()


def test_chunks_hold_whole_duplicate_groups() -> None:
    schedule = Schedule(["a", "b", "c"], Ruleset.preset("standard"), Format.ROUND_ROBIN, 4)
    chunks = list(chunk_games(schedule.games(), schedule.group_size, 3))
    assert [len(chunk) for chunk in chunks] == [4, 4, 4]
    assert all(len({g.group for g in chunk}) == 2 for chunk in chunks)
    assert [g.index for chunk in chunks for g in chunk] == list(range(12))


def test_arena_run_on_its_own_ray_runs_bot_commands_in_the_shipped_working_dir(
    tmp_path: Path,
) -> None:
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "house_bots.py").write_text((HERE / "sdk_bots.py").read_text(), encoding="utf-8")
    relative = f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run house_bots.py"
    out = tmp_path / "run"
    finished = subprocess.run(
        [sys.executable, "-m", "rookery.cli.main", "arena", "run",
         "--bot", f"random={relative}:SeededRandomBot",
         "--bot", f"greedy={relative}:SeededGreedyBot",
         "--target", "100", "--games", "2", "--concurrency", "2", "--out", str(out),
         "--no-report", "--backend", "ray", "--ray-working-dir", str(shipped)],
        capture_output=True, text=True, timeout=150, cwd=tmp_path,
    )  # fmt: skip
    assert finished.returncode == 0, finished.stdout + finished.stderr
    with RunStore(out) as store:
        assert store.count_games("arena") == 2
