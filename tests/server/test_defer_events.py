"""Hello.defer_events: a session lets the server hold a table's events until its next request."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rookery.server import RookeryServer
from rookery.server.testing import RawBot, bot_names, seat_raw_bots
from rookery.v1 import bot_service_pb2, events_pb2

pb = bot_service_pb2
PUBLIC = ("bid_made", "passed", "card_played", "trick_won")


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


def _event_runs(read: list[list[pb.ConnectResponse]]) -> list[list[events_pb2.Event]]:
    """Each event-carrying message's events: a TableEvent's one, a TableEvents' all."""
    runs: list[list[events_pb2.Event]] = []
    for inner in read:
        for message in inner:
            kind = message.WhichOneof("message")
            if kind == "event":
                runs.append([message.event.event])
            elif kind == "table_events":
                runs.append(list(message.table_events.events))
    return runs


async def test_a_grouping_session_gets_the_same_events_in_fewer_messages(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    names = bot_names(4)
    # Seat 0 defers and groups, seat 1 groups without deferring, seat 2 does neither.
    hellos = [
        pb.Hello(name=names[0], batching=True, defer_events=True, group_events=True),
        pb.Hello(name=names[1], batching=True, group_events=True),
        pb.Hello(name=names[2], batching=True),
        pb.Hello(name=names[3], batching=True),
    ]
    _, players = await seat_raw_bots(server, bots, names, seed=11, hellos=hellos)
    await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
    held, grouped, single = (_event_runs(players[i].deliveries) for i in range(3))

    def flat(runs: list[list[events_pb2.Event]]) -> list[tuple[int, str, bytes]]:
        """Each event's seq and kind, and its bytes where every seat sees the same."""
        return [
            (e.seq, kind, e.SerializeToString() if kind in PUBLIC else b"")
            for run in runs
            for e in run
            if (kind := str(e.WhichOneof("kind")))
        ]

    # The same events in the same order, whichever way they came (a deal, the nest and the
    # bury show each seat its own view; the bids, cards and tricks are the same bytes for all).
    assert flat(held) == flat(grouped) == flat(single)
    assert len(flat(single)) > 50 and all(len(run) == 1 for run in single)
    # Grouped: never a TableEvent, and fewer messages than events. A move's events come together
    # (a card and the trick it wins); the held ones come as one message per release.
    for player in players[:2]:
        kinds = {m.WhichOneof("message") for inner in player.deliveries for m in inner}
        assert "table_events" in kinds and "event" not in kinds
    assert len(grouped) < len(single) and max(len(run) for run in grouped) >= 2
    assert len(held) < len(grouped) and max(len(run) for run in held) >= 4
    # Each held group ends where a deferring seat's events always end: just before its request
    # or its game's end, and the request's last_seq is the group's last event.
    for inner in players[0].deliveries:
        for index, message in enumerate(inner):
            if message.WhichOneof("message") == "table_events":
                after = inner[index + 1]
                assert after.WhichOneof("message") in ("action_request", "table_finished")
                if after.WhichOneof("message") == "action_request":
                    last = message.table_events.events[-1].seq
                    assert after.action_request.last_seq == last
