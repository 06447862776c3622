"""A table's clock: the open request's deadline (wall or CPU time) and the think time a reply is
charged, on one timer per table."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from ._cpu_clock import CpuMarks, cpu_used_ms, cpu_wait_s, cpu_wall_ms
from ._seats import OpenRequest, SeatState
from ._time_control import TimeControl

__all__ = ["RequestClock"]

_CLOCK_SLACK_S = 0.001
"""A timer may ring a little before its time (the loop's clock resolution): within this, the
deadline has come."""


class RequestClock:
    """The deadline of a table's open request: the seat's action time plus its bank, in wall
    time or on the seat's CPU clock.

    The table has one timer, re-armed lazily when it rings before the open request's deadline: a
    reply in time costs no timer at all. ``open_request`` gives the table's open request;
    ``on_timeout`` closes a request whose deadline has passed (the late policy then decides).
    """

    def __init__(
        self,
        time_control: TimeControl,
        seats: Sequence[SeatState],
        open_request: Callable[[], OpenRequest | None],
        on_timeout: Callable[[OpenRequest], None],
    ) -> None:
        self._time_control = time_control
        self._seats = seats
        self._open_request = open_request
        self._on_timeout = on_timeout
        self._timer: asyncio.TimerHandle | None = None
        self._cpu_marks = CpuMarks()

    def start(self, request: OpenRequest, seat: SeatState) -> None:
        """Starts the request's clock: the seat's action time plus its bank."""
        request.budget_ms = self._time_control.action_ms + seat.bank_ms
        request.sent_at = time.monotonic()
        now = asyncio.get_running_loop().time()
        if seat.cpu_clock is None:
            request.deadline = now + request.budget_ms / 1000.0
            self._arm(request.deadline)
        else:
            if request.cpu_start is None:
                request.cpu_start = self._cpu_marks.since(seat.cpu_clock)
            request.deadline = now + cpu_wall_ms(request.budget_ms) / 1000.0
            self._arm(min(request.deadline, now + cpu_wait_s(request, seat)))

    def think_ms(self, request: OpenRequest, seat: SeatState) -> int | None:
        """The think time a reply now is charged, or None when it comes after its deadline
        (which then passes at once)."""
        think_ms = int((time.monotonic() - request.sent_at) * 1000)
        if seat.cpu_clock is not None and request.cpu_start is not None:
            wall_ms = think_ms
            think_ms = cpu_used_ms(request, seat)
            if request.deadline is not None and think_ms > request.budget_ms:
                seat.cpu_timeouts += 1
                self._expire(request)
                return None
            if request.deadline is not None and wall_ms > cpu_wall_ms(request.budget_ms):
                self._expire(request)
                return None
        elif request.deadline is not None and think_ms > request.budget_ms:
            self._expire(request)
            return None
        return think_ms

    def charge(self, seat: SeatState, think_ms: int) -> None:
        """An accepted reply is charged ``think_ms``: what passes the action time comes off the
        seat's bank, and a seat on a CPU clock counts its next think time from now."""
        overrun = think_ms - self._time_control.action_ms
        if overrun > 0:
            seat.bank_ms = max(0, seat.bank_ms - overrun)
        self.mark_reply(seat)

    def mark_reply(self, seat: SeatState) -> None:
        """A seat on a CPU clock replied: its next request's think time counts from now."""
        if seat.cpu_clock is not None:
            self._cpu_marks.note(seat.cpu_clock)

    def cancel(self) -> None:
        """Stops the timer (the game is over)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _arm(self, at: float) -> None:
        """Makes the timer ring by ``at``."""
        timer = self._timer
        if timer is not None:
            if timer.when() <= at:
                return
            timer.cancel()
        self._timer = asyncio.get_running_loop().call_at(at, self._rang)

    def _rang(self) -> None:
        self._timer = None
        request = self._open_request()
        if request is None or request.deadline is None or not request.is_open:
            return
        now = asyncio.get_running_loop().time()
        seat = self._seats[request.seat]
        if seat.cpu_clock is not None and request.cpu_start is not None:
            if cpu_used_ms(request, seat) >= request.budget_ms:
                seat.cpu_timeouts += 1
                self._expire(request)
            elif now >= request.deadline - _CLOCK_SLACK_S:
                self._expire(request)
            else:
                self._arm(min(request.deadline, now + cpu_wait_s(request, seat)))
        elif now >= request.deadline - _CLOCK_SLACK_S:
            self._expire(request)
        else:
            self._arm(request.deadline)

    def _expire(self, request: OpenRequest) -> None:
        """The request's deadline has passed: a reply to it is late from now on."""
        request.deadline = None
        if request.is_open:
            seat = self._seats[request.seat]
            seat.last_late_request = request.id
            self.mark_reply(seat)
            self._on_timeout(request)
