"""Rook game notation: a replay as text a person reads and the engine re-simulates.

The notation is to Rook what PGN is to chess: tag pairs (``[Seed "5"]``), then one line per hand
(its deal, every move in order, its score), then a blank line; a file may hold several games.
Cards and actions are written in the engine's text forms (``R14``, ``ROOK``, ``bid 75``,
``bury B5 R10 …``), parsed back by the engine's own parsers. The grammar is in
``docs/replays.md``.

>>> from rookery.engine import PRESETS
>>> from rookery.wire.selfplay import play_random_game
>>> replay = play_random_game(PRESETS["standard"].replace(target=100), 3)
>>> text = format_game(replay)
>>> text.splitlines()[0]
'[Ruleset "standard"]'
>>> game = parse_game(text)
>>> game.replay.result == replay.result, game.hand_lines[0]
(True, 23)

What the text does not carry: think times (read back as 0). Everything else of the ``Replay``
is there, bots' notes (``!note "text" samples=400.0``) and fallback marks (``!fallback
"reason"``) included; a hand's trump, buried cards and called card are the ones its moves name.
"""

from __future__ import annotations

import base64
import io
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import DecodeError, Message
from rookery.engine import (
    Bury,
    CallCard,
    EngineError,
    NameTrump,
    PlayCard,
    card_name,
    parse_action,
)
from rookery.engine import parse_card as _parse_card
from rookery.v1 import cards_pb2, replay_pb2, results_pb2, table_pb2

from .convert import action_from_proto, action_to_proto, card_from_proto, card_to_proto
from .errors import MalformedMessageError, ReplayFileError
from .replay import decode_replay

__all__ = [
    "NotationError",
    "TextGame",
    "format_game",
    "is_notation",
    "iter_games",
    "parse_game",
    "read_games",
    "read_replays",
]


class NotationError(ReplayFileError):
    """A game text that cannot be read: ``line`` (1-based) and, where it applies, ``hand``."""

    def __init__(self, source: str, line: int | None, reason: str, hand: int | None = None) -> None:
        super().__init__(source, line, f"hand {hand}: {reason}" if hand is not None else reason)
        self.hand = hand


@dataclass
class TextGame:
    """One game read from a file, and where its parts are: ``line`` is the first line of its
    tags, ``hand_lines[h]`` the line of hand ``h`` (both ``None`` for a JSON replay file)."""

    replay: replay_pb2.Replay
    line: int | None = None
    hand_lines: list[int] = field(default_factory=list)
    comments: list[tuple[int, int, str]] = field(default_factory=list)
    """Every ``{comment}`` as (hand, move index it follows or -1, text)."""
    tag_lines: dict[str, int] = field(default_factory=dict)
    """The line of each tag (``"Seed"``, ``"Side1"``)."""

    def locate(self, problem: str) -> str:
        """``verify_replay``'s problem prefixed by the line it is about: a hand's line, a tag's
        (``"3: header: seats[1].side: …"``), else the game's first line."""
        if self.line is None:
            return problem
        match = re.match(r"hand (\d+)\b", problem)
        if match is not None and int(match.group(1)) < len(self.hand_lines):
            return f"{self.hand_lines[int(match.group(1))]}: {problem}"
        line = self.tag_lines.get(self._tag_of(problem) or "")
        if line is None and problem.startswith("result"):
            line = self.tag_lines.get("Termination")
        return f"{line or self.line}: {problem}"

    def _tag_of(self, problem: str) -> str | None:
        seat = re.match(r"header: seats\[(\d+)\]\.(\w+)", problem)
        if seat is not None:
            index = int(seat.group(1))
            if index >= len(self.replay.header.seats):
                return None
            number = self.replay.header.seats[index].seat
            return f"{'Side' if seat.group(2) == 'side' else 'Seat'}{number}"
        for prefix, tag in _PROBLEM_TAGS:
            if problem.startswith(prefix):
                return tag
        return None


