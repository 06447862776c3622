"""Games recorded in batches: every game waiting goes into one transaction, each caller gets its
own row back, and a game at fault fails alone."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from rookery.arena.errors import StorageError
from rookery.arena.records import GameRow, RunStore
from rookery.arena.records._move_incidents import MoveIncident
from rookery.arena.records._storage import write_files_atomically
from rookery.arena.run._recording import BatchRecorder
from test_storage import make_row


class CountingStore(RunStore):
    """A real store that counts its transactions of games."""

    transactions = 0

    def record_games(
        self,
        games: Sequence[tuple[GameRow, Sequence[MoveIncident]]],
        *,
        sprt: tuple[str, float] | None = None,
    ) -> None:
        type(self).transactions += 1
        super().record_games(games, sprt=sprt)


@pytest.fixture
def store(tmp_path: Path) -> CountingStore:
    CountingStore.transactions = 0
    store = CountingStore(tmp_path / "run")
    store.open_tournament("t", "test", {"k": 1}, "fp", games_total=40)
    return store


def _game(store: RunStore, index: int) -> tuple[Path, bytes, GameRow]:
    row = make_row(store, index)
    path = store.run_dir / row.replay_path
    return path, b"the replay of game %d" % index, row


async def test_games_finishing_together_are_committed_together(store: CountingStore) -> None:
    recorder = BatchRecorder(store, asyncio.Lock())
    games = [_game(store, i) for i in range(20)]
    incident = MoveIncident("g", 3, "a", 1, 0, 4, "rejected", "not your turn")
    rows = await asyncio.gather(
        *(
            recorder.record(path, data, row, [incident] if row.index == 3 else [], ("continue", i))
            for i, (path, data, row) in enumerate(games)
        )
    )
    assert [r.index for r in rows] == list(range(20))
    for (path, data, _), row in zip(games, rows, strict=True):
        assert path.read_bytes() == data
        assert row.replay_sha256 == hashlib.sha256(data).hexdigest()
    assert store.games("t") == sorted(rows, key=lambda r: r.index)
    assert len(store.move_incidents("t")) == 1
    assert store.transactions == recorder.batches < 20  # the games waiting share a transaction
    tournament = store.tournament("t")
    assert (tournament.next_index, tournament.sprt_llr) == (20, 19.0)  # the latest SPRT state


async def test_a_game_already_recorded_fails_alone(store: CountingStore) -> None:
    recorder = BatchRecorder(store, asyncio.Lock())
    first = _game(store, 5)
    await recorder.record(*first, [])
    again = [_game(store, i) for i in (4, 5, 6)]  # game 5 a second time, between two new ones
    results: list[Any] = await asyncio.gather(
        *(recorder.record(*game, []) for game in again), return_exceptions=True
    )
    assert isinstance(results[1], StorageError)
    assert "already recorded" in str(results[1])
    assert [results[0].index, results[2].index] == [4, 6]
    assert store.recorded_indices("t") == {4, 5, 6}


async def test_a_file_that_cannot_be_written_fails_its_batch_and_the_next_records(
    store: CountingStore, tmp_path: Path
) -> None:
    recorder = BatchRecorder(store, asyncio.Lock())
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the replay's folder should be")
    path, data, row = _game(store, 1)
    with pytest.raises(OSError):
        await recorder.record(blocked / "game.jsonl.gz", data, row, [])
    assert store.recorded_indices("t") == set()
    recorded = await recorder.record(path, data, row, [])  # the recorder goes on
    assert recorded.index == 1
    assert store.recorded_indices("t") == {1}


def test_files_written_together_are_each_whole_with_their_digests(tmp_path: Path) -> None:
    files = [(tmp_path / "replays" / f"g{i}.jsonl.gz", bytes([i]) * (i + 1)) for i in range(5)]
    digests = write_files_atomically(files)
    assert digests == [hashlib.sha256(data).hexdigest() for _, data in files]
    assert [path.read_bytes() for path, _ in files] == [data for _, data in files]
    assert sorted(p.name for p in (tmp_path / "replays").iterdir()) == [p.name for p, _ in files]
