"""A stopped dashboard serves nothing more, whatever the order its connections came in."""

from __future__ import annotations

import asyncio
import socket
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
