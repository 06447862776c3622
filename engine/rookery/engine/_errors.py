"""Every exception the engine raises: a leaf module that imports nothing from the engine."""

from __future__ import annotations

__all__ = [
    "CardParseError",
    "EngineError",
    "GameOverError",
    "IllegalActionError",
    "MalformedActionError",
    "RecordFormatError",
    "ReplayMismatchError",
    "RulesetError",
]


class EngineError(Exception):
    """Base class of every error the rules engine raises on purpose."""


class RulesetError(EngineError, ValueError):
    """A ruleset parameter combination that cannot be played (RULES.md, *Validation*).

    ``parameter`` names the offending parameter and ``reason`` says why it was refused.
    """

    def __init__(self, parameter: str, reason: str) -> None:
        super().__init__(f"invalid ruleset parameter {parameter!r}: {reason}")
        self.parameter = parameter
        self.reason = reason


class CardParseError(EngineError, ValueError):
    """A text that is not a card's text form (``B1`` … ``G14``, ``ROOK``, ``ROOK2``)."""


class MalformedActionError(EngineError, ValueError):
    """Not an action at all: wrong type, a card outside the deck, a bury of the wrong size, …

    The game state is unchanged when this is raised.
    """


class IllegalActionError(EngineError):
    """A well-formed action the rules do not allow now (the game state is unchanged).

    ``reason`` is a short machine code such as ``"wrong_phase"``, ``"bid_too_low"``,
    ``"must_follow_suit"`` or ``"not_in_hand"``; the message is for people.
    """

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class GameOverError(IllegalActionError):
    """An action, forfeit or abort on a game that is already over."""

    def __init__(self, message: str = "the game is over") -> None:
        super().__init__("game_over", message)


class ReplayMismatchError(EngineError):
    """Re-simulating a record failed: a recorded action is illegal, or a recorded result differs.

    ``index`` is the 0-based index of the offending action (``-1`` for a result mismatch).
    """

    def __init__(self, index: int, message: str) -> None:
        where = f"action {index}" if index >= 0 else "result"
        super().__init__(f"replay mismatch at {where}: {message}")
        self.index = index


class RecordFormatError(EngineError, ValueError):
    """A game record (dict or JSON) that is corrupt: missing keys, wrong types, bad text forms."""
