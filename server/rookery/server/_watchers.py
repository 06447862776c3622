"""A spectator's stream of a table."""

from __future__ import annotations

import asyncio

from rookery.v1 import spectator_service_pb2

__all__ = ["Watcher"]


class Watcher:
    """One spectator stream of a table: a bounded queue of WatchTableResponse (None ends it)."""

    __slots__ = ("overflowed", "queue", "skip_until")

    def __init__(self, size: int, skip_until: int = 0) -> None:
        self.skip_until = skip_until
        self.queue: asyncio.Queue[spectator_service_pb2.WatchTableResponse | None] = asyncio.Queue(
            size
        )
        self.overflowed = False

    def put(self, message: spectator_service_pb2.WatchTableResponse | None) -> None:
        if self.overflowed:
            return
        try:
            self.queue.put_nowait(message)
        except asyncio.QueueFull:
            self.overflowed = True
            # Make room for the end marker: the watcher is told it fell behind.
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)
