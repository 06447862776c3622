"""What reading game notation gives: a game with the line of each of its parts (``TextGame``),
the error naming the line and hand it cannot read (``NotationError``), and the whole numbers
every part is made of (32 bits, or that error).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rookery.v1 import replay_pb2

from .errors import ReplayFileError

__all__ = ["WHOLE_NUMBER", "NotationError", "TextGame", "number_of", "numbers_of"]


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


WHOLE_NUMBER = re.compile(r"-?[0-9]+")
_INT32 = range(-(2**31), 2**31)


def number_of(text: str, source: str, line: int, what: str, hand: int | None = None) -> int:
    """The 32-bit whole number ``text`` is; else ``NotationError`` naming ``what``."""
    if WHOLE_NUMBER.fullmatch(text) is None:
        raise NotationError(source, line, f"{what}: expected a whole number, got {text!r}", hand)
    number = int(text)
    if number not in _INT32:
        raise NotationError(source, line, f"{what}: {number} is out of range (32 bits)", hand)
    return number


def numbers_of(text: str, source: str, line: int, what: str, hand: int | None = None) -> list[int]:
    """The whole numbers of a space-separated list."""
    return [number_of(word, source, line, what, hand) for word in text.split()]
