"""Replays: the builder a table drives, replay files, and verification by re-simulation."""

from __future__ import annotations

import gzip
import json
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message
from rookery.engine import (
    PASS,
    PRESETS,
    Forfeit,
    ForfeitKind,
    Game,
    HandSeeds,
    IllegalActionError,
    Ruleset,
    Suit,
    Termination,
    bid_action,
    deal_for_hand,
    parse_action,
)
from rookery.engine import TRUMP as ENGINE_TRUMP
from rookery.v1 import actions_pb2, notes_pb2, replay_pb2, results_pb2, ruleset_pb2, table_pb2
from rookery.wire.convert import card_to_proto, deal_to_proto
from rookery.wire.errors import ReplayFileError
from rookery.wire.replay import (
    ActionOutcome,
    ReplayBuilder,
    decode_replay,
    encode_replay,
    read_replay,
    replay_text,
    replay_to_record,
    verify_replay,
    write_replay,
)
from rookery.wire.selfplay import play_random_game, random_action

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def short(preset: str) -> Ruleset:
    return PRESETS[preset].replace(target=150, max_hands=8)


def random_replay(preset: str = "standard", seed: int = 3) -> replay_pb2.Replay:
    return play_random_game(short(preset), seed, table_id="t-1", start_time=START)


def started(preset: str = "standard", seed: int = 1) -> ReplayBuilder:
    builder = ReplayBuilder()
    builder.start(PRESETS[preset], seed, seats=["a", "b", "c", "d"], start_time=START)
    return builder


def win_auction(builder: ReplayBuilder) -> None:
    builder.record_action(1, bid_action(70), 5)
    for seat in (2, 3, 0):
        builder.record_action(seat, PASS, 5)


# The builder ------------------------------------------------------------------------------------


def test_the_header_holds_everything_the_table_knows() -> None:
    builder = ReplayBuilder()
    clock = table_pb2.TimeControl(action_ms=1000, bank_ms=5000, strike_limit=3)
    builder.start(
        PRESETS["six-handed"],
        2**64 - 1,
        seats=["a", ("b", "2.1"), "c", "d", "e", "f"],
        start_time=START,
        server_version="rookery 0.1.0",
        table_id="t-9",
        tournament_id="cup",
        time_control=clock,
    )
    header = builder.replay().header
    assert (header.ruleset.name, header.seed) == ("six-handed", 2**64 - 1)
    assert [(s.seat, s.side, s.bot_name) for s in header.seats][:4] == [
        (0, 0, "a"),
        (1, 1, "b"),
        (2, 2, "c"),
        (3, 0, "d"),
    ]
    assert header.seats[1].bot_version == "2.1"
    assert header.start_time.ToDatetime(tzinfo=UTC) == START
    assert (header.server_version, header.table_id, header.tournament_id) == (
        "rookery 0.1.0",
        "t-9",
        "cup",
    )
    assert header.time_control == clock


def test_each_action_is_recorded_with_its_seat_think_time_and_outcome() -> None:
    builder = started()
    builder.record_action(1, bid_action(70), 12)
    builder.record_action(2, PASS, 7, ActionOutcome.AUTO_PLAYED)
    actions = builder.replay().hands[0].actions
    assert [(a.seat, a.think_ms, a.outcome) for a in actions] == [
        (1, 12, replay_pb2.ACTION_OUTCOME_ACCEPTED),
        (2, 7, replay_pb2.ACTION_OUTCOME_AUTO_PLAYED),
    ]
    assert actions[0].action.bid.amount == 70


def test_a_rejected_action_is_kept_for_the_record_but_not_applied() -> None:
    builder = started()
    builder.record_action(1, bid_action(72), 3, ActionOutcome.REJECTED, "bid_not_multiple")
    garbage = actions_pb2.Action()
    builder.record_action(1, garbage, 4, ActionOutcome.REJECTED, "no action kind")
    builder.record_action(1, bid_action(70), 5)
    actions = builder.replay().hands[0].actions
    assert [a.outcome for a in actions] == [3, 3, 1]
    assert actions[0].rejection_reason == "bid_not_multiple"
    assert actions[1].action == garbage
    assert builder.game.current_player == 2


