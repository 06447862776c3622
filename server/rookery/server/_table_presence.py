"""A seat's presence at its table: a lost stream starts the seat's grace period (its clock runs
on: being away buys no thinking time), a seat not back within it is gone, and a resume or the
end of the game stops the period."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from structlog.typing import FilteringBoundLogger

from ._seats import OpenRequest, SeatState

__all__ = ["SeatPresence", "stop_grace"]


def stop_grace(seat: SeatState) -> None:
    """Stops the seat's grace period, if one runs (it resumed, or the game is over)."""
    if seat.grace_timer is not None:
        seat.grace_timer.cancel()
        seat.grace_timer = None


class SeatPresence:
    """The grace periods of one table's seats. ``is_finished`` tells whether the table's game
    has ended, ``open_request`` gives its open request, and ``on_gone`` closes the request of a
    seat that is gone (the late policy then decides)."""

    def __init__(
        self,
        table_id: str,
        grace_ms: int,
        is_finished: Callable[[], bool],
        open_request: Callable[[], OpenRequest | None],
        on_gone: Callable[[OpenRequest], None],
        log: FilteringBoundLogger,
    ) -> None:
        self._table_id = table_id
        self._grace_ms = grace_ms
        self._is_finished = is_finished
        self._open_request = open_request
        self._on_gone = on_gone
        self._log = log

    def disconnected(self, seat: SeatState) -> None:
        """The seat's session lost its stream: its grace period starts (its clock runs on)."""
        if self._is_finished() or seat.gone:
            return
        seat.disconnects += 1
        # The seat's clock keeps running: being away buys no thinking time.
        if seat.grace_timer is None:
            seat.grace_timer = asyncio.get_running_loop().call_later(
                self._grace_ms / 1000.0, self._grace_over, seat
            )
        self._log.info("seat disconnected", seat=seat.index, bot=seat.bot)

    def _grace_over(self, seat: SeatState) -> None:
        seat.grace_timer = None
        if self._is_finished() or seat.is_connected:
            return
        seat.gone = True
        seat.held.clear()
        if seat.session is not None:
            seat.session.leave(self._table_id)
        self._log.info("seat gone: no resume within the grace period", seat=seat.index)
        request = self._open_request()
        if request is not None and request.seat == seat.index:
            self._on_gone(request)
