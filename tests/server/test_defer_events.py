"""Hello.defer_events: a session lets the server hold a table's events until its next request."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rookery.server import RookeryServer
from rookery.server.testing import RawBot, bot_names, seat_raw_bots
from rookery.v1 import bot_service_pb2

pb = bot_service_pb2


async def test_a_deferring_session_gets_every_event_in_order_only_with_its_next_request(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    names = bot_names(4)
    hellos = [
        pb.Hello(name=name, version="1.0", batching=True, defer_events=index == 0)
        for index, name in enumerate(names)
    ]
    _, players = await seat_raw_bots(server, bots, names, seed=5, hellos=hellos)
    await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
    deferring, prompt = players[0].deliveries, players[1].deliveries

    def events(read: list[list[pb.ConnectResponse]]) -> list[tuple[int, str]]:
        return [
            (m.event.event.seq, str(m.event.event.WhichOneof("kind")))
            for inner in read
            for m in inner
            if m.WhichOneof("message") == "event"
        ]

    # The same events as a prompt seat's, in the same order, with no gap.
    got = events(deferring)
    assert got == events(prompt) and [seq for seq, _ in got] == list(range(1, len(got) + 1))
    # Each gRPC message carrying events ends with the seat's request or the game's end: nothing
    # is sent to the seat for another seat's move. A prompt seat gets events alone.
    for inner in deferring:
        if any(m.WhichOneof("message") == "event" for m in inner):
            assert inner[-1].WhichOneof("message") in ("action_request", "table_finished")
    assert any(all(m.WhichOneof("message") == "event" for m in inner) for inner in prompt)
    # Each request's last_seq is the last event that came before it.
    seen = 0
    for inner in deferring:
        for message in inner:
            if message.WhichOneof("message") == "event":
                seen = message.event.event.seq
            elif message.WhichOneof("message") == "action_request":
                assert message.action_request.last_seq == seen
