"""The recorder's replay files are byte for byte what ``encode_replay`` writes (whose lines are
``MessageToDict``'s: ``tests/wire/test_replay_json.py``)."""

from __future__ import annotations

from pathlib import Path

from conftest import ConfigFactory
from rookery.arena.config import BotSpec
from rookery.arena.records import GameRow, RunStore
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.arena.run._schedule import ScheduledGame
from rookery.server import TableOutcome
from rookery.v1 import replay_pb2
from rookery.wire.replay import encode_replay


class _KeepingReplays(TournamentRunner):
    """The runner, keeping each game's replay as the server handed it over (by game index)."""

    kept: dict[int, replay_pb2.Replay]

    async def _record(self, game: ScheduledGame, outcome: TableOutcome, void: str = "") -> GameRow:
        self.kept[game.index] = outcome.replay
        return await super()._record(game, outcome, void)


async def test_a_tournaments_replay_files_are_the_reference_encodings_bytes(
    random_and_greedy: tuple[BotSpec, BotSpec], make_config: ConfigFactory, tmp_path: Path
) -> None:
    config = make_config(random_and_greedy, games=2, seed=11, bootstrap=0)
    runner = _KeepingReplays(config, tmp_path, options=TournamentOptions())
    runner.kept = {}
    result = await runner.run()

    assert result.recorded == 2
    with RunStore(tmp_path) as store:
        rows = list(store.games(config.tournament_id))
    assert sorted(row.index for row in rows) == sorted(runner.kept)
    for row in rows:
        path = tmp_path / row.replay_path
        replay = runner.kept[row.index]
        assert replay.hands and replay.HasField("result")
        expected = encode_replay(replay, compress=path.name.endswith(".gz"))
        assert path.read_bytes() == expected, path.name
