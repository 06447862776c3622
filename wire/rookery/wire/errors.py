"""Every exception ``rookery.wire`` raises: a leaf module that imports nothing from the package."""

from __future__ import annotations

__all__ = ["MalformedMessageError", "ReplayFileError", "WireError"]


class WireError(Exception):
    """Base class of every error the wire layer raises on purpose."""


class MalformedMessageError(WireError, ValueError):
    """A proto message that does not describe a valid engine value.

    ``field`` is the path of the offending field (``"action.bury.cards[2].rank"``) and ``reason``
    says what is wrong with it. Legality (is this action allowed now?) is the engine's business;
    this error only means the message itself makes no sense: an action with no kind, a card with an
    impossible suit/rank/rook combination, a bury naming a card twice, an unknown enum value, a
    ruleset the engine refuses.
    """

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


class ReplayFileError(WireError):
    """A replay file that cannot be read: unreadable, truncated, not JSON lines, wrong structure.

    ``path`` is the file, ``line`` the 1-based line the problem was found on (``None`` when it is
    about the file as a whole) and ``reason`` what is wrong.
    """

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason
