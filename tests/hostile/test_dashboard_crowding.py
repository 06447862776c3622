"""One visitor holding the dashboard's connections does not take it away from the others.

The dashboard caps its open connections (256) so that slow visitors cannot take the game
server's file descriptors; one address holding all of them once left every other visitor a 503:
the pages, the JSON API and a person's ``/play`` seat. Connections are now capped per address
too. Another visitor comes from another loopback address (127.0.0.2).
"""

from __future__ import annotations

import asyncio
import http.client
import json
from typing import Any

from hostile_support import QUIET
from rookery.server.testing import RawBot, running_server
from rookery.web import WebServer

OTHER = "127.0.0.2"


def _request(port: int, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
    """One request from the other visitor's address."""
    connection = http.client.HTTPConnection(
        "127.0.0.1", port, timeout=10, source_address=(OTHER, 0)
    )
    try:
        data = None if body is None else json.dumps(body).encode()
        headers = {} if body is None else {"Content-Type": "application/json"}
        connection.request(method, path, body=data, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


async def request(port: int, method: str, path: str, body: Any = None) -> tuple[int, bytes]:
    """From a thread: the dashboard runs on this event loop."""
    return await asyncio.to_thread(_request, port, method, path, body)


async def test_one_address_holding_every_connection_leaves_the_dashboard_to_the_others() -> None:
    async with (
        running_server(QUIET, stop_grace_s=0.1) as server,
        WebServer("127.0.0.1:0", server=server) as web,
    ):
        bots = [RawBot(server.target, f"v{seat}") for seat in (1, 2, 3)]
        for bot in bots:
            await bot.connect()
        # The crowd: every connection the dashboard allows, from one address, never a request.
        held = [
            await asyncio.open_connection("127.0.0.1", web.port) for _ in range(web.max_connections)
        ]
        await asyncio.sleep(0.3)
        page = await request(web.port, "GET", "/")
        listing = await request(web.port, "GET", "/api/tables")
        setup = await request(web.port, "GET", "/api/play")
        seat = {"preset": "standard", "seat": 0, "bots": ["", "v1", "v2", "v3"]}
        opened = await request(web.port, "POST", "/api/play", seat)
        # What the crowd got: all but its share refused at once.
        refused = 0
        for reader, _ in held:
            try:
                answer = await asyncio.wait_for(reader.read(64), 0.01)
            except TimeoutError:
                continue
            refused += answer.startswith(b"HTTP/1.1 503")
        statuses = [page[0], listing[0], setup[0], opened[0]]
        print(
            f"{web.max_connections} connections held from one address: the other visitor's "
            f"/, /api/tables, GET and POST /api/play answered {statuses}; the crowd had "
            f"{refused} refused (cap {web.max_connections_per_address} an address)"
        )
        for _, writer in held:
            writer.close()
        for bot in bots:
            await bot.close()
        assert statuses == [200, 200, 200, 200], (page, listing, setup, opened)
        assert b"Rookery" in page[1] and b"seat_id" in opened[1]
        assert refused == web.max_connections - web.max_connections_per_address