_PROBLEM_TAGS = (
    ("header: seats", "Seat0"),
    ("header: start_time", "Date"),
    ("header: time_control", "Clock"),
    ("header: ruleset", "Rules"),
    ("header: cannot start", "Rules"),
    ("result.winners", "Winners"),
    ("result.scores", "Scores"),
    ("result.hands_played", "HandsPlayed"),
    ("result.forfeit_seat", "ForfeitSeat"),
    ("result.detail", "Detail"),
    ("result", "Termination"),
)
"""Which tag a re-simulation problem that names no hand is about, by its beginning."""


# Writing --------------------------------------------------------------------------------------


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def _enum_of(descriptor: Any) -> EnumDescriptor:
    enum = descriptor.enum_type
    assert isinstance(enum, EnumDescriptor)
    return enum


def _enum_prefix(enum: EnumDescriptor) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"


def _scalar_text(descriptor: Any, value: object) -> str:
    if descriptor.type == FieldDescriptor.TYPE_ENUM:
        assert isinstance(value, int)
        enum = _enum_of(descriptor)
        member = enum.values_by_number.get(value)
        if member is None:
            return str(value)
        return member.name.removeprefix(_enum_prefix(enum))
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
        mark = f' ?rejected "{_escape(recorded.rejection_reason)}"'
    else:
        mark = _MARKS.get(recorded.outcome, f" !outcome {recorded.outcome}")
    return mark + _note_text(recorded)


def _note_name(name: str) -> str:
    """A note value's name as written: bare, or quoted when it is not a valid name (so that a
    replay that breaks the bounds still writes as text ``replay verify`` can read and name)."""
    return name if re.fullmatch(r"[A-Za-z0-9_.\-]+", name) else f'"{_escape(name)}"'


def _note_text(recorded: replay_pb2.ReplayAction) -> str:
    """The move's fallback mark and note, as ``!fallback "reason"`` and the note's comment
    ``!note "text" name=value …`` (both after the outcome's mark)."""
    text = ""
    if recorded.HasField("fallback"):
        text += f' !fallback "{_escape(recorded.fallback.reason)}"'
    if recorded.HasField("note"):
        note = recorded.note
        values = "".join(
            f" {_note_name(name)}={note.values[name]!r}" for name in sorted(note.values)
        )
        text += f' !note "{_escape(note.text)}"{values}'
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
        if recorded.outcome in _APPLIED:
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
    lines = [f'[{name} "{_escape(value)}"]' for name, value in tags]
    lines.append("")
    players = header.ruleset.players
    lines.extend(_hand_text(index, hand, players) for index, hand in enumerate(replay.hands))
    return "\n".join(lines) + "\n\n"


# Reading --------------------------------------------------------------------------------------

_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]')
_SEAT_TAG = re.compile(r"(Seat|Version|Side)([0-9]{1,9})")
_INT = re.compile(r"-?[0-9]+")
_INT32 = range(-(2**31), 2**31)
_SINGLE_TAGS = frozenset(
    (
        "Ruleset",
        "Rules",
        "Seed",
        "Event",
        "Table",
        "Date",
        "Server",
        "Clock",
        "Winners",
        "Scores",
        "HandsPlayed",
        "Termination",
        "ForfeitSeat",
        "Detail",
    )
)
_REQUIRED_TAGS = ("Ruleset", "Rules", "Seed", "Termination")


def is_notation(data: bytes) -> bool:
    """Whether a file's bytes are game notation (its first non-blank line a tag pair), not JSON."""
    for raw in data.removeprefix(b"\xef\xbb\xbf").split(b"\n"):
        line = raw.strip()
        if line and not line.startswith(b"%"):
            return re.match(rb"\[[A-Za-z]", line) is not None
    return False


class _Lines:
    """A text stream read line by line, with one line of push-back."""

    def __init__(self, handle: TextIO) -> None:
        self._handle = handle
        self.number = 0
        self._back: str | None = None

    def next(self) -> str | None:
        if self._back is not None:
            line, self._back = self._back, None
        else:
            raw = self._handle.readline()
            if not raw:
                return None
            line = raw.rstrip("\r\n")
        self.number += 1
        return line

    def push_back(self, line: str) -> None:
        self._back = line
        self.number -= 1


