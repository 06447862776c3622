"""Helpers for test suites that drive the dashboard in a browser.

- :class:`LoopThread`: an asyncio loop in a thread of its own, so that the servers run while a
  test uses a synchronous client (Playwright's sync API, ``urllib``).
- :class:`Tournament`, :class:`LiveGame`: what the web suite's fixtures hand out.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from rookery.arena.records import RunData
from rookery.server import RookeryServer, Table

from ._http import WebServer

__all__ = ["LiveGame", "LoopThread", "Tournament"]

T = TypeVar("T")


class LoopThread:
    """An asyncio event loop running in a daemon thread; ``run`` a coroutine on it and wait."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coroutine: Coroutine[object, None, T], timeout: float = 120.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(5.0)


@dataclass
class Tournament:
    """A finished round-robin in a run directory, and the dashboard serving it.

    ``key`` is its key in the dashboard; ``seen_playing`` the tables the tournament page
    listed as being played while it ran, and ``withheld`` the replays answered 409 then
    (filled in by fixtures that watch it run)."""

    run_dir: Path
    data: RunData
    web: WebServer
    key: str = ""
    server: RookeryServer | None = None
    seen_playing: set[str] = field(default_factory=set)
    withheld: set[str] = field(default_factory=set)


@dataclass
class LiveGame:
    """A game being played by slow in-process bots on a real server, and the dashboard."""

    server: RookeryServer
    web: WebServer
    table: Table
    stop: asyncio.Event
    loop: LoopThread | None = None

    def call(self, function: Callable[..., T], *args: object) -> T:
        """``function(*args)`` on the servers' loop (so that the game does not move meanwhile)."""

        async def call() -> T:
            return function(*args)

        assert self.loop is not None
        return self.loop.run(call(), 10.0)
