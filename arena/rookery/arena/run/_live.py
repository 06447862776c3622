"""What a run shows while it plays: :class:`LiveState`, updated after every game."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from rookery.arena.records._storage import GameRow
from rookery.arena.stats._ratings import OnlineElo
from rookery.arena.stats._sprt import SprtTest

__all__ = ["LiveState"]


@dataclass
class LiveState:
    """What the progress display shows, updated after every game."""

    name: str
    total: int
    done: int
    started_at: float
    played_now: int = 0
    elo: OnlineElo = field(default_factory=OnlineElo)
    wins: dict[str, int] = field(default_factory=dict)
    losses: dict[str, int] = field(default_factory=dict)
    draws: dict[str, int] = field(default_factory=dict)
    incidents: dict[str, int] = field(default_factory=dict)
    sprt: SprtTest | None = None
    last_game: GameRow | None = None
    messages: list[str] = field(default_factory=list)
    #: The language-model seats' cost so far, in US dollars, and the games it was spent in.
    cost_usd: float = 0.0
    costed_games: int = 0

    @property
    def rate(self) -> float:
        """Games per second in this run."""
        elapsed = time.monotonic() - self.started_at
        return self.played_now / elapsed if elapsed > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        """Seconds left at the current rate."""
        if self.rate <= 0:
            return None
        return (self.total - self.done) / self.rate