def test_an_illegal_accepted_action_raises_and_records_nothing() -> None:
    builder = started()
    with pytest.raises(IllegalActionError):
        builder.record_action(1, bid_action(65), 1)
    with pytest.raises(ValueError, match="seat 3 cannot act: seat 1 is to act"):
        builder.record_action(3, PASS, 1)
    assert not builder.replay().hands[0].actions


def test_every_hand_gets_its_full_deal_and_result() -> None:
    replay = random_replay()
    game = Game(short("standard"), 3)
    for index, hand in enumerate(replay.hands):
        assert hand.hand_number == index
        assert len(hand.deal.hands) == 4
        assert sum(len(cards.cards) for cards in hand.deal.hands) + len(hand.deal.nest) == 57
        assert hand.HasField("result")
    assert replay.hands[0].deal.hands[0].cards[0] == card_to_proto(
        min(c for c in range(58) if game.deal.hands[0] >> c & 1)
    )
    assert replay.result.reason == results_pb2.TERMINATION_REASON_TARGET_REACHED


def test_an_all_pass_hand_is_recorded_as_a_redeal() -> None:
    builder = started()
    for seat in (1, 2, 3, 0):
        builder.record_action(seat, PASS, 1)
    replay = builder.replay()
    assert replay.hands[0].result.redeal
    assert [hand.hand_number for hand in replay.hands] == [0, 1]
    assert replay.hands[1].dealer == 0


def test_a_forfeit_ends_the_game_and_leaves_the_hand_without_result() -> None:
    builder = started()
    win_auction(builder)
    result = builder.finish(forfeit=Forfeit(3, ForfeitKind.STRIKES, "3 strikes"))
    replay = builder.replay()
    assert result.reason == results_pb2.TERMINATION_REASON_FORFEIT_STRIKES
    assert (result.forfeit_seat, result.detail, list(result.winners)) == (3, "3 strikes", [0])
    assert not replay.hands[-1].HasField("result")
    assert replay.result == result


@pytest.mark.parametrize("ending", ["rules", "forfeit"])
def test_a_builder_following_the_callers_game_records_the_same_replay(ending: str) -> None:
    ruleset, rng = short("standard"), random.Random(5)
    own, following, game = ReplayBuilder(), ReplayBuilder(), Game(ruleset, 8)
    own.start(ruleset, 8, seats=["a", "b", "c", "d"], start_time=START)
    following.start(ruleset, 8, seats=["a", "b", "c", "d"], start_time=START, game=game)
    while not game.is_over and (ending == "rules" or len(game.hand_results) < 1):
        seat, action = game.current_player, random_action(game.legal_actions(), rng)
        assert seat is not None
        game.apply(action)
        own.record_action(seat, action, 3)
        following.record_action(seat, action, 3)
    forfeit = Forfeit(2, ForfeitKind.TIMEOUT, "late") if ending == "forfeit" else None
    if forfeit is not None:
        with pytest.raises(ValueError, match="not over"):
            following.finish(forfeit=forfeit)
        game.forfeit(2, "late")
    assert following.finish(forfeit=forfeit) == own.finish(forfeit=forfeit)
    assert following.replay() == own.replay()
    assert len(own.replay().hands) >= 2


def test_a_followed_game_must_be_new_and_of_the_same_deal() -> None:
    ruleset = short("standard")
    played = Game(ruleset, 8)
    played.apply(PASS)
    for game in (Game(ruleset, 9), played):
        with pytest.raises(ValueError, match="new game of the same ruleset and seed"):
            ReplayBuilder().start(ruleset, 8, game=game)


def test_finishing_an_unfinished_game_needs_a_forfeit_or_an_abort() -> None:
    builder = started()
    with pytest.raises(ValueError, match="not over"):
        builder.finish()
    result = builder.finish(aborted=True, detail="server shutdown")
    assert result.reason == results_pb2.TERMINATION_REASON_ABORTED
    assert result.detail == "server shutdown"


