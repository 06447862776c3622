"""A token bucket: how the server limits the messages one session may send."""

from __future__ import annotations

import time

__all__ = ["TokenBucket"]


class TokenBucket:
    """``rate`` tokens per second up to ``burst``; :meth:`take` spends one if there is one."""

    __slots__ = ("_last", "_tokens", "burst", "rate")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = float(burst)
        self._tokens = float(burst)
        self._last = time.monotonic()

    def take(self) -> bool:
        """Spends one token; False (nothing spent) when the bucket is empty."""
        now = time.monotonic()
        self._tokens = min(self.burst, self._tokens + (now - self._last) * self.rate)
        self._last = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False