def _int(text: str, source: str, line: int, what: str, hand: int | None = None) -> int:
    if _INT.fullmatch(text) is None:
        raise NotationError(source, line, f"{what}: expected a whole number, got {text!r}", hand)
    number = int(text)
    if number not in _INT32:
        raise NotationError(source, line, f"{what}: {number} is out of range (32 bits)", hand)
    return number


def _ints_of(text: str, source: str, line: int, what: str, hand: int | None = None) -> list[int]:
    return [_int(word, source, line, what, hand) for word in text.split()]


def _set_fields(
    message: Message, text: str, source: str, line: int, tag: str, skip: Sequence[str] = ()
) -> None:
    descriptor: Any = message.DESCRIPTOR
    seen: set[str] = set()
    for word in text.split():
        name, equals, value = word.partition("=")
        known = descriptor.fields_by_name.get(name) if re.fullmatch("[a-z_]+", name) else None
        if not equals or known is None or name in skip:
            names = ", ".join(f.name for f in descriptor.fields if f.name not in skip)
            raise NotationError(
                source,
                line,
                f"[{tag}]: expected name=value with a name among {names}, got {word!r}",
            )
        if name in seen:
            raise NotationError(source, line, f"[{tag}]: {name} given twice")
        seen.add(name)
        if known.type == FieldDescriptor.TYPE_ENUM:
            enum = _enum_of(known)
            member = enum.values_by_name.get(_enum_prefix(enum) + value)
            if member is None and _INT.fullmatch(value) is None:
                names = ", ".join(
                    v.name.removeprefix(_enum_prefix(enum)) for v in enum.values if v.number
                )
                raise NotationError(
                    source, line, f"[{tag}]: {name}: expected one of {names}, got {value!r}"
                )
            number = member.number if member is not None else _int(value, source, line, name)
            setattr(message, name, number)
        elif known.type == FieldDescriptor.TYPE_BOOL:
            if value not in ("true", "false"):
                raise NotationError(
                    source, line, f"[{tag}]: {name}: expected true or false, got {value!r}"
                )
            setattr(message, name, value == "true")
        else:
            number = _int(value, source, line, f"[{tag}]: {name}")
            try:
                setattr(message, name, number)
            except ValueError as error:
                raise NotationError(source, line, f"[{tag}]: {name}: {error}") from None


def _split(text: str, source: str, line: int, hand: int | None) -> tuple[list[str], list[str]]:
    """A hand line's ``;``-separated parts, and the ``{comment}`` ending each part ('' if none)."""
    parts: list[str] = []
    comments: list[str] = []
    current: list[str] = []
    comment: list[str] = []
    quoted = braced = False
    escaped = False
    for char in text:
        if braced:
            if char == "}":
                braced = False
            else:
                comment.append(char)
        elif quoted:
            current.append(char)
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == "{":
            braced = True
            if comment:
                comment.append(" ")
        elif char == '"':
            quoted = True
            current.append(char)
        elif char == ";":
            parts.append("".join(current).strip())
            comments.append("".join(comment).strip())
            current, comment = [], []
        else:
            current.append(char)
    if braced:
        raise NotationError(source, line, "a comment opened with { is not closed on its line", hand)
    if quoted:
        raise NotationError(source, line, 'a quoted reason is not closed with "', hand)
    parts.append("".join(current).strip())
    comments.append("".join(comment).strip())
    return parts, comments


def _parse_cards(
    text: str, target: Message, name: str, source: str, line: int, hand: int, what: str
) -> None:
    cards = getattr(target, name)
    if text.strip() == "-":
        return
    for word in text.split():
        try:
            card = _parse_card(word)
        except EngineError as error:
            raise NotationError(source, line, f"{what}: {error}", hand) from None
        cards.append(card_to_proto(card))


