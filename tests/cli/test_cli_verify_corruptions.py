"""`rookery replay verify` names every corruption of a replay precisely: file, hand, action.

One replay (with seats, a clock, rejected and auto-played actions) is corrupted in a table of
ways; one `rookery replay verify` process checks all the files, and each corruption must be
reported by exactly its expected lines, with exit 1 and no traceback.
"""

from __future__ import annotations

import gzip
import random
import subprocess
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from rookery.engine import PRESETS, Game, Phase, PlayCard, cards_of
from rookery.v1 import actions_pb2, cards_pb2, replay_pb2, table_pb2
from rookery.wire.convert import action_from_proto, ruleset_to_proto
from rookery.wire.replay import (
    ActionOutcome,
    ReplayBuilder,
    decode_replay,
    encode_replay,
    verify_replay,
)
from rookery.wire.selfplay import random_action

Rookery = Callable[..., "subprocess.CompletedProcess[str]"]

RULESET = PRESETS["standard"].replace(target=200, max_hands=6)
SEED = 21


@dataclass(frozen=True)
class Source:
    """The replay every corruption starts from, and where its rejected records are."""

    replay: replay_pb2.Replay
    rejected: tuple[int, int]  # (hand, action) of a rejected PLAY record
    rejected_seat: int


def _source() -> Source:
    """A finished game of seeded random play: a clock, seats, one rejected card (a card the seat
    does not hold) at the first lead of hand 0, auto-played actions now and then."""
    builder = ReplayBuilder()
    clock = table_pb2.TimeControl(
        action_ms=1000,
        bank_ms=5000,
        late_policy=table_pb2.LATE_POLICY_AUTO_PLAY,
        strike_limit=5,
        grace_ms=2000,
    )
    builder.start(RULESET, SEED, seats=["boss", "pimc", "heuristic", "random"], time_control=clock)
    game: Game = builder.game
    rng = random.Random(SEED)
    rejected: tuple[int, int] | None = None
    rejected_seat = -1
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        if rejected is None and game.phase is Phase.PLAY:
            foreign = min(cards_of(RULESET.deck_mask & ~game.observation_for(seat).hand))
            index = len(builder.replay().hands[0].actions)
            builder.record_action(
                seat, PlayCard(foreign), 0, ActionOutcome.REJECTED, "not in the seat's hand"
            )
            rejected, rejected_seat = (0, index), seat
        outcome = ActionOutcome.AUTO_PLAYED if rng.random() < 0.05 else ActionOutcome.ACCEPTED
        builder.record_action(seat, random_action(game.legal_actions(), rng), 7, outcome)
    builder.finish()
    assert rejected is not None
    replay = builder.replay()
    assert verify_replay(replay) == []
    return Source(replay, rejected, rejected_seat)


SOURCE = _source()


def _copy() -> replay_pb2.Replay:
    replay = replay_pb2.Replay()
    replay.CopyFrom(SOURCE.replay)
    return replay


def _lines() -> list[bytes]:
    return encode_replay(SOURCE.replay, compress=False).splitlines(keepends=True)


def _gz(replay: replay_pb2.Replay) -> bytes:
    return encode_replay(replay)


# The corruptions: each makes the bytes of a file, and says the exact lines verify must print
# about it (after "FILE: " or "FILE:LINE: ").


def rejected_but_legal() -> tuple[bytes, list[str]]:
    replay = _copy()
    hand, index = SOURCE.rejected
    actions = replay.hands[hand].actions
    actions[index].action.CopyFrom(actions[index + 1].action)  # what the seat did play
    shown = _shown(actions[index].action)
    return _gz(replay), [
        f"hand {hand}, action {index}: seat {SOURCE.rejected_seat} {shown}: recorded as "
        "rejected, but it is legal here (PLAY): the server would have applied it"
    ]


def rejected_of_another_seat() -> tuple[bytes, list[str]]:
    replay = _copy()
    hand, index = SOURCE.rejected
    other = (SOURCE.rejected_seat + 1) % RULESET.players
    replay.hands[hand].actions[index].seat = other
    return _gz(replay), [
        f"hand {hand}, action {index}: seat: expected seat {SOURCE.rejected_seat} to act "
        f"(PLAY), got a rejected action of seat {other}"
    ]


def seat_on_the_wrong_side() -> tuple[bytes, list[str]]:
    replay = _copy()
    replay.header.seats[1].side = 0
    return _gz(replay), ["header: seats[1].side: expected side 1 (standard: seat 1), got 0"]


def swapped_seats_in_the_header() -> tuple[bytes, list[str]]:
    replay = _copy()
    seats = replay.header.seats
    first = table_pb2.SeatInfo()
    first.CopyFrom(seats[0])
    seats[0].CopyFrom(seats[1])
    seats[1].CopyFrom(first)
    return _gz(replay), [
        "header: seats[0].seat: expected 0, got 1",
        "header: seats[1].seat: expected 1, got 0",
    ]


