"""Writing game notation: a replay's tags, then one line per hand (its deal, its moves with
card plays grouped by trick, each move's marks and note, its score).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from rookery.engine import PlayCard, card_name
from rookery.v1 import cards_pb2, replay_pb2, results_pb2

from ._notation_forms import APPLIED, FieldDescription, enum_of, enum_prefix, escape
from .convert import action_from_proto, card_from_proto
from .errors import MalformedMessageError

__all__ = ["format_game"]


def _scalar_text(descriptor: FieldDescription, value: object) -> str:
    if descriptor.type == FieldDescriptor.TYPE_ENUM:
        assert isinstance(value, int)
        enum = enum_of(descriptor)
        member = enum.values_by_number.get(value)
        if member is None:
            return str(value)
        return member.name.removeprefix(enum_prefix(enum))
    if descriptor.type == FieldDescriptor.TYPE_BOOL:
        return "true" if value else "false"
    return str(value)


def _fields_text(message: Message, skip: Sequence[str] = ()) -> str:
    """Every scalar field as ``name=value`` (enums without their prefix), in field order."""
    return " ".join(
        f"{f.name}={_scalar_text(f, getattr(message, f.name))}"
        for f in message.DESCRIPTOR.fields
        if f.name not in skip
    )


def _card_text(card: cards_pb2.Card, where: str) -> str:
    try:
        return card_name(card_from_proto(card, where))
    except MalformedMessageError as error:
        raise ValueError(f"cannot write {where}: {error}") from None


def _cards_text(cards: Sequence[cards_pb2.Card], where: str) -> str:
    return " ".join(_card_text(card, f"{where}[{i}]") for i, card in enumerate(cards)) or "-"


_MARKS = {
    replay_pb2.ACTION_OUTCOME_ACCEPTED: "",
    replay_pb2.ACTION_OUTCOME_AUTO_PLAYED: " !auto",
}


def _mark_text(recorded: replay_pb2.ReplayAction) -> str:
    if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
        mark = f' ?rejected "{escape(recorded.rejection_reason)}"'
    else:
        mark = _MARKS.get(recorded.outcome, f" !outcome {recorded.outcome}")
    return mark + _note_text(recorded)


def _note_name(name: str) -> str:
    """A note value's name as written: bare, or quoted when it is not a valid name (so that a
    replay that breaks the bounds still writes as text ``replay verify`` can read and name)."""
    return name if re.fullmatch(r"[A-Za-z0-9_.\-]+", name) else f'"{escape(name)}"'


def _note_text(recorded: replay_pb2.ReplayAction) -> str:
    """The move's fallback mark and note, as ``!fallback "reason"`` and the note's comment
    ``!note "text" name=value …`` (both after the outcome's mark)."""
    text = ""
    if recorded.HasField("fallback"):
        text += f' !fallback "{escape(recorded.fallback.reason)}"'
    if recorded.HasField("note"):
        note = recorded.note
        values = "".join(
            f" {_note_name(name)}={note.values[name]!r}" for name in sorted(note.values)
        )
        text += f' !note "{escape(note.text)}"{values}'
    return text


def _move_text(recorded: replay_pb2.ReplayAction) -> str:
    try:
        action = str(action_from_proto(recorded.action))
    except MalformedMessageError:  # a malformed reply, kept as its bytes
        action = "#" + base64.b64encode(recorded.action.SerializeToString()).decode()
    return f"{recorded.seat} {action}{_mark_text(recorded)}"


def _moves_text(actions: Sequence[replay_pb2.ReplayAction], players: int) -> list[str]:
    """The parts of a hand line for its actions: card plays grouped by trick
    (``trick 2: 3 R14, 0 R2, 1 R5 !auto, 2 R9``), every other action a part of its own."""
    parts: list[str] = []
    group: list[str] = []
    applied = 0
    trick = 1

    def close() -> None:
        if group:
            parts.append(f"trick {trick}: {', '.join(group)}")
            group.clear()

    for recorded in actions:
        try:
            action = action_from_proto(recorded.action)
        except MalformedMessageError:
            action = None
        if not isinstance(action, PlayCard) or players < 1:
            close()
            parts.append(_move_text(recorded))
            continue
        if not group:
            trick = applied // players + 1
        group.append(f"{recorded.seat} {card_name(action.card)}{_mark_text(recorded)}")
        if recorded.outcome in APPLIED:
            applied += 1
            if applied % players == 0:
                close()
    close()
    return parts


def _ints(values: Sequence[int]) -> str:
    return " ".join(str(value) for value in values)


def _score_text(result: results_pb2.HandResult) -> str:
    if result.redeal:
        return "score redeal"
    verdict = "made" if result.made else "set"
    partner = f" partner {result.partner}" if result.partner != -1 else ""
    return (
        f"score bidder {result.bidder} bid {result.bid} {verdict} points {_ints(result.points)} "
        f"deltas {_ints(result.score_deltas)} scores {_ints(result.scores)}{partner}"
    )


def _hand_text(index: int, hand: replay_pb2.ReplayHand, players: int) -> str:
    where = f"hands[{index}].deal"
    deal = " / ".join(
        _cards_text(seat.cards, f"{where}.hands[{s}].cards")
        for s, seat in enumerate(hand.deal.hands)
    )
    parts = [f"hand {hand.hand_number} dealer {hand.dealer}", f"deal {deal}"]
    parts.append(f"nest {_cards_text(hand.deal.nest, f'{where}.nest')}")
    if hand.deal.dead:
        parts.append(f"dead {_cards_text(hand.deal.dead, f'{where}.dead')}")
    parts.extend(_moves_text(hand.actions, players))
    if hand.HasField("result"):
        parts.append(_score_text(hand.result))
    return "; ".join(parts)


def format_game(replay: replay_pb2.Replay) -> str:
    """The game notation of a replay: its tags, a blank line, one line per hand, a blank line.

    ``ValueError`` when the replay holds a card no text form names (a malformed deal).
    """
    header, result = replay.header, replay.result
    tags: list[tuple[str, str]] = [
        ("Ruleset", header.ruleset.name),
        ("Rules", _fields_text(header.ruleset, skip=("name",))),
        ("Seed", str(header.seed)),
    ]
    if header.tournament_id:
        tags.append(("Event", header.tournament_id))
    if header.table_id:
        tags.append(("Table", header.table_id))
    if header.HasField("start_time"):
        try:
            tags.append(("Date", header.start_time.ToJsonString()))
        except ValueError as error:
            raise ValueError(f"cannot write header.start_time: {error}") from None
    if header.server_version:
        tags.append(("Server", header.server_version))
    if header.HasField("time_control"):
        tags.append(("Clock", _fields_text(header.time_control)))
    for seat in header.seats:
        tags.append((f"Seat{seat.seat}", seat.bot_name))
        if seat.bot_version:
            tags.append((f"Version{seat.seat}", seat.bot_version))
        tags.append((f"Side{seat.seat}", str(seat.side)))
    if replay.HasField("result"):
        reason = results_pb2.GameResult.DESCRIPTOR.fields_by_name["reason"]
        tags.append(("Winners", _ints(result.winners)))
        tags.append(("Scores", _ints(result.scores)))
        tags.append(("HandsPlayed", str(result.hands_played)))
        tags.append(("Termination", _scalar_text(reason, result.reason)))
        if result.forfeit_seat != -1:
            tags.append(("ForfeitSeat", str(result.forfeit_seat)))
        if result.detail:
            tags.append(("Detail", result.detail))
    lines = [f'[{name} "{escape(value)}"]' for name, value in tags]
    lines.append("")
    players = header.ruleset.players
    lines.extend(_hand_text(index, hand, players) for index, hand in enumerate(replay.hands))
    return "\n".join(lines) + "\n\n"