_HAND = re.compile(r"hand\s+(\S+)\s+dealer\s+(\S+)")
_APPLIED = (replay_pb2.ACTION_OUTCOME_ACCEPTED, replay_pb2.ACTION_OUTCOME_AUTO_PLAYED)
_TRICK = re.compile(r"trick\s+(\S+):\s*(.*)")
_MOVE = re.compile(r"(-?[0-9]+)\s+(.+)")
_REJECTED = re.compile(r'(.*?)\s+\?rejected\s+"((?:[^"\\]|\\.)*)"')
_NOTE_VALUE = r'(?:"(?:[^"\\]|\\.)*"|[^\s="]+)=[^\s"]+'
_NOTE = re.compile(r'(.*?)\s+!note\s+"((?:[^"\\]|\\.)*)"((?:\s+' + _NOTE_VALUE + r")*)")
_FALLBACK = re.compile(r'(.*?)\s+!fallback\s+"((?:[^"\\]|\\.)*)"')
_SCORE = re.compile(
    r"score\s+bidder\s+(\S+)\s+bid\s+(\S+)\s+(made|set)\s+points\s+([-\d ]*?)\s*"
    r"deltas\s+([-\d ]*?)\s*scores\s+([-\d ]*?)(?:\s+partner\s+(\S+))?"
)


def _parse_move(
    text: str, hand: replay_pb2.ReplayHand, source: str, line: int, index: int, move: int
) -> None:
    where = f"action {move}"
    match = _MOVE.fullmatch(text)
    if match is None:
        raise NotationError(
            source,
            line,
            f"{where}: expected SEAT ACTION (such as '2 play R14'), got {text!r}",
            index,
        )
    recorded = hand.actions.add(seat=_int(match.group(1), source, line, f"{where}: seat", index))
    body = match.group(2).strip()
    noted = _NOTE.fullmatch(body)
    if noted is not None:
        body = noted.group(1)
        recorded.note.text = _unescape(noted.group(2))
        for pair in re.findall(_NOTE_VALUE, noted.group(3)):
            name, _, value = pair.rpartition("=")
            if name.startswith('"'):
                name = _unescape(name[1:-1])
            try:
                recorded.note.values[name] = float(value)
            except ValueError:
                raise NotationError(
                    source, line, f"{where}: note value {name}={value!r} is not a number", index
                ) from None
    fallback = _FALLBACK.fullmatch(body)
    if fallback is not None:
        body = fallback.group(1)
        recorded.fallback.reason = _unescape(fallback.group(2))
    rejected = _REJECTED.fullmatch(body)
    if rejected is not None:
        body = rejected.group(1)
        recorded.outcome = replay_pb2.ACTION_OUTCOME_REJECTED
        recorded.rejection_reason = _unescape(rejected.group(2))
    elif body.endswith(" !auto"):
        body = body.removesuffix(" !auto")
        recorded.outcome = replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
    elif (outcome := re.fullmatch(r"(.*?)\s+!outcome\s+(\S+)", body)) is not None:
        body = outcome.group(1)
        number = _int(outcome.group(2), source, line, f"{where}: outcome", index)
        recorded.outcome = number  # type: ignore[assignment]
    else:
        recorded.outcome = replay_pb2.ACTION_OUTCOME_ACCEPTED
    if body.startswith("#"):
        try:
            recorded.action.ParseFromString(base64.b64decode(body[1:], validate=True))
        except (ValueError, DecodeError) as error:  # binascii.Error is a ValueError
            raise NotationError(
                source, line, f"{where}: not a base64 Action message: {body!r} ({error})", index
            ) from None
        return
    try:
        recorded.action.CopyFrom(action_to_proto(parse_action(body)))
    except EngineError as error:
        raise NotationError(source, line, f"{where}: {error}", index) from None
    except ValueError:  # the engine's parser takes "1²" for digits; a bid beyond 32 bits
        raise NotationError(source, line, f"{where}: not an action: {body!r}", index) from None


