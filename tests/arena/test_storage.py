"""The run directory's SQLite file: games, bots, incidents, resumption, atomic replays."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from rookery.arena.errors import StorageError
from rookery.arena.records import GameRow, RunStore, write_bytes_atomically
from rookery.arena.records._storage import BotGameStats, file_sha256, write_atomically


def make_row(store: RunStore, index: int, tournament_id: str = "t") -> GameRow:
    game_id = f"{index:06d}"
    path = store.replay_path(game_id)
    digest = write_atomically(path, lambda p: p.write_bytes(b"replay %d" % index))
    return GameRow(
        tournament_id=tournament_id,
        index=index,
        game_id=game_id,
        group=index // 2,
        round=index // 2,
        seed=123456789 + index,
        seat_bots=("a", "b", "a", "b"),
        side_bots=("a", "b"),
        winners=(0,),
        scores=(310, 120),
        ranks=(0, 1),
        termination="TARGET_REACHED",
        forfeit_seat=-1,
        detail="",
        hands_played=4,
        duration_s=0.5,
        replay_path=str(path.relative_to(store.run_dir)),
        replay_sha256=digest,
        bot_stats={"a": BotGameStats(actions=10, think_ms_total=20.0, think_ms_max=5.0)},
        finished_at=1700000000.0 + index,
    )


@pytest.fixture
def store(tmp_path: Path) -> RunStore:
    store = RunStore(tmp_path / "run")
    store.open_tournament("t", "test", {"k": 1}, "fp", games_total=10)
    return store


def test_a_recorded_game_reads_back_identically(store: RunStore) -> None:
    row = make_row(store, 0)
    store.record_game(row)
    (back,) = store.games("t")
    assert back == row
    assert back.bot_stats["a"].think_ms_mean == 2.0


def test_the_database_uses_wal(store: RunStore) -> None:
    db = sqlite3.connect(store.path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_game_cannot_be_recorded_twice(store: RunStore) -> None:
    store.record_game(make_row(store, 3))
    with pytest.raises(StorageError, match="already recorded"):
        store.record_game(make_row(store, 3))
    assert store.count_games("t") == 1


def test_resuming_the_same_tournament_keeps_its_games(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    assert not store.open_tournament("t", "test", {}, "fp", 10)
    store.record_game(make_row(store, 0))
    store.record_game(make_row(store, 5))
    store.close()
    again = RunStore(tmp_path / "run")
    assert again.open_tournament("t", "test", {}, "fp", 10)
    assert again.recorded_indices("t") == {0, 5}


def test_a_run_directory_refuses_a_different_tournament_of_the_same_name(tmp_path: Path) -> None:
    store = RunStore(tmp_path / "run")
    store.open_tournament("t", "test", {}, "fp-one", 10)
    with pytest.raises(StorageError, match="different configuration"):
        store.open_tournament("t", "test", {}, "fp-two", 10)


def test_a_recorded_game_moves_the_progress_and_the_sprt_in_its_own_transaction(
    store: RunStore,
) -> None:
    store.record_game(make_row(store, 5), sprt=("continue", 0.25))
    store.record_game(make_row(store, 2))  # an earlier game finishing late keeps the progress
    record = store.tournament("t")
    assert (record.next_index, record.sprt_decision, record.sprt_llr) == (6, "continue", 0.25)
    with pytest.raises(StorageError, match="already recorded"):
        store.record_game(make_row(store, 5), sprt=("accept", 3.0))
    again = store.tournament("t")  # the refused game changed nothing
    assert (again.next_index, again.sprt_decision, again.sprt_llr) == (6, "continue", 0.25)


def test_games_recorded_together_are_all_committed_or_none(store: RunStore) -> None:
    store.record_games([(make_row(store, 1), ()), (make_row(store, 7), ())], sprt=("accept", 3.0))
    assert store.recorded_indices("t") == {1, 7}
    assert store.tournament("t").next_index == 8
    with pytest.raises(StorageError, match=r"game 7 .* already recorded"):
        store.record_games([(make_row(store, 8), ()), (make_row(store, 7), ())])
    assert store.recorded_indices("t") == {1, 7}  # game 8 went with the refused batch
    assert store.tournament("t").next_index == 8


def test_bytes_written_atomically_have_the_digest_of_the_file(tmp_path: Path) -> None:
    target = tmp_path / "replays" / "g.jsonl.gz"
    digest = write_bytes_atomically(target, b"a replay")
    assert target.read_bytes() == b"a replay"
    assert digest == file_sha256(target)
    assert list(target.parent.iterdir()) == [target]


def test_a_replay_is_never_left_half_written(tmp_path: Path) -> None:
    target = tmp_path / "replays" / "g.jsonl.gz"

    def fail(path: Path) -> None:
        path.write_bytes(b"partial")
        raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError):
        write_atomically(target, fail)
    assert not target.exists()
    assert list(target.parent.iterdir()) == []


def test_a_game_without_its_replay_file_is_refused(store: RunStore) -> None:
    row = make_row(store, 1)
    (store.run_dir / row.replay_path).unlink()
    with pytest.raises(StorageError, match="missing"):
        store.record_game(row)


def test_incidents_count_crashes_per_bot(store: RunStore) -> None:
    store.add_bot("t", "a", "python a.py", remote=False)
    store.record_incident("t", "a", "crash", "exit code 1")
    store.record_incident("t", "a", "restart", "after 0.5 s")
    (bot,) = store.bots("t")
    assert bot.crashes == 1
    assert [i[1] for i in store.incidents("t")] == ["crash", "restart"]


def test_a_corrupt_database_is_reported(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    (run / "arena.sqlite").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(StorageError, match="not a usable arena database"):
        RunStore(run)


def test_opening_a_run_keeps_a_live_writers_replay_temporary_and_removes_a_dead_ones(
    tmp_path: Path,
) -> None:
    """A reader (the report, the web pages, ListGames) never deletes a replay being written."""
    import os
    import subprocess
    import sys

    replays = tmp_path / "replays"
    replays.mkdir()
    live = replays / f".game-000001.jsonl.gz.{os.getpid()}.tmp"
    live.write_bytes(b"half a replay")
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    dead = replays / f".game-000002.jsonl.gz.{int(finished.stdout)}.tmp"
    dead.write_bytes(b"left by a writer that died")
    RunStore(tmp_path).close()
    assert live.exists()
    assert not dead.exists()
