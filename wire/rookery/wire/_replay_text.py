"""A replay as text a person reads: the header, the engine's hand-by-hand text, and what the
server recorded beyond the rules (rejected and auto-played actions, fallbacks, notes, the end)."""

from __future__ import annotations

from datetime import UTC

from rookery.engine import format_replay_text
from rookery.v1 import replay_pb2, table_pb2

from ._replay_record import replay_to_record
from ._replay_verify import enum_name
from .convert import action_from_proto, forfeit_from_proto, termination_name
from .errors import MalformedMessageError

__all__ = ["replay_text"]


def replay_text(replay: replay_pb2.Replay) -> str:
    """A replay as text a person can read: who played where and when, then hand by hand (the
    engine's ``format_replay_text`` of the re-simulated game), then what the server recorded
    beyond the rules: rejected and auto-played actions, the bots' fallbacks and notes, and how
    the game ended.

    Raises ``MalformedMessageError`` or the engine's ``ReplayMismatchError`` for a replay that
    does not verify (check with ``verify_replay`` first).
    """
    header = replay.header
    lines = []
    if header.table_id or header.tournament_id:
        tournament = f", tournament {header.tournament_id}" if header.tournament_id else ""
        lines.append(f"Table {header.table_id or '-'}{tournament}")
    if header.HasField("start_time"):
        lines.append(f"Started {header.start_time.ToDatetime(tzinfo=UTC).isoformat()}")
    if header.server_version:
        lines.append(f"Server {header.server_version}")
    if header.HasField("time_control"):
        clock = header.time_control
        policy = enum_name(table_pb2.LatePolicy.DESCRIPTOR, clock.late_policy)
        lines.append(
            f"Clock {clock.action_ms} ms per action, bank {clock.bank_ms} ms, "
            f"{policy.removeprefix('LATE_POLICY_')}, strike limit {clock.strike_limit}"
        )
    for seat in header.seats:
        version = f" {seat.bot_version}" if seat.bot_version else ""
        lines.append(f"  seat {seat.seat} (side {seat.side}): {seat.bot_name}{version}")
    body = format_replay_text(replay_to_record(replay)).rstrip()
    lines.extend(["", body] if lines else [body])
    notes = []
    for hand_index, hand in enumerate(replay.hands):
        for index, recorded in enumerate(hand.actions):
            if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
                try:
                    shown = str(action_from_proto(recorded.action))
                except MalformedMessageError as error:
                    shown = f"malformed ({error})"
                reason = f": {recorded.rejection_reason}" if recorded.rejection_reason else ""
                notes.append(
                    f"  hand {hand_index}, action {index}: seat {recorded.seat} {shown} "
                    f"rejected{reason}"
                )
            elif recorded.outcome == replay_pb2.ACTION_OUTCOME_AUTO_PLAYED:
                shown = str(action_from_proto(recorded.action))
                notes.append(
                    f"  hand {hand_index}, action {index}: seat {recorded.seat} {shown} "
                    "auto-played (late)"
                )
    if notes:
        lines.extend(["", "Rejected and auto-played actions:", *notes])
    marks = []
    for hand_index, hand in enumerate(replay.hands):
        for index, recorded in enumerate(hand.actions):
            where = f"  hand {hand_index}, action {index}: seat {recorded.seat}"
            if recorded.HasField("fallback"):
                marks.append(f"{where} fallback: {recorded.fallback.reason}")
            if recorded.HasField("note"):
                values = "".join(
                    f" {name}={recorded.note.values[name]:g}"
                    for name in sorted(recorded.note.values)
                )
                marks.append(f"{where} note: {recorded.note.text}{values}")
    if marks:
        lines.extend(["", "Fallbacks and notes (the bots' own words):", *marks])
    result = replay.result
    forfeit = forfeit_from_proto(result)
    if forfeit is not None or result.detail:
        ending = termination_name(result.reason).lower().replace("_", " ")
        if forfeit is not None:
            ending += f" by seat {forfeit.seat}"
        if result.detail:
            ending += f" ({result.detail})"
        lines.extend(["", f"Ended: {ending}"])
    return "\n".join(lines) + "\n"
