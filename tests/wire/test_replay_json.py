"""A replay file's lines are ``json_format.MessageToDict`` of its records, byte for byte, though
``encode_replay`` builds them with less work (``rookery.wire._replay_json``)."""

from __future__ import annotations

import gzip
import itertools
import json
import random
import string
from typing import Any

from google.protobuf import json_format
from google.protobuf.descriptor import Descriptor
from rookery.engine import PRESETS, Game
from rookery.v1 import actions_pb2, notes_pb2, replay_pb2, results_pb2
from rookery.wire._replay_json import message_dict, message_json
from rookery.wire.replay import ActionOutcome, ReplayBuilder, encode_replay, replay_records
from rookery.wire.selfplay import play_random_game, random_action


def _map_fields(descriptor: Descriptor, seen: set[str]) -> set[str]:
    """The map fields of a message type and of every type it holds."""
    found: set[str] = set()
    if descriptor.full_name in seen:
        return found
    seen.add(descriptor.full_name)
    for field in descriptor.fields:
        if field.message_type is not None:
            if field.message_type.GetOptions().map_entry:
                found.add(field.full_name)
            else:
                found |= _map_fields(field.message_type, seen)
    return found


def _notes_sorted(value: Any) -> Any:
    """A ``MessageToDict`` value with each bot note's ``values`` (the schema's one map) in key
    order, as a replay file writes them: protobuf keeps no order in a map."""
    if isinstance(value, list):
        return [_notes_sorted(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: _notes_sorted(item) for key, item in value.items()}
    note = out.get("note")
    if isinstance(note, dict) and isinstance(note.get("values"), dict):
        note["values"] = dict(sorted(note["values"].items()))
    return out


def _reference_text(replay: replay_pb2.Replay) -> str:
    """The replay file's text the slow way: ``MessageToDict`` of every record, compact JSON."""
    return "".join(
        json.dumps(
            _notes_sorted(json_format.MessageToDict(record)),
            separators=(",", ":"),
            ensure_ascii=False,
        )
        + "\n"
        for record in replay_records(replay)
    )


def test_the_only_map_of_a_replay_is_a_notes_values() -> None:
    """The reference text above sorts that map alone: a new map in the schema needs it too."""
    assert _map_fields(replay_pb2.ReplayRecord.DESCRIPTOR, set()) == {"rookery.v1.BotNote.values"}


def _assert_reference(replay: replay_pb2.Replay) -> None:
    for record in replay_records(replay):
        part = record.WhichOneof("part")
        assert part is not None
        message = getattr(record, part)
        assert message_dict(message) == json_format.MessageToDict(record)[part]
        # The text, written without the dict, is the dict's compact JSON.
        expected = json.dumps(message_dict(message), separators=(",", ":"), ensure_ascii=False)
        assert message_json(message) == expected
    text = _reference_text(replay)
    assert encode_replay(replay, compress=False) == text.encode()
    compressed = encode_replay(replay)
    assert gzip.decompress(compressed) == text.encode()
    assert compressed[4:8] == b"\0\0\0\0" and compressed == encode_replay(replay)  # mtime 0


def _keys_a_copy_lists_otherwise() -> tuple[str, str]:
    """Two keys whose map lists them in one order, and its parsed copy in the other."""
    for first, second in itertools.permutations(string.ascii_lowercase, 2):
        note = notes_pb2.BotNote(values={first: 1.0, second: 2.0})
        copy = notes_pb2.BotNote.FromString(note.SerializeToString())
        if list(note.values) != list(copy.values):
            return first, second
    raise AssertionError("every copy listed its map as the original: nothing to check")


def test_a_replay_gives_the_same_bytes_as_its_copy_whose_maps_list_their_entries_otherwise() -> (
    None
):
    replay = _unusual_replay().replay()
    first, second = _keys_a_copy_lists_otherwise()
    action = replay.hands[0].actions[0]
    action.note.text = "two values"
    action.note.values.clear()
    action.note.values.update({first: 1.0, second: 2.0})
    copy = replay_pb2.Replay.FromString(replay.SerializeToString())
    assert list(copy.hands[0].actions[0].note.values) != list(action.note.values)
    assert encode_replay(copy) == encode_replay(replay)
    assert encode_replay(copy, compress=False) == _reference_text(replay).encode()


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
    _assert_reference(replay)
    # The remembered cards and actions do not leak between replays: a second one, again.
    other = _unusual_replay().replay()
    other.header.seed = 12
    _assert_reference(other)


def test_played_games_of_every_preset_encode_as_the_reference() -> None:
    for name in sorted(PRESETS):
        for seed in range(3):
            _assert_reference(play_random_game(PRESETS[name], seed=seed))


def _random_builder(name: str, seed: int, *, finish: bool = True) -> ReplayBuilder:
    """A game of random legal actions (think times 0–2 ms) recorded by a builder; with
    ``finish`` false, stopped in the middle of a hand."""
    rng = random.Random(seed)
    ruleset = PRESETS[name]
    builder = ReplayBuilder()
    builder.start(ruleset, seed, seats=[f"r{seat}" for seat in range(ruleset.players)])
    game = builder.game
    stop = None if finish else rng.randrange(20, 200)
    while not game.is_over and (stop is None or len(game.actions) < stop):
        seat = game.current_player
        assert seat is not None
        builder.record_action(seat, random_action(game.legal_actions(), rng), rng.randrange(3))
    if finish:
        builder.finish()
    return builder


def _assert_builder_writes_its_replays_bytes(builder: ReplayBuilder) -> None:
    replay = builder.replay()
    text = _reference_text(replay).encode()
    assert builder.encode(compress=False) == encode_replay(replay, compress=False) == text
    assert builder.encode() == encode_replay(replay)
    # A result given instead of the builder's own (a table's, with its detail) is the one written.
    result = results_pb2.GameResult(winners=[1], scores=[-5, 300], detail="the table's «own»")
    replay.result.CopyFrom(result)
    assert builder.encode(result, compress=False) == _reference_text(replay).encode()


def test_a_builder_writes_the_bytes_of_its_replays_encoding_for_every_preset() -> None:
    for name in sorted(PRESETS):
        for seed in range(3):
            _assert_builder_writes_its_replays_bytes(_random_builder(name, seed))
        _assert_builder_writes_its_replays_bytes(_random_builder(name, 7, finish=False))


def test_a_builder_writes_unusual_actions_as_the_reference() -> None:
    _assert_builder_writes_its_replays_bytes(_unusual_replay())
    empty = ReplayBuilder()
    empty.start(PRESETS["standard"], seed=1)  # one hand open, no action yet
    _assert_builder_writes_its_replays_bytes(empty)
