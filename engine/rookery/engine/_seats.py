"""Who sits at each seat, and why a seat forfeited: facts of a table that its record keeps.

The rules do not use them (the engine's ``Game.forfeit`` takes a seat and a free-text reason),
but the server's tables, the replays and the arena all speak of them; they are domain values, so
they live here, and ``rookery.wire.convert`` only converts them to and from the wire.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from ._ruleset import Ruleset

__all__ = ["Forfeit", "ForfeitKind", "SeatAssignment"]


class ForfeitKind(Enum):
    """Why a seat forfeited; the game itself only knows *that* it did (``Termination.FORFEIT``)."""

    TIMEOUT = "timeout"
    """Missed its deadline under the FORFEIT late policy."""
    DISCONNECT = "disconnect"
    """Disconnected and did not resume within the grace period."""
    STRIKES = "strikes"
    """Exceeded the strike limit of the AUTO_PLAY late policy."""


@dataclass(frozen=True)
class Forfeit:
    """A forfeit as a table records it: which seat, why, and a human-readable detail."""

    seat: int
    kind: ForfeitKind
    detail: str = ""


@dataclass(frozen=True)
class SeatAssignment:
    """Who sits at one seat: the seat, its side, and the bot's name and version."""

    seat: int
    side: int
    bot_name: str
    bot_version: str = ""

    @classmethod
    def for_ruleset(
        cls, ruleset: Ruleset, bots: Sequence[str | tuple[str, str]]
    ) -> tuple[SeatAssignment, ...]:
        """One assignment per seat, in seat order: ``bots[s]`` is a name or ``(name, version)``."""
        if len(bots) != ruleset.players:
            raise ValueError(f"{ruleset.players} seats need as many bots, got {len(bots)}")
        seats = []
        for seat, bot in enumerate(bots):
            name, version = (bot, "") if isinstance(bot, str) else bot
            seats.append(cls(seat, ruleset.side_of(seat), name, version))
        return tuple(seats)