def _parse_score(
    text: str, hand: replay_pb2.ReplayHand, source: str, line: int, index: int
) -> None:
    result = hand.result
    result.hand_number, result.dealer = hand.hand_number, hand.dealer
    if text == "score redeal":
        result.redeal = True
        return
    match = _SCORE.fullmatch(text)
    if match is None:
        raise NotationError(
            source,
            line,
            "expected 'score redeal' or 'score bidder S bid N made|set points … deltas … "
            f"scores … [partner S]', got {text!r}",
            index,
        )
    result.bidder = _int(match.group(1), source, line, "score: bidder", index)
    result.bid = _int(match.group(2), source, line, "score: bid", index)
    result.made = match.group(3) == "made"
    result.points.extend(_ints_of(match.group(4), source, line, "score: points", index))
    result.score_deltas.extend(_ints_of(match.group(5), source, line, "score: deltas", index))
    result.scores.extend(_ints_of(match.group(6), source, line, "score: scores", index))
    partner = match.group(7)
    result.partner = -1 if partner is None else _int(partner, source, line, "partner", index)
    result.deal.CopyFrom(hand.deal)
    for recorded in hand.actions:  # what the moves named: trump, buried cards, called card
        if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
            continue
        try:
            action = action_from_proto(recorded.action)
        except MalformedMessageError:
            continue
        if isinstance(action, NameTrump):
            result.trump = recorded.action.name_trump.suit
        elif isinstance(action, Bury):
            del result.buried[:]
            result.buried.extend(recorded.action.bury.cards)
        elif isinstance(action, CallCard):
            result.called_card.CopyFrom(recorded.action.call_card.card)


def _parse_hand(
    text: str, source: str, line: int, expected: int, game: TextGame
) -> replay_pb2.ReplayHand:
    parts, comments = _split(text, source, line, expected)
    head = _HAND.fullmatch(parts[0])
    if head is None:
        raise NotationError(
            source,
            line,
            f"expected a hand line 'hand {expected} dealer D; deal …', got {parts[0][:40]!r}",
        )
    number = _int(head.group(1), source, line, "hand number")
    if number != expected:
        missing = (
            f"hand {expected} is missing" if number > expected else f"hand {number} comes again"
        )
        raise NotationError(
            source, line, f"expected hand {expected}, got hand {number}: {missing}", expected
        )
    hand = replay_pb2.ReplayHand(hand_number=number)
    hand.dealer = _int(head.group(2), source, line, "dealer", number)
    if len(parts) < 3 or not parts[1].startswith("deal ") or not parts[2].startswith("nest"):
        raise NotationError(
            source,
            line,
            "expected 'deal CARDS / CARDS …; nest CARDS' after the hand number",
            number,
        )
    for seat, cards in enumerate(parts[1].removeprefix("deal ").split("/")):
        target = hand.deal.hands.add()
        _parse_cards(cards, target, "cards", source, line, number, f"deal of seat {seat}")
    _parse_cards(parts[2].removeprefix("nest"), hand.deal, "nest", source, line, number, "nest")
    rest = 3
    if len(parts) > 3 and parts[3].startswith("dead"):
        _parse_cards(parts[3].removeprefix("dead"), hand.deal, "dead", source, line, number, "dead")
        rest = 4
    for comment in comments[:rest]:
        if comment:
            game.comments.append((number, -1, comment))
    moves = parts[rest:]
    score = moves.pop() if moves and moves[-1].startswith("score") else None
    players = game.replay.header.ruleset.players
    applied = 0  # card plays applied so far, for the trick labels
    for move, comment in zip(moves, comments[rest:], strict=False):
        trick = _TRICK.fullmatch(move)
        if trick is None:
            _parse_move(move, hand, source, line, number, len(hand.actions))
            recorded = hand.actions[-1]
            if recorded.action.HasField("play_card") and recorded.outcome in _APPLIED:
                applied += 1
        else:
            label = _int(trick.group(1), source, line, "trick number", number)
            expected = applied // players + 1 if players > 0 else 0
            if label != expected:
                raise NotationError(
                    source,
                    line,
                    f"action {len(hand.actions)}: expected trick {expected} ({applied} cards "
                    f"played before it), got trick {label}",
                    number,
                )
            for entry in _entries(trick.group(2), source, line, number):
                play = _MOVE.fullmatch(entry)
                text = f"{play.group(1)} play {play.group(2)}" if play is not None else entry
                _parse_move(text, hand, source, line, number, len(hand.actions))
                if hand.actions[-1].outcome in _APPLIED:
                    applied += 1
        if comment:
            game.comments.append((number, len(hand.actions) - 1, comment))
    if score is not None:
        _parse_score(score, hand, source, line, number)
    if score is not None and comments[-1]:
        game.comments.append((number, len(hand.actions) - 1, comments[-1]))
    return hand


