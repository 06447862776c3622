"""A session's send queue keeps order, refuses when full and wakes its reader."""

from __future__ import annotations

import asyncio

import pytest
from rookery.server._outbox import Outbox


async def test_items_come_out_in_order_and_a_full_outbox_refuses() -> None:
    box: Outbox[int] = Outbox(3)
    for item in (1, 2, 3):
        box.put_nowait(item)
    with pytest.raises(asyncio.QueueFull):
        box.put_nowait(4)
    assert box.qsize() == 3 and box.maxsize == 3
    assert [await box.get(), box.get_nowait(), await box.get()] == [1, 2, 3]
    assert box.empty()
    with pytest.raises(asyncio.QueueEmpty):
        box.get_nowait()


async def test_the_reader_waits_for_the_next_item() -> None:
    box: Outbox[str] = Outbox()
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    assert not reader.done()
    box.put_nowait("request")
    assert await asyncio.wait_for(reader, 1.0) == "request"


async def test_a_cancelled_read_leaves_the_outbox_usable() -> None:
    box: Outbox[int] = Outbox()
    reader = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    box.put_nowait(7)
    assert await asyncio.wait_for(box.get(), 1.0) == 7


async def test_an_outbox_has_one_reader() -> None:
    box: Outbox[int] = Outbox()
    first = asyncio.create_task(box.get())
    await asyncio.sleep(0)
    with pytest.raises(RuntimeError, match="one reader"):
        await box.get()
    box.put_nowait(1)
    assert await asyncio.wait_for(first, 1.0) == 1
