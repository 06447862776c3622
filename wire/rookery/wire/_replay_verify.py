"""Verifying a replay: re-simulated with the engine, every way it differs from what the game
gives, one line each (``hand H, action I: expected X, got Y``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC

from google.protobuf.message import Message
from rookery.engine import EngineError, Game, Ruleset, card_name, format_cards
from rookery.v1 import cards_pb2, replay_pb2, results_pb2, table_pb2

from . import notes
from .convert import (
    action_from_proto,
    card_from_proto,
    deal_to_proto,
    forfeit_from_proto,
    game_result_to_proto,
    hand_result_to_proto,
    ruleset_from_proto,
)
from .errors import MalformedMessageError

__all__ = ["enum_name", "verify_replay"]


def _card_text(message: cards_pb2.Card) -> str:
    try:
        return card_name(card_from_proto(message))
    except MalformedMessageError:
        return f"<suit {message.suit} rank {message.rank} rook {message.rook}>"


def _cards_text(cards: Sequence[cards_pb2.Card]) -> str:
    return " ".join(_card_text(card) for card in cards) or "none"


def _value_text(field: object, value: object) -> str:
    from google.protobuf.descriptor import FieldDescriptor

    assert isinstance(field, FieldDescriptor)
    if field.type == FieldDescriptor.TYPE_ENUM:
        enum = field.enum_type
        if field.is_repeated:
            assert isinstance(value, Sequence)
            return "[" + ", ".join(enum_name(enum, item) for item in value) + "]"
        assert isinstance(value, int)
        return enum_name(enum, value)
    if field.is_repeated:
        assert isinstance(value, Sequence)
        return "[" + ", ".join(str(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)


def enum_name(enum: object, value: int) -> str:
    from google.protobuf.descriptor import EnumDescriptor

    assert isinstance(enum, EnumDescriptor)
    member = enum.values_by_number.get(value)
    return member.name if member is not None else str(value)


def _differences(expected: Message, got: Message, path: str) -> list[str]:
    """One line per field that differs: ``path.field: expected X, got Y``."""
    out: list[str] = []
    for field in expected.DESCRIPTOR.fields:
        want, have = getattr(expected, field.name), getattr(got, field.name)
        if want == have:
            continue
        name = f"{path}.{field.name}" if path else field.name
        message_type = field.message_type
        if message_type is not None and message_type.full_name == "rookery.v1.Card":
            if field.is_repeated:
                out.append(f"{name}: expected {_cards_text(want)}, got {_cards_text(have)}")
                out[-1] += _card_set_difference(want, have)
            else:
                out.append(f"{name}: expected {_card_text(want)}, got {_card_text(have)}")
        elif message_type is not None and field.is_repeated:
            if len(want) != len(have):
                out.append(f"{name}: expected {len(want)} entries, got {len(have)}")
            else:
                for index, (a, b) in enumerate(zip(want, have, strict=True)):
                    out.extend(_differences(a, b, f"{name}[{index}]"))
        elif message_type is not None:
            out.extend(_differences(want, have, name))
        else:
            out.append(
                f"{name}: expected {_value_text(field, want)}, got {_value_text(field, have)}"
            )
    return out


def _card_set_difference(want: Sequence[cards_pb2.Card], have: Sequence[cards_pb2.Card]) -> str:
    try:
        a = sum(1 << card_from_proto(card) for card in want)
        b = sum(1 << card_from_proto(card) for card in have)
    except MalformedMessageError:
        return ""
    parts = []
    if a & ~b:
        parts.append(f"missing {format_cards(a & ~b)}")
    if b & ~a:
        parts.append(f"not dealt there: {format_cards(b & ~a)}")
    return f" ({'; '.join(parts)})" if parts else " (same cards, another order)"


def verify_replay(replay: replay_pb2.Replay) -> list[str]:
    """Re-simulate a replay with the engine and list every way it differs; empty when it verifies.

    The header's seats (one per seat, each on its side) and clock, each hand's deal, the seat of
    every action, every action's legality, each hand's result and the game's result are checked.
    A rejected action is checked but not applied: it must come from the seat to act and be
    malformed or illegal there (the server rejects nothing else). Auto-played ones are applied
    like any other; a recorded forfeit or abort is applied after the last action. Problems read
    ``hand H, action I: ...`` with *expected* what the re-simulation gives and *got* what the
    replay records. Once an action cannot be applied, later hands are not checked.
    """
    problems: list[str] = []
    try:
        ruleset = ruleset_from_proto(replay.header.ruleset, "header.ruleset")
    except MalformedMessageError as error:
        return [f"header: {error}"]
    problems.extend(f"header: {line}" for line in _header_problems(replay.header, ruleset))
    try:
        game = Game(ruleset, replay.header.seed, events=False)
    except (TypeError, ValueError) as error:
        return [*problems, f"header: cannot start the game: {error}"]
    broken = False
    for index, hand in enumerate(replay.hands):
        where = f"hand {index}"
        if game.is_over:
            problems.append(
                f"{where}: expected no more hands, the game was over after hand {index - 1}"
            )
            broken = True
            break
        if hand.hand_number != index:
            problems.append(f"{where}: hand_number: expected {index}, got {hand.hand_number}")
        if hand.dealer != game.dealer:
            problems.append(f"{where}: dealer: expected {game.dealer}, got {hand.dealer}")
        problems.extend(
            f"{where}: {line}" for line in _differences(deal_to_proto(game.deal), hand.deal, "deal")
        )
        broken = _replay_hand_actions(game, index, hand, problems)
        if broken:
            break
        finished = len(game.hand_results) > index
        if finished:
            if not hand.HasField("result"):
                problems.append(f"{where}: result: missing, expected the result of a finished hand")
            else:
                expected = hand_result_to_proto(game.hand_results[index])
                problems.extend(
                    f"{where}: {line}" for line in _differences(expected, hand.result, "result")
                )
        else:
            if hand.HasField("result"):
                problems.append(
                    f"{where}: result recorded, but the hand is not over after its "
                    f"{len(hand.actions)} actions"
                )
            if index + 1 < len(replay.hands):
                problems.append(
                    f"{where}: the hand is not over after its {len(hand.actions)} actions, "
                    f"yet hand {index + 1} follows"
                )
                broken = True
                break
    if broken:
        return problems
    if not replay.HasField("result"):
        problems.append("result: missing")
        return problems
    recorded = replay.result
    try:
        forfeit = forfeit_from_proto(recorded)
    except MalformedMessageError as error:
        return [*problems, str(error)]
    aborted = recorded.reason == results_pb2.TERMINATION_REASON_ABORTED
    if forfeit is not None or aborted:
        if game.is_over:
            problems.append(
                "result: a forfeit or abort is recorded, but the game had already ended "
                f"({game.result.reason.name if game.result else '?'})"
            )
            return problems
        try:
            if forfeit is not None:
                game.forfeit(forfeit.seat, forfeit.detail)
            else:
                game.abort()
        except (EngineError, ValueError) as error:
            return [*problems, f"result: cannot apply the recorded end: {error}"]
    elif not game.is_over:
        problems.append(
            f"result: expected the game to go on (hand {game.hand_number}, "
            f"{game.phase.name}), got a finished game"
        )
        return problems
    assert game.result is not None
    game_result = game_result_to_proto(game.result, forfeit=forfeit, detail=recorded.detail)
    problems.extend(_differences(game_result, recorded, "result"))
    return problems


_APPLIED = (replay_pb2.ACTION_OUTCOME_ACCEPTED, replay_pb2.ACTION_OUTCOME_AUTO_PLAYED)
_LATE_POLICIES = (table_pb2.LATE_POLICY_AUTO_PLAY, table_pb2.LATE_POLICY_FORFEIT)


def _header_problems(header: replay_pb2.ReplayHeader, ruleset: Ruleset) -> list[str]:
    """What the header records that the ruleset contradicts: its seats, its start time, its
    clock (the seed and the ruleset itself are checked by every deal they derive)."""
    problems: list[str] = []
    seats = header.seats
    if seats and len(seats) != ruleset.players:
        problems.append(f"seats: expected {ruleset.players} seats, got {len(seats)}")
    for index, seat in enumerate(seats):
        if seat.seat != index:
            problems.append(f"seats[{index}].seat: expected {index}, got {seat.seat}")
        elif seat.side != ruleset.side_of(index):
            problems.append(
                f"seats[{index}].side: expected side {ruleset.side_of(index)} "
                f"({ruleset.name}: seat {index}), got {seat.side}"
            )
    if header.HasField("start_time"):
        try:
            header.start_time.ToDatetime(tzinfo=UTC)
        except (ValueError, OverflowError, OSError) as error:
            problems.append(f"start_time: not a valid time ({error})")
    if header.HasField("time_control"):
        clock = header.time_control
        for name in ("action_ms", "bank_ms", "strike_limit", "grace_ms"):
            value = getattr(clock, name)
            if value < 0:
                problems.append(f"time_control.{name}: expected 0 or more, got {value}")
        if clock.late_policy not in _LATE_POLICIES:
            name = enum_name(table_pb2.LatePolicy.DESCRIPTOR, clock.late_policy)
            problems.append(
                "time_control.late_policy: expected LATE_POLICY_AUTO_PLAY or "
                f"LATE_POLICY_FORFEIT, got {name}"
            )
    return problems


def _check_rejected(
    game: Game, index: int, where: str, recorded: replay_pb2.ReplayAction, problems: list[str]
) -> None:
    """A rejected record: the seat to act sent it, and it was malformed or illegal there (or its
    note or fallback mark broke their bounds)."""
    if game.is_over or len(game.hand_results) > index:
        problems.append(f"{where}: a rejected action recorded after the hand was over")
        return
    if recorded.seat != game.current_player:
        problems.append(
            f"{where}: seat: expected seat {game.current_player} to act ({game.phase.name}), "
            f"got a rejected action of seat {recorded.seat}"
        )
        return
    try:
        action = action_from_proto(recorded.action)
    except MalformedMessageError:
        return  # rejected as malformed: right
    if game.is_legal(action) and not notes.is_bounds_rejection(recorded.rejection_reason):
        problems.append(
            f"{where}: seat {recorded.seat} {action}: recorded as rejected, but it is legal "
            f"here ({game.phase.name}): the server would have applied it"
        )


def _check_note(where: str, recorded: replay_pb2.ReplayAction, problems: list[str]) -> None:
    """The bounds of an action's note and fallback mark (the server refuses replies past them)."""
    if recorded.HasField("note"):
        problem = notes.note_problem(recorded.note)
        if problem is not None:
            problems.append(f"{where}: {problem}")
    if recorded.HasField("fallback"):
        problem = notes.fallback_problem(recorded.fallback)
        if problem is not None:
            problems.append(f"{where}: {problem}")
        if recorded.outcome != replay_pb2.ACTION_OUTCOME_ACCEPTED:
            name = enum_name(replay_pb2.ActionOutcome.DESCRIPTOR, recorded.outcome)
            problems.append(
                f"{where}: fallback: only a bot's accepted reply carries its SDK's fallback "
                f"mark, got one on an action {name}"
            )