def test_no_action_is_recorded_after_the_game_ended() -> None:
    builder = started()
    builder.finish(aborted=True)
    with pytest.raises(RuntimeError, match="game is over"):
        builder.record_action(1, PASS, 1)


# Files ------------------------------------------------------------------------------------------


def test_a_file_holds_one_record_per_line_header_hands_result(tmp_path: Path) -> None:
    replay = random_replay()
    path = tmp_path / "game.jsonl.gz"
    write_replay(path, replay)
    lines = gzip.decompress(path.read_bytes()).decode().splitlines()
    assert len(lines) == len(replay.hands) + 2
    assert [next(iter(json.loads(line))) for line in (lines[0], lines[1], lines[-1])] == [
        "header",
        "hand",
        "result",
    ]
    assert '"tableId":"t-1"' in lines[0]
    assert list(tmp_path.iterdir()) == [path]


@pytest.mark.parametrize("name", ["game.jsonl.gz", "game.jsonl"])
def test_replay_files_round_trip(tmp_path: Path, name: str) -> None:
    replay = random_replay("called-partner")
    write_replay(tmp_path / name, replay)
    assert read_replay(tmp_path / name) == replay


def test_a_single_json_replay_document_is_read_too(tmp_path: Path) -> None:
    from google.protobuf import json_format

    replay = random_replay()
    (tmp_path / "game.json").write_text(json_format.MessageToJson(replay, indent=2))
    assert read_replay(tmp_path / "game.json") == replay


def test_encoding_is_deterministic() -> None:
    replay = random_replay()
    assert encode_replay(replay) == encode_replay(replay)


def _lines(replay: replay_pb2.Replay) -> list[str]:
    return encode_replay(replay, compress=False).decode().splitlines()


def _error(data: bytes) -> ReplayFileError:
    with pytest.raises(ReplayFileError) as raised:
        decode_replay(data, "game.jsonl.gz")
    return raised.value


