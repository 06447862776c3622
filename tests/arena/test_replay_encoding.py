"""The recorder's replay files are byte for byte what ``encode_replay`` writes."""

from __future__ import annotations

from pathlib import Path

from conftest import ConfigFactory
from rookery.arena._replay_encoding import replay_file_bytes
from rookery.arena.config import BotSpec
from rookery.arena.runner import RunOptions, TournamentRunner
from rookery.arena.schedule import ScheduledGame
from rookery.arena.storage import GameRow, RunStore
from rookery.engine import PRESETS, Game
from rookery.server import TableOutcome
from rookery.v1 import actions_pb2, notes_pb2, replay_pb2
from rookery.wire.replay import ActionOutcome, ReplayBuilder, encode_replay


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
    runner = _KeepingReplays(config, tmp_path, options=RunOptions())
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


def _unusual_replay() -> ReplayBuilder:
    """A game with every kind of recorded action: rejected (a malformed proto and an engine
    action, with reasons), auto-played, notes with values, fallback marks, an unnamed outcome."""
    builder = ReplayBuilder()
    builder.start(PRESETS["standard"], seed=3, seats=["a", "b", "c", "d"], table_id="t")
    game: Game = builder.game
    move = 0
    while not game.is_over and move < 400:
        seat = game.current_player
        assert seat is not None
        action = game.legal_actions()[0]
        move += 1
        if move % 5 == 0:
            builder.record_action(seat, actions_pb2.Action(), 7, ActionOutcome.REJECTED, "bad «»")
        if move % 3 == 0:
            note = notes_pb2.BotNote(text="why", values={"p": 0.25, "n": -3.0})
            builder.record_action(seat, action, move, ActionOutcome.AUTO_PLAYED, note=note)
        elif move % 7 == 0:
            fallback = notes_pb2.Fallback(reason="act raised ValueError")
            builder.record_action(seat, action, 0, fallback=fallback)
        else:
            builder.record_action(seat, action, move % 4)
    builder.finish(aborted=not game.is_over)
    return builder


def test_unusual_actions_and_unnamed_enum_values_encode_as_the_reference() -> None:
    replay = _unusual_replay().replay()
    replay.hands[0].actions[1].outcome = 99  # type: ignore[assignment]  # a value not named
    replay.hands[0].actions.add(seat=2)  # no action at all
    for compress in (True, False):
        assert replay_file_bytes(replay, compress=compress) == encode_replay(
            replay, compress=compress
        )
    # The remembered cards and actions do not leak between replays: a second one, again.
    other = _unusual_replay().replay()
    other.header.seed = 12
    assert replay_file_bytes(other) == encode_replay(other)