def _replay_hand_actions(
    game: Game, index: int, hand: replay_pb2.ReplayHand, problems: list[str]
) -> bool:
    """Apply one hand's actions; record problems; True when the simulation cannot go on."""
    last_applied = -1
    for action_index, recorded in enumerate(hand.actions):
        where = f"hand {index}, action {action_index}"
        outcome = recorded.outcome
        _check_note(where, recorded, problems)
        if outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
            _check_rejected(game, index, where, recorded, problems)
            continue
        if outcome not in _APPLIED:
            name = enum_name(replay_pb2.ActionOutcome.DESCRIPTOR, outcome)
            problems.append(
                f"{where}: outcome: expected ACCEPTED, AUTO_PLAYED or REJECTED, got {name}"
            )
        if game.is_over or len(game.hand_results) > index:
            problems.append(
                f"{where}: expected no more actions, the hand was over after action {last_applied}"
            )
            return True
        try:
            action = action_from_proto(recorded.action)
        except MalformedMessageError as error:
            problems.append(f"{where}: malformed: {error}")
            return True
        if recorded.seat != game.current_player:
            problems.append(
                f"{where}: seat: expected seat {game.current_player} to act "
                f"({game.phase.name}), got seat {recorded.seat} ({action})"
            )
            return True
        try:
            game.apply(action)
        except EngineError as error:
            problems.append(f"{where}: seat {recorded.seat} {action}: illegal: {error}")
            return True
        last_applied = action_index
    return False
