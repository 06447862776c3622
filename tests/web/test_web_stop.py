"""A stopped dashboard serves nothing more, whatever the order its connections came in."""

from __future__ import annotations

import asyncio
import socket
import time
import urllib.request
from pathlib import Path

from rookery.web import WebServer
from rookery.web.testing import LoopThread


async def _late_handler(web: WebServer, sock: socket.socket) -> None:
    """Runs the dashboard's connection handler on ``sock`` now, as the listener would have."""
    reader, writer = await asyncio.open_connection(sock=sock)
    await asyncio.wait_for(web._connection(reader, writer), 5.0)


def test_a_connection_handled_after_stop_is_closed_unanswered(tmp_path: Path) -> None:
    """A connection the listener accepted just before ``stop`` whose handler only starts after
    it (the order an event stream opened as the dashboard stops can take) gets no answer: its
    stream would otherwise go on after the dashboard stopped, and the page never learn."""
    loop = LoopThread()  # the tests here are synchronous (the browser's API): a loop of its own
    try:
        web = WebServer("127.0.0.1:0", runs=[tmp_path])
        loop.run(web.start())
        url = f"http://127.0.0.1:{web.port}/api/tournaments"
        assert urllib.request.urlopen(url, timeout=10).status == 200
        loop.run(web.stop())

        ours, theirs = socket.socketpair()
        ours.sendall(b"GET /api/tournaments HTTP/1.1\r\nHost: dashboard\r\n\r\n")
        loop.run(_late_handler(web, theirs), 10.0)
        ours.settimeout(5.0)
        try:
            answer = ours.recv(4096)
        except ConnectionResetError:  # closed with the request unread
            answer = b""
        finally:
            ours.close()
        assert answer == b""  # closed, with no response
    finally:
        loop.close()


def test_stop_closes_a_connection_whose_handler_outlives_its_cancel(tmp_path: Path) -> None:
    """``stop`` cancels every handler, but a cancel can be lost (Python 3.11's
    ``asyncio.wait_for`` swallows one that lands as its wait completes: an event stream then
    went on after the dashboard stopped, and its page never said so). Here the handler of a
    connection in the middle of its request is taken out of ``stop``'s reach, as a lost cancel
    leaves it: its connection must still end at once, not at the request timeout (60 s)."""
    loop = LoopThread()
    try:
        web = WebServer("127.0.0.1:0", runs=[tmp_path], request_timeout_s=60.0)
        loop.run(web.start())
        client = socket.create_connection(("127.0.0.1", web.port), timeout=10.0)
        client.sendall(b"GET /api/tournaments HTTP/1.1\r\n")  # a head not yet ended
        for _ in range(200):
            if loop.run(_handlers(web)):
                break
            time.sleep(0.01)
        assert loop.run(_handlers(web)) == 1
        web._tasks.clear()  # the handler's cancel is lost
        started = time.monotonic()
        loop.run(web.stop())
        client.settimeout(5.0)
        try:
            answer = client.recv(4096)
        except ConnectionResetError:
            answer = b""
        finally:
            client.close()
        assert answer == b""
        assert time.monotonic() - started < 5.0
    finally:
        loop.close()


async def _handlers(web: WebServer) -> int:
    """How many connections the dashboard is serving (read on its loop)."""
    return web._connections
