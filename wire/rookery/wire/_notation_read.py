"""Reading game notation: games one at a time from a stream, their tags into the replay's header
and result, their hand lines (``_notation_hand``); and a replay file of either format.
"""

from __future__ import annotations

import io
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from rookery.v1 import replay_pb2, results_pb2, table_pb2

from ._notation_forms import enum_of, enum_prefix, unescape
from ._notation_game import WHOLE_NUMBER, NotationError, TextGame, number_of, numbers_of
from ._notation_hand import parse_hand
from .errors import ReplayFileError
from .replay import decode_replay

__all__ = ["is_notation", "iter_games", "parse_game", "read_games", "read_replays"]


_TAG = re.compile(r'\[([A-Za-z][A-Za-z0-9_]*)\s+"((?:[^"\\]|\\.)*)"\]')
_SEAT_TAG = re.compile(r"(Seat|Version|Side)([0-9]{1,9})")
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


def _set_fields(
    message: Message, text: str, source: str, line: int, tag: str, skip: Sequence[str] = ()
) -> None:
    descriptor = message.DESCRIPTOR
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
            enum = enum_of(known)
            member = enum.values_by_name.get(enum_prefix(enum) + value)
            if member is None and WHOLE_NUMBER.fullmatch(value) is None:
                names = ", ".join(
                    v.name.removeprefix(enum_prefix(enum)) for v in enum.values if v.number
                )
                raise NotationError(
                    source, line, f"[{tag}]: {name}: expected one of {names}, got {value!r}"
                )
            number = member.number if member is not None else number_of(value, source, line, name)
            setattr(message, name, number)
        elif known.type == FieldDescriptor.TYPE_BOOL:
            if value not in ("true", "false"):
                raise NotationError(
                    source, line, f"[{tag}]: {name}: expected true or false, got {value!r}"
                )
            setattr(message, name, value == "true")
        else:
            number = number_of(value, source, line, f"[{tag}]: {name}")
            try:
                setattr(message, name, number)
            except ValueError as error:
                raise NotationError(source, line, f"[{tag}]: {name}: {error}") from None


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
            seat.side = number_of(value, source, line, f"[{name}]")
    value, line = tags["Termination"]
    reason = enum_of(results_pb2.GameResult.DESCRIPTOR.fields_by_name["reason"])
    member = reason.values_by_name.get(enum_prefix(reason) + value)
    if member is None:
        names = ", ".join(v.name.removeprefix(enum_prefix(reason)) for v in reason.values)
        raise NotationError(source, line, f"[Termination]: expected one of {names}, got {value!r}")
    result.reason = member.number  # type: ignore[assignment]
    for name, target in (("Winners", result.winners), ("Scores", result.scores)):
        if name in tags:
            value, line = tags[name]
            target.extend(numbers_of(value, source, line, f"[{name}]"))
    if "HandsPlayed" in tags:
        value, line = tags["HandsPlayed"]
        result.hands_played = number_of(value, source, line, "[HandsPlayed]")
    result.forfeit_seat = -1
    if "ForfeitSeat" in tags:
        value, line = tags["ForfeitSeat"]
        result.forfeit_seat = number_of(value, source, line, "[ForfeitSeat]")
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
        name, value = match.group(1), unescape(match.group(2))
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
        game.replay.hands.append(parse_hand(text.strip(), source, lines.number, index, game))
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
