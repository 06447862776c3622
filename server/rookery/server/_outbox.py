"""A session's send queue: what its stream's writer sends, in order."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Generic, TypeVar

__all__ = ["Outbox"]

_T = TypeVar("_T")


class Outbox(Generic[_T]):
    """``asyncio.Queue``'s ``put_nowait``, ``get``, ``get_nowait`` and ``empty`` for one reader.

    Every message to a bot passes through its session's queue, once per move of every table; an
    ``asyncio.Queue`` keeps books for many getters and putters and for ``join``, which cost more
    than the rest of a message's way through the queue. This one holds a deque and wakes its one
    reader. A full outbox refuses with ``asyncio.QueueFull``, like the queue.
    """

    __slots__ = ("_items", "_maxsize", "_waiter")

    def __init__(self, maxsize: int = 0) -> None:
        self._items: deque[_T] = deque()
        self._maxsize = maxsize
        self._waiter: asyncio.Future[None] | None = None

    @property
    def maxsize(self) -> int:
        """The most items held (0: no limit)."""
        return self._maxsize

    def qsize(self) -> int:
        """How many items are waiting."""
        return len(self._items)

    def empty(self) -> bool:
        """Whether no item is waiting."""
        return not self._items

    def put_nowait(self, item: _T) -> None:
        """Appends ``item``; raises ``asyncio.QueueFull`` when ``maxsize`` items wait already."""
        items = self._items
        if self._maxsize and len(items) >= self._maxsize:
            raise asyncio.QueueFull
        items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def get_nowait(self) -> _T:
        """The first item; raises ``asyncio.QueueEmpty`` when there is none."""
        if not self._items:
            raise asyncio.QueueEmpty
        return self._items.popleft()

    async def get(self) -> _T:
        """The first item, waiting for one. One reader at a time."""
        while not self._items:
            if self._waiter is not None:
                raise RuntimeError("an Outbox has one reader at a time")
            waiter = asyncio.get_running_loop().create_future()
            self._waiter = waiter
            try:
                await waiter
            finally:
                if self._waiter is waiter:  # cancelled while waiting
                    self._waiter = None
        return self._items.popleft()