def test_a_truncated_gzip_file_names_the_line_it_stops_at() -> None:
    data = encode_replay(random_replay())
    error = _error(data[: len(data) // 2])
    assert "truncated gzip file" in str(error)
    assert error.line is not None and error.line >= 1


def test_garbage_bytes_are_reported_not_raised() -> None:
    error = _error(bytes(random.Random(1).randrange(256) for _ in range(300)))
    assert error.path == "game.jsonl.gz"
    assert "not UTF-8" in error.reason or "not valid JSON" in error.reason


def test_garbage_after_the_gzip_data_is_reported() -> None:
    error = _error(encode_replay(random_replay()) + b"junk")
    assert "4 bytes of garbage after the gzip data" in str(error)


def test_a_missing_header_is_reported_on_the_first_line() -> None:
    error = _error("\n".join(_lines(random_replay())[1:]).encode())
    assert error.line == 1
    assert error.reason == "missing header: the first record is a hand, not the header"


def test_a_missing_result_is_reported() -> None:
    lines = _lines(random_replay())
    error = _error("\n".join(lines[:-1]).encode())
    assert error.line == len(lines) - 1
    assert "missing result" in error.reason


def test_an_unknown_field_is_reported_with_its_line() -> None:
    lines = _lines(random_replay())
    lines[1] = lines[1][:-1] + ',"colour":"red"}'
    error = _error("\n".join(lines).encode())
    assert error.line == 2
    assert "colour" in error.reason


def test_a_broken_json_line_is_reported_with_its_line_and_column() -> None:
    lines = _lines(random_replay())
    lines[2] = lines[2][:30]
    error = _error("\n".join(lines).encode())
    assert error.line == 3
    assert "not valid JSON" in error.reason


def test_records_out_of_order_are_reported() -> None:
    lines = _lines(random_replay())
    error = _error("\n".join([*lines, lines[1]]).encode())
    assert error.line == len(lines) + 1
    assert "after the result" in error.reason
    error = _error("\n".join([lines[0], *lines]).encode())
    assert (error.line, error.reason) == (2, "a second header (the header is on line 1)")


def test_an_empty_or_missing_file_is_reported(tmp_path: Path) -> None:
    assert "empty file" in _error(b"\n\n").reason
    with pytest.raises(ReplayFileError, match="cannot read"):
        read_replay(tmp_path / "nope.jsonl.gz")


# Verification -----------------------------------------------------------------------------------


@pytest.mark.parametrize("preset", list(PRESETS))
def test_a_played_game_verifies(preset: str) -> None:
    assert verify_replay(random_replay(preset, 5)) == []


def test_a_played_hand_seeds_game_with_redeals_verifies_from_its_file(tmp_path: Path) -> None:
    rules = short("standard").replace(hand_seeds=HandSeeds.PLAYED)
    builder = ReplayBuilder()
    builder.start(rules, 9, seats=["a", "b", "c", "d"], start_time=START)
    for seat in (1, 2, 3, 0):  # hand 0 redealt: the same dealer deals "9:0:r1"
        builder.record_action(seat, PASS, 1)
    rng = random.Random(2)
    game = builder.game
    while not game.is_over:
        current = game.current_player
        assert current is not None
        builder.record_action(current, random_action(game.legal_actions(), rng), 1)
    builder.finish()
    path = tmp_path / "played.jsonl.gz"
    write_replay(path, builder.replay())
    replay = read_replay(path)
    assert replay.header.ruleset.hand_seeds == ruleset_pb2.HAND_SEEDS_PLAYED
    assert verify_replay(replay) == []
    dealt = [(hand.dealer, hand.deal) for hand in replay.hands[:3]]
    expected = [deal_for_hand(rules, 9, 0), deal_for_hand(rules, 9, 0, redeals=1)]
    expected.append(deal_for_hand(rules, 9, 1))
    assert [dealer for dealer, _ in dealt] == [0, 0, 1]
    assert [deal for _, deal in dealt] == [deal_to_proto(deal) for deal in expected]
    replay.header.ruleset.ClearField("hand_seeds")  # read as DEALT: the deals no longer match
    assert any("deal" in problem for problem in verify_replay(replay))


def test_replay_to_record_re_simulates_to_the_same_result() -> None:
    replay = random_replay("cutthroat", 8)
    record = replay_to_record(replay)
    game = record.replay()
    assert game.result is not None
    assert list(game.result.scores) == list(replay.result.scores)
    assert len(record.actions) == sum(len(hand.actions) for hand in replay.hands)


def _play_out(builder: ReplayBuilder, seed: int, irregular: float) -> replay_pb2.Replay:
    """Plays the builder's game to its end at random; about ``irregular`` of the replies are
    rejected first, auto-played, or marked as their SDK's fallback."""
    rng = random.Random(seed)
    game = builder.game
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        if rng.random() < irregular:
            builder.record_action(seat, parse_action("bid 5"), 1, ActionOutcome.REJECTED, "x")
        outcome = ActionOutcome.AUTO_PLAYED if rng.random() < irregular else ActionOutcome.ACCEPTED
        marked = outcome is ActionOutcome.ACCEPTED and rng.random() < irregular  # its SDK's
        fallback = notes_pb2.Fallback(reason="act raised") if marked else None
        builder.record_action(
            seat, random_action(game.legal_actions(), rng), 1, outcome, fallback=fallback
        )
    builder.finish()
    return builder.replay()


def test_rejected_actions_are_skipped_and_auto_played_ones_applied() -> None:
    builder = started()
    replay = _play_out(builder, 4, 0.1)
    assert verify_replay(replay) == []
    irregular = [
        a
        for hand in replay.hands
        for a in hand.actions
        if a.outcome != replay_pb2.ACTION_OUTCOME_ACCEPTED or a.HasField("fallback")
    ]
    assert len(irregular) > 0
    assert builder.irregular_actions == len(irregular)  # what tells the arena to look for them


def test_a_game_of_accepted_replies_has_no_irregular_actions() -> None:
    builder = started()
    _play_out(builder, 5, 0.0)
    assert builder.irregular_actions == 0


def test_a_forfeit_is_applied_at_its_point() -> None:
    builder = started()
    win_auction(builder)
    builder.record_action(1, ENGINE_TRUMP[Suit.RED], 1)
    builder.finish(forfeit=Forfeit(2, ForfeitKind.DISCONNECT, "gone"))
    replay = builder.replay()
    assert verify_replay(replay) == []
    assert replay_to_record(replay).replay().result.reason is Termination.FORFEIT  # type: ignore[union-attr]


def test_a_changed_card_in_an_action_is_an_illegal_action_at_its_index() -> None:
    replay = random_replay()
    hand = replay.hands[0]
    index = next(i for i, a in enumerate(hand.actions) if a.action.HasField("play_card"))
    following = hand.actions[index + 1].action.play_card.card
    hand.actions[index].action.play_card.card.CopyFrom(following)
    problems = verify_replay(replay)
    assert len(problems) == 1
    assert problems[0].startswith(f"hand 0, action {index}: seat ")
    assert "illegal" in problems[0]


def test_a_changed_card_in_the_deal_names_the_seat_and_the_cards() -> None:
    replay = random_replay()
    cards = replay.hands[1].deal.hands[2].cards
    nest = replay.hands[1].deal.nest
    swapped = cards[0].__deepcopy__()
    cards[0].CopyFrom(nest[0])
    nest[0].CopyFrom(swapped)
    problems = verify_replay(replay)
    assert problems[0].startswith("hand 1: deal.hands[2].cards: expected ")
    assert "missing" in problems[0]
    assert problems[1].startswith("hand 1: deal.nest: expected ")


def test_a_changed_score_is_a_result_mismatch() -> None:
    replay = random_replay()
    replay.hands[0].result.scores[0] += 5
    expected = replay.hands[0].result.scores[0] - 5
    got = replay.hands[0].result.scores[0]
    problems = verify_replay(replay)
    assert problems == [
        f"hand 0: result.scores: expected [{expected}, {replay.hands[0].result.scores[1]}], "
        f"got [{got}, {replay.hands[0].result.scores[1]}]"
    ]


def test_a_changed_game_result_is_reported() -> None:
    replay = random_replay()
    replay.result.winners[0] = 1 - replay.result.winners[0]
    replay.result.hands_played += 1
    problems = verify_replay(replay)
    assert [p.split(":")[0] for p in problems] == ["result.winners", "result.hands_played"]


def test_an_action_by_the_wrong_seat_is_reported() -> None:
    replay = random_replay()
    replay.hands[0].actions[0].seat = 3
    (problem,) = verify_replay(replay)
    expected = "hand 0, action 0: seat: expected seat 1 to act (BIDDING), got seat 3"
    assert problem.startswith(expected)


def test_a_missing_hand_result_and_missing_game_result_are_reported() -> None:
    replay = random_replay()
    replay.hands[0].ClearField("result")
    replay.ClearField("result")
    assert verify_replay(replay) == [
        "hand 0: result: missing, expected the result of a finished hand",
        "result: missing",
    ]


def test_a_malformed_action_is_reported_not_raised() -> None:
    replay = random_replay()
    replay.hands[0].actions[2].action.Clear()
    (problem,) = verify_replay(replay)
    assert problem == "hand 0, action 2: malformed: action: no action kind is set " + (
        "(expected one of bid, pass, name_trump, bury, call_card or play_card)"
    )


def test_a_header_with_an_invalid_ruleset_is_reported() -> None:
    replay = random_replay()
    replay.header.ruleset.players = 9
    assert verify_replay(replay) == ["header: header.ruleset.players: must be 3 to 6, got 9"]


def test_a_rejected_record_of_a_legal_action_is_reported() -> None:
    builder = started()
    builder.record_action(1, bid_action(70), 1, ActionOutcome.REJECTED, "said to be illegal")
    win_auction(builder)
    builder.finish(aborted=True)
    assert verify_replay(builder.replay()) == [
        "hand 0, action 0: seat 1 bid 70: recorded as rejected, but it is legal here "
        "(BIDDING): the server would have applied it"
    ]


def test_a_rejected_record_of_a_malformed_or_illegal_action_verifies() -> None:
    builder = started()
    builder.record_action(1, actions_pb2.Action(), 1, ActionOutcome.REJECTED, "malformed")
    builder.record_action(1, bid_action(65), 1, ActionOutcome.REJECTED, "below the minimum")
    win_auction(builder)
    builder.finish(aborted=True)
    assert verify_replay(builder.replay()) == []


def test_a_header_seat_on_the_wrong_side_is_reported() -> None:
    replay = random_replay()
    replay.header.seats[1].side = 0
    assert verify_replay(replay) == [
        "header: seats[1].side: expected side 1 (standard: seat 1), got 0"
    ]


def test_control_characters_are_not_an_empty_file() -> None:
    error = _error(b"\x1c" * 300)
    assert error.line == 1
    assert error.reason == "not valid JSON: Expecting value (column 1)"


def _scalar_paths(message: Message, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every set scalar field of a message, as a path of field names and list indexes."""
    paths: list[tuple[object, ...]] = []
    for field, value in message.ListFields():
        if field.message_type is not None:
            items = list(value) if field.is_repeated else [value]
            for index, item in enumerate(items):
                step = (field.name, index) if field.is_repeated else (field.name,)
                paths.extend(_scalar_paths(item, (*path, *step)))
        elif not field.is_repeated and field.type != field.TYPE_STRING:
            paths.append((*path, field.name))
    return paths


def test_verify_reports_and_never_raises_for_any_changed_field() -> None:
    """Bad input of any kind: 400 replays with one number changed to an odd value each."""
    source = random_replay("called-partner", 9)
    paths = _scalar_paths(source)
    rng = random.Random(24)
    values = [-1, 0, 1, 2, 3, 5, 7, 14, 15, 99, 2**31 - 1]
    caught = 0
    for _ in range(400):
        replay = replay_pb2.Replay()
        replay.CopyFrom(source)
        *steps, name = rng.choice(paths)
        target: Any = replay
        for step in steps:
            target = target[step] if isinstance(step, int) else getattr(target, str(step))
        field = target.DESCRIPTOR.fields_by_name[str(name)]
        value: object = rng.choice(values)
        if field.type == field.TYPE_BOOL:
            value = not getattr(target, str(name))
        elif field.type in (field.TYPE_UINT32, field.TYPE_UINT64) and value == -1:
            value = 2**32 - 1
        if value == getattr(target, str(name)):
            continue
        setattr(target, str(name), value)
        problems = verify_replay(replay)  # must not raise
        caught += bool(problems)
    assert caught > 300


def test_notes_and_fallback_marks_are_recorded_on_their_move_and_shown_by_replay_text() -> None:
    builder = ReplayBuilder()
    builder.start(PRESETS["standard"], seed=7, seats=["a", "b", "c", "d"])
    game = builder.game
    first, second = game.current_player, None
    assert first is not None
    note = notes_pb2.BotNote(text="400 samples", values={"samples": 400, "best": 0.5})
    builder.record_action(first, game.legal_actions()[0], 3, note=note)
    note.text = "changed after"  # the builder keeps its own copy
    second = game.current_player
    assert second is not None
    mark = notes_pb2.Fallback(reason="act raised ValueError: no card")
    builder.record_action(second, game.legal_actions()[0], 4, fallback=mark)
    actions = builder.replay().hands[0].actions
    assert actions[0].note == notes_pb2.BotNote(
        text="400 samples", values={"samples": 400, "best": 0.5}
    )
    assert not actions[0].HasField("fallback") and not actions[1].HasField("note")
    assert actions[1].fallback.reason == "act raised ValueError: no card"
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        builder.record_action(seat, game.legal_actions()[0])
    builder.finish()
    text = replay_text(builder.replay())
    assert f"hand 0, action 0: seat {first} note: 400 samples best=0.5 samples=400" in text
    assert f"hand 0, action 1: seat {second} fallback: act raised ValueError: no card" in text