def a_missing_seat() -> tuple[bytes, list[str]]:
    replay = _copy()
    del replay.header.seats[3]
    return _gz(replay), ["header: seats: expected 4 seats, got 3"]


def swapped_seats_of_two_actions() -> tuple[bytes, list[str]]:
    replay = _copy()
    actions = replay.hands[0].actions
    actions[0].seat, actions[1].seat = actions[1].seat, actions[0].seat
    return _gz(replay), [
        f"hand 0, action 0: seat: expected seat 1 to act (BIDDING), got seat "
        f"{actions[0].seat} ({_shown(actions[0].action)})"
    ]


def a_card_flipped_in_the_deal() -> tuple[bytes, list[str]]:
    replay = _copy()
    card = replay.hands[1].deal.hands[2].cards[0]
    card.rank = 14 if card.rank != 14 else 13
    problems = verify_replay(replay)
    assert problems and problems[0].startswith("hand 1: deal.hands[2].cards: expected ")
    return _gz(replay), problems


def a_card_flipped_in_a_play() -> tuple[bytes, list[str]]:
    replay = _copy()
    actions = replay.hands[0].actions
    index = max(i for i, a in enumerate(actions) if a.action.HasField("play_card"))
    card = actions[index].action.play_card.card
    card.suit = cards_pb2.Suit.ValueType(1 + card.suit % 4)
    (problem,) = verify_replay(replay)
    assert problem.startswith(f"hand 0, action {index}: seat {actions[index].seat} play ")
    assert ": illegal: " in problem
    return _gz(replay), [problem]


def an_unknown_outcome() -> tuple[bytes, list[str]]:
    replay = _copy()
    replay.hands[0].actions[2].outcome = replay_pb2.ACTION_OUTCOME_UNSPECIFIED
    return _gz(replay), [
        "hand 0, action 2: outcome: expected ACCEPTED, AUTO_PLAYED or REJECTED, "
        "got ACTION_OUTCOME_UNSPECIFIED"
    ]


def a_wrong_seed() -> tuple[bytes, list[str]]:
    replay = _copy()
    replay.header.seed += 1
    problems = verify_replay(replay)
    assert problems[0].startswith("hand 0: deal.hands[0].cards: expected ")
    return _gz(replay), problems


def a_wrong_ruleset() -> tuple[bytes, list[str]]:
    replay = _copy()
    replay.header.ruleset.CopyFrom(ruleset_to_proto(PRESETS["traditional"]))
    problems = verify_replay(replay)
    assert problems[0].startswith("hand 0: deal.hands[0].cards: expected ")
    return _gz(replay), problems


def an_invalid_ruleset() -> tuple[bytes, list[str]]:
    replay = _copy()
    replay.header.ruleset.players = 2
    return _gz(replay), ["header: header.ruleset.players: must be 3 to 6, got 2"]


def a_broken_clock() -> tuple[bytes, list[str]]:
    replay = _copy()
    replay.header.time_control.late_policy = table_pb2.LATE_POLICY_UNSPECIFIED
    replay.header.time_control.bank_ms = -5
    return _gz(replay), [
        "header: time_control.bank_ms: expected 0 or more, got -5",
        "header: time_control.late_policy: expected LATE_POLICY_AUTO_PLAY or "
        "LATE_POLICY_FORFEIT, got LATE_POLICY_UNSPECIFIED",
    ]


def a_changed_score() -> tuple[bytes, list[str]]:
    replay = _copy()
    replay.hands[0].result.score_deltas[1] += 10
    want = replay.hands[0].result.score_deltas[1] - 10
    got = replay.hands[0].result.score_deltas[1]
    other = replay.hands[0].result.score_deltas[0]
    return _gz(replay), [
        f"hand 0: result.score_deltas: expected [{other}, {want}], got [{other}, {got}]"
    ]


def a_dropped_action() -> tuple[bytes, list[str]]:
    replay = _copy()
    del replay.hands[0].actions[1]
    problems = verify_replay(replay)
    assert problems and problems[0].startswith("hand 0, action ")
    return _gz(replay), problems


def reordered_hand_records() -> tuple[bytes, list[str]]:
    lines = _lines()
    lines[1], lines[2] = lines[2], lines[1]
    problems = verify_replay(decode_replay(b"".join(lines)))
    assert problems[:2] == [
        "hand 0: hand_number: expected 0, got 1",
        "hand 0: dealer: expected 0, got 1",
    ]
    assert problems[2].startswith("hand 0: deal.hands[0].cards: expected ")
    return gzip.compress(b"".join(lines)), problems


def header_after_a_hand() -> tuple[bytes, list[str]]:
    lines = _lines()
    lines[0], lines[1] = lines[1], lines[0]
    return gzip.compress(b"".join(lines)), [
        ":1: missing header: the first record is a hand, not the header"
    ]


