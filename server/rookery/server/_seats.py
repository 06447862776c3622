"""The mutable state of a table's seats and of its one open request."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from enum import Enum

from ._ports import SeatChannel
from ._table_values import SeatStats

__all__ = ["OpenRequest", "RequestEnd", "SeatState"]


class RequestEnd(Enum):
    """How a request was closed."""

    ACCEPTED = "accepted"
    TIMEOUT = "timeout"
    GONE = "gone"
    ABORTED = "aborted"


class OpenRequest:
    """The one open ActionRequest of a table."""

    __slots__ = (
        "budget_ms",
        "cpu_start",
        "deadline",
        "id",
        "message",
        "recorded",
        "reply",
        "seat",
        "sent_at",
    )

    def __init__(self, request_id: int, seat: int) -> None:
        self.id = request_id
        self.recorded = 0
        self.seat = seat
        self.reply: RequestEnd | None = None
        """How the request was closed; None while it is open."""
        self.sent_at = 0.0
        self.budget_ms = 0
        self.deadline: float | None = None
        """When the reply is due (the event loop's clock); None while the clock does not run."""
        self.message: bytes | None = None
        self.cpu_start: float | None = None
        """The seat's CPU clock reading its think time counts from (None: a wall clock)."""

    @property
    def is_open(self) -> bool:
        return self.reply is None


class SeatState:
    """The mutable state of one seat."""

    __slots__ = (
        "accepted",
        "auto_plays",
        "bank_ms",
        "bot",
        "cpu_clock",
        "cpu_timeouts",
        "disconnects",
        "fallbacks",
        "gone",
        "grace_timer",
        "held",
        "illegal",
        "index",
        "last_late_request",
        "malformed",
        "session",
        "skip_until",
        "strikes",
        "think_ms_max",
        "think_ms_total",
        "timeouts",
        "version",
    )

    def __init__(self, index: int, bot: str, bank_ms: int) -> None:
        self.index = index
        self.bot = bot
        self.version = ""
        self.session: SeatChannel | None = None
        self.bank_ms = bank_ms
        self.strikes = 0
        self.gone = False
        self.skip_until = 0
        self.held: list[bytes] = []
        """Events held for a session that defers them (``Hello.defer_events``), each encoded as
        a ``TableEvent.event`` field: sent before the seat's next request or its TableFinished."""
        self.grace_timer: asyncio.TimerHandle | None = None
        self.last_late_request = 0
        self.accepted = 0
        self.think_ms_total = 0
        self.think_ms_max = 0
        self.timeouts = 0
        self.auto_plays = 0
        self.illegal = 0
        self.malformed = 0
        self.disconnects = 0
        self.cpu_clock: Callable[[], float] | None = None
        self.cpu_timeouts = 0
        self.fallbacks = 0

    @property
    def is_connected(self) -> bool:
        return self.session is not None and self.session.is_attached

    def count_accepted(self, think_ms: int, *, fallback: bool) -> None:
        """Counts an accepted reply, its think time and whether its SDK made it (a fallback)."""
        self.accepted += 1
        self.think_ms_total += think_ms
        self.think_ms_max = max(self.think_ms_max, think_ms)
        if fallback:
            self.fallbacks += 1

    def stats(self) -> SeatStats:
        mean = self.think_ms_total / self.accepted if self.accepted else 0.0
        return SeatStats(
            seat=self.index,
            bot_name=self.bot,
            bot_version=self.version,
            actions=self.accepted,
            think_ms_mean=mean,
            think_ms_max=self.think_ms_max,
            timeouts=self.timeouts,
            auto_plays=self.auto_plays,
            illegal_replies=self.illegal,
            malformed_replies=self.malformed,
            disconnects=self.disconnects,
            cpu_timeouts=self.cpu_timeouts,
            fallbacks=self.fallbacks,
        )