def _entries(text: str, source: str, line: int, hand: int) -> list[str]:
    """The ``,``-separated card plays of a trick (a ``,`` in a quoted reason does not count)."""
    entries: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for char in text:
        if quoted:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char == ",":
            entries.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    entries.append("".join(current).strip())
    return entries


def _apply_tags(
    tags: dict[str, tuple[str, int]], replay: replay_pb2.Replay, source: str, start: int
) -> None:
    for name in _REQUIRED_TAGS:
        if name not in tags:
            raise NotationError(source, start, f'missing tag [{name} "…"] in the game\'s tags')
    header, result = replay.header, replay.result
    value, line = tags["Ruleset"]
    header.ruleset.name = value
    value, line = tags["Rules"]
    _set_fields(header.ruleset, value, source, line, "Rules", skip=("name",))
    value, line = tags["Seed"]
    if re.fullmatch(r"[0-9]+", value) is None or int(value) >= 1 << 64:
        raise NotationError(source, line, f"[Seed]: expected a number 0 … 2**64-1, got {value!r}")
    header.seed = int(value)
    header.tournament_id = tags.get("Event", ("", 0))[0]
    header.table_id = tags.get("Table", ("", 0))[0]
    header.server_version = tags.get("Server", ("", 0))[0]
    if "Date" in tags:
        value, line = tags["Date"]
        try:
            header.start_time.FromJsonString(value)
        except ValueError:
            raise NotationError(
                source,
                line,
                f"[Date]: expected an RFC 3339 time such as "
                f"2026-11-29T18:04:26.131509Z, got {value!r}",
            ) from None
    if "Clock" in tags:
        value, line = tags["Clock"]
        header.time_control.SetInParent()
        _set_fields(header.time_control, value, source, line, "Clock")
    seats: dict[int, table_pb2.SeatInfo] = {}
    for name, (value, line) in tags.items():
        match = _SEAT_TAG.fullmatch(name)
        if match is None:
            continue
        number = int(match.group(2))
        if number not in seats:
            if match.group(1) != "Seat":
                raise NotationError(source, line, f"[{name}] comes before [Seat{number}]")
            seats[number] = header.seats.add(seat=number)
        seat = seats[number]
        if match.group(1) == "Seat":
            seat.bot_name = value
        elif match.group(1) == "Version":
            seat.bot_version = value
        else:
            seat.side = _int(value, source, line, f"[{name}]")
    value, line = tags["Termination"]
    reason = _enum_of(results_pb2.GameResult.DESCRIPTOR.fields_by_name["reason"])
    member = reason.values_by_name.get(_enum_prefix(reason) + value)
    if member is None:
        names = ", ".join(v.name.removeprefix(_enum_prefix(reason)) for v in reason.values)
        raise NotationError(source, line, f"[Termination]: expected one of {names}, got {value!r}")
    result.reason = member.number  # type: ignore[assignment]
    for name, target in (("Winners", result.winners), ("Scores", result.scores)):
        if name in tags:
            value, line = tags[name]
            target.extend(_ints_of(value, source, line, f"[{name}]"))
    if "HandsPlayed" in tags:
        value, line = tags["HandsPlayed"]
        result.hands_played = _int(value, source, line, "[HandsPlayed]")
    result.forfeit_seat = -1
    if "ForfeitSeat" in tags:
        value, line = tags["ForfeitSeat"]
        result.forfeit_seat = _int(value, source, line, "[ForfeitSeat]")
    result.detail = tags.get("Detail", ("", 0))[0]