def a_record_after_the_result() -> tuple[bytes, list[str]]:
    lines = _lines()
    total = len(lines)
    return gzip.compress(b"".join([*lines, lines[1]])), [
        f":{total + 1}: a hand after the result (line {total}) ends the replay"
    ]


def truncated_gzip() -> tuple[bytes, list[str]]:
    data = _gz(SOURCE.replay)
    cut = data[: len(data) // 2]
    lines = zlib_prefix_lines(cut)
    assert lines < len(_lines())
    return cut, [
        f":{lines + 1}: truncated gzip file: the compressed stream ends early, after "
        f"{lines} complete line{'s' if lines != 1 else ''}"
    ]


def garbage_gzip() -> tuple[bytes, list[str]]:
    data = bytearray(_gz(SOURCE.replay))
    for offset in range(40, 60):
        data[offset] ^= 0xFF
    return bytes(data), [":1: corrupt gzip data ("]


def garbage_after_gzip() -> tuple[bytes, list[str]]:
    data = _gz(SOURCE.replay) + b"tail"
    lines = len(_lines())
    return data, [f": 4 bytes of garbage after the gzip data (which ends after line {lines})"]


def file_separator_bytes() -> tuple[bytes, list[str]]:
    return b"\x1c" * 300, [":1: not valid JSON: Expecting value (column 1)"]


def not_utf8() -> tuple[bytes, list[str]]:
    return b"\x00\xff\xfe garbage" * 5, [":1: not UTF-8 text (byte 1) and not gzip data either"]


def an_empty_file() -> tuple[bytes, list[str]]:
    return b" \n\t\r\n", [": empty file: no header, hands or result"]


def zlib_prefix_lines(data: bytes) -> int:
    """The complete lines a truncated gzip stream still yields."""
    return zlib.decompressobj(31).decompress(data).count(b"\n")


def _shown(action: actions_pb2.Action) -> str:
    return str(action_from_proto(action))


CORRUPTIONS: dict[str, Callable[[], tuple[bytes, list[str]]]] = {
    function.__name__: function
    for function in (
        rejected_but_legal,
        rejected_of_another_seat,
        seat_on_the_wrong_side,
        swapped_seats_in_the_header,
        a_missing_seat,
        swapped_seats_of_two_actions,
        a_card_flipped_in_the_deal,
        a_card_flipped_in_a_play,
        an_unknown_outcome,
        a_wrong_seed,
        a_wrong_ruleset,
        an_invalid_ruleset,
        a_broken_clock,
        a_changed_score,
        a_dropped_action,
        reordered_hand_records,
        header_after_a_hand,
        a_record_after_the_result,
        truncated_gzip,
        garbage_gzip,
        garbage_after_gzip,
        file_separator_bytes,
        not_utf8,
        an_empty_file,
    )
}


@dataclass(frozen=True)
class Verified:
    """One `rookery replay verify` run over the source and every corrupted file."""

    files: dict[str, Path]
    expected: dict[str, list[str]]
    process: subprocess.CompletedProcess[str]

    def of(self, name: str) -> list[str]:
        """The output lines about one file, without its name."""
        path = str(self.files[name])
        return [
            line[len(path) :]
            for line in self.process.stdout.splitlines()
            if line.startswith(path + ":")
        ]


@pytest.fixture(scope="module")
def verified(rookery: Rookery, tmp_path_factory: pytest.TempPathFactory) -> Verified:
    root = tmp_path_factory.mktemp("corrupted")
    files = {"source": root / "source.jsonl.gz"}
    files["source"].write_bytes(_gz(SOURCE.replay))
    expected: dict[str, list[str]] = {}
    for name, corrupt in CORRUPTIONS.items():
        data, lines = corrupt()
        files[name] = root / f"{name}.jsonl.gz"
        files[name].write_bytes(data)
        expected[name] = lines
    return Verified(files, expected, rookery("replay", "verify", *files.values()))


def test_the_uncorrupted_replay_verifies(verified: Verified) -> None:
    assert verified.of("source") == [f": ok ({len(SOURCE.replay.hands)} hands)"]


def test_verify_exits_1_without_a_traceback(verified: Verified) -> None:
    assert verified.process.returncode == 1
    assert "Traceback" not in verified.process.stdout + verified.process.stderr
    assert verified.process.stdout.splitlines()[-1] == (
        f"1 of {len(verified.files)} replays verify"
    )


@pytest.mark.parametrize("name", list(CORRUPTIONS))
def test_each_corruption_is_named_precisely(verified: Verified, name: str) -> None:
    got = verified.of(name)
    want = verified.expected[name]
    if want[0].startswith(":"):  # a file that cannot be read: one line, FILE:LINE: or FILE:
        assert len(got) == 1 and got[0].startswith(want[0]), got
    else:
        assert got == [f": {line}" for line in want]
