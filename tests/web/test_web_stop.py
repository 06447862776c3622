"""A stopped dashboard serves nothing more, whatever the order its connections came in."""

from __future__ import annotations

import asyncio
import socket
import urllib.request
from pathlib import Path

from rookery.web import WebServer


async def test_a_connection_handled_after_stop_is_closed_unanswered(tmp_path: Path) -> None:
    """A connection the listener accepted just before ``stop`` whose handler only starts after
    it (the order an event stream opened as the dashboard stops can take) gets no answer: its
    stream would otherwise go on after the dashboard stopped, and the page never learn."""
    web = WebServer("127.0.0.1:0", runs=[tmp_path])
    await web.start()
    url = f"http://127.0.0.1:{web.port}/api/tournaments"
    assert (await asyncio.to_thread(urllib.request.urlopen, url, timeout=10)).status == 200
    await web.stop()

    ours, theirs = socket.socketpair()
    reader, writer = await asyncio.open_connection(sock=theirs)
    ours.sendall(b"GET /api/tournaments HTTP/1.1\r\nHost: dashboard\r\n\r\n")
    await asyncio.wait_for(web._connection(reader, writer), 5.0)  # the late handler, run now

    ours.settimeout(5.0)
    try:
        answer = ours.recv(4096)
    except ConnectionResetError:  # closed with the request unread
        answer = b""
    finally:
        ours.close()
    assert answer == b""  # closed, with no response