def _skippable(line: str) -> bool:
    stripped = line.strip()
    return not stripped or stripped.startswith("%")


def _read_game(lines: _Lines, source: str) -> TextGame | None:
    text = lines.next()
    while text is not None and _skippable(text):
        text = lines.next()
    if text is None:
        return None
    start = lines.number
    tags: dict[str, tuple[str, int]] = {}
    while text is not None and text.lstrip().startswith("["):
        match = _TAG.fullmatch(text.strip())
        if match is None:
            raise NotationError(
                source,
                lines.number,
                f'expected a tag pair [Name "value"], got {text.strip()[:60]!r}',
            )
        name, value = match.group(1), _unescape(match.group(2))
        if name not in _SINGLE_TAGS and _SEAT_TAG.fullmatch(name) is None:
            known = ", ".join(sorted(_SINGLE_TAGS)) + ", SeatN, VersionN, SideN"
            raise NotationError(source, lines.number, f"unknown tag [{name}] (known: {known})")
        if name in tags:
            raise NotationError(
                source, lines.number, f"tag [{name}] given twice (first on line {tags[name][1]})"
            )
        tags[name] = (value, lines.number)
        text = lines.next()
    if not tags:
        assert text is not None
        raise NotationError(
            source, lines.number, f'expected a game\'s tags ([Ruleset "…"] …), got {text[:60]!r}'
        )
    game = TextGame(replay_pb2.Replay(), start, tag_lines={n: at for n, (_, at) in tags.items()})
    _apply_tags(tags, game.replay, source, start)
    while text is not None:
        if _skippable(text):
            text = lines.next()
            continue
        if text.lstrip().startswith("["):
            lines.push_back(text)
            break
        index = len(game.replay.hands)
        game.hand_lines.append(lines.number)
        game.replay.hands.append(_parse_hand(text.strip(), source, lines.number, index, game))
        text = lines.next()
    played = game.replay.result.hands_played
    if len(game.replay.hands) < played:
        raise NotationError(
            source,
            tags["HandsPlayed"][1],
            f'[HandsPlayed "{played}"] but only '
            f"{len(game.replay.hands)} hand lines: hand {len(game.replay.hands)} is missing",
        )
    return game


def iter_games(handle: TextIO, source: str = "<text>") -> Iterator[TextGame]:
    """The games of a text stream, one at a time (read as they come, like ``pgn.read_game``).

    Raises ``NotationError`` naming the line (and the hand) of the first thing it cannot read.
    """
    lines = _Lines(handle)
    while (game := _read_game(lines, source)) is not None:
        yield game


def parse_game(text: str, source: str = "<text>") -> TextGame:
    """The one game of ``text`` (``NotationError`` when it holds none or several)."""
    games = list(iter_games(io.StringIO(text), source))
    if len(games) != 1:
        raise NotationError(source, None, f"expected one game, found {len(games)}")
    return games[0]


def read_games(path: str | os.PathLike[str]) -> list[TextGame]:
    """Every game of a notation file (``NotationError`` on the first problem)."""
    name = os.fspath(path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            return list(iter_games(handle, name))
    except OSError as error:
        raise NotationError(name, None, f"cannot read: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise NotationError(name, None, f"not UTF-8 text (byte {error.start})") from None


def read_replays(path: str | os.PathLike[str]) -> list[TextGame]:
    """The games of a replay file of either format, told apart by content: game notation (its
    first line a tag pair) or JSON lines / a JSON ``Replay`` (gzip or not). A JSON file holds
    one game, located by nothing (``TextGame.line`` is ``None``)."""
    name = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ReplayFileError(name, None, f"cannot read: {error.strerror or error}") from None
    if is_notation(data):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as error:
            line = data[: error.start].count(b"\n") + 1
            raise NotationError(name, line, f"not UTF-8 text (byte {error.start})") from None
        games = list(iter_games(io.StringIO(text, newline=""), name))
        return games
    return [TextGame(decode_replay(data, name))]
