"""Seats on a CPU clock (``TableSpec.seat_clocks``): charged the CPU their bot's processes used
since its previous reply (background thinking included), bounded in wall time."""

from __future__ import annotations

import os
from collections.abc import Callable

from ._seats import OpenRequest, SeatState

__all__ = [
    "CPU_WALL_EXTRA_MS",
    "CPU_WALL_FACTOR",
    "CpuMarks",
    "cpu_used_ms",
    "cpu_wait_s",
    "cpu_wall_ms",
]

CPU_WALL_FACTOR = 10
CPU_WALL_EXTRA_MS = 5000
"""Under a CPU clock a move may still take at most ``CPU_WALL_FACTOR`` times its budget, or its
budget and ``CPU_WALL_EXTRA_MS`` if that is longer, in wall time (a bot that sleeps is late)."""
_CPU_POLL_MIN_S = 0.005
_CPUS = max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def cpu_wall_ms(budget_ms: int) -> int:
    """The wall time a move may take under a CPU clock."""
    return max(CPU_WALL_FACTOR * budget_ms, budget_ms + CPU_WALL_EXTRA_MS)


def cpu_used_ms(request: OpenRequest, seat: SeatState) -> int:
    """The CPU time the seat's bot has used on ``request``."""
    assert seat.cpu_clock is not None and request.cpu_start is not None
    return int((seat.cpu_clock() - request.cpu_start) * 1000)


def cpu_wait_s(request: OpenRequest, seat: SeatState) -> float:
    """How long the budget's CPU time cannot run out (all this machine's CPUs busy)."""
    left_ms = request.budget_ms - cpu_used_ms(request, seat)
    return max(_CPU_POLL_MIN_S, left_ms / 1000.0 / _CPUS)


class CpuMarks:
    """Per CPU clock (seats of one bot share one): its reading at the bot's previous reply or
    timeout, where the next request's think time counts from."""

    def __init__(self) -> None:
        self._marks: dict[Callable[[], float], float] = {}

    def since(self, clock: Callable[[], float]) -> float:
        """The reading a request's think time counts from (read now if there is none yet)."""
        mark = self._marks.get(clock)
        if mark is None:
            mark = self._marks[clock] = clock()
        return mark

    def note(self, clock: Callable[[], float]) -> None:
        """The bot replied or timed out: its next think time counts from now."""
        self._marks[clock] = clock()
