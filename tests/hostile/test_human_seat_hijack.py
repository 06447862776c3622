"""A person's `/play` session belongs to its page alone: a stranger cannot seat it at his table.

The human seat's session name is public (the live tables list shows who sits where). Naming it
as a "connected bot" in ``POST /api/play`` once created a table that waited for it; when the
person's game ended, the session was seated there and played under the person's name by the
server's clock. The attack runs through the real HTTP API of a real dashboard and game server.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

from hostile_support import QUIET
from rookery.server import RookeryServer
from rookery.server.testing import RawBot, running_server
from rookery.web import WebServer


def _call(url: str, body: Any = None, key: str = "") -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method="GET" if body is None else "POST",
        headers={"Content-Type": "application/json", "X-Rookery-Seat": key},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


async def call(url: str, body: Any = None, key: str = "") -> tuple[int, Any]:
    """An HTTP request from a thread (the dashboard runs on this event loop)."""
    return await asyncio.to_thread(_call, url, body, key)


def _first_offer(offer: dict[str, Any]) -> str:
    """The first action the seat's page offers."""
    phase = offer["phase"]
    if phase == "BIDDING":
        return "pass" if offer["can_pass"] else f"bid {offer['bids'][0]}"
    if phase == "NAME_TRUMP":
        return f"trump {offer['suits'][0]}"
    if phase == "BURY":
        return "bury " + " ".join(offer["cards"][: offer["count"]])
    return f"{'call' if phase == 'CALL' else 'play'} {offer['cards'][0]}"


async def play_person(url: str, key: str) -> None:
    """The person plays their seat through its API to the end of the game."""
    for _ in range(2000):
        _, state = await call(url, key=key)
        if state["status"] in ("finished", "failed"):
            return
        request = state["request"]
        if request is None:
            await asyncio.sleep(0.02)
            continue
        action = {"request_id": request["request_id"], "action": _first_offer(request["offer"])}
        await call(url + "/action", action, key=key)
    raise AssertionError("the person's game did not end")


async def _bots(server: RookeryServer, names: tuple[str, ...]) -> list[RawBot]:
    bots = [RawBot(server.target, name) for name in names]
    for bot in bots:
        await bot.connect()
    return bots


async def test_a_strangers_table_cannot_name_a_persons_seat_as_a_bot() -> None:
    async with (
        running_server(QUIET, stop_grace_s=0.1) as server,
        WebServer("127.0.0.1:0", server=server) as web,
    ):
        mine = await _bots(server, ("p1", "p2", "p3"))
        theirs = await _bots(server, ("s2", "s3"))
        playing = [asyncio.create_task(bot.play(wait_s=60.0)) for bot in mine]
        # The person: a short game (to 50 points), played through the seat's API.
        code, opened = await call(
            web.url + "/api/play",
            {"preset": "standard", "seat": 0, "bots": ["", "p1", "p2", "p3"], "target": 50},
        )
        assert code == 200, opened
        table_id = f"play-{opened['seat_id']}"
        person_plays = asyncio.create_task(
            play_person(f"{web.url}/api/play/{opened['seat_id']}", opened["secret"])
        )
        # The stranger reads the person's session name off the public tables list ...
        _, listed = await call(web.url + "/api/tables")
        person = next(t for t in listed["tables"] if t["table_id"] == table_id)["seats"][0]["bot"]
        assert person.startswith("human-")
        # ... and names it as a "connected bot" of his own table.
        attack = {"preset": "standard", "seat": 0, "bots": ["", person, "s2", "s3"]}
        code, answer = await call(web.url + "/api/play", attack)
        print(f"POST /api/play naming the person's session {person!r}: {code} {answer}")
        await asyncio.wait_for(server.get_table(table_id).wait_finished(), 60)
        await asyncio.wait_for(asyncio.gather(person_plays, *playing), 60)
        # The person's game is over: nothing may seat their session anywhere now.
        for _ in range(100):  # its stream ends with its game: within 5 s
            if person not in server.sessions:
                break
            await asyncio.sleep(0.05)
        seated = [
            t.id
            for t in server.list_tables()
            if t.id != table_id and person in t.seat_bots() and t.status.name != "WAITING"
        ]
        print(f"tables other than the person's that seated their session: {seated}")
        for bot in mine + theirs:
            await bot.close()
        assert seated == []
        assert code == 400 and "a person's seat" in answer["error"], answer
        assert person not in server.sessions, "the person's session outlived their game"
