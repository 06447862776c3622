"""Hello.observations_only: a session that acts on observations alone gets no events."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from rookery.engine import Ruleset
from rookery.server import RookeryServer, TableSpec, TimeControl
from rookery.server.testing import RawBot, bot_names, seat_raw_bots
from rookery.v1 import bot_service_pb2, results_pb2

pb = bot_service_pb2


async def play_one_game(
    server: RookeryServer, bots: Callable[..., RawBot], quiet_seats: set[int]
) -> list[RawBot]:
    """Four raw bots play a game; the bots named for ``quiet_seats`` ask for no events."""
    names = bot_names(4)
    players = [bots(server.target, name) for name in names]
    for index, bot in enumerate(players):
        await bot.connect(
            pb.Hello(name=bot.name, version="1.0", observations_only=index in quiet_seats)
        )
    table = await server.create_table(TableSpec(Ruleset.preset("standard"), names, seed=5))
    finished = await asyncio.wait_for(asyncio.gather(*(b.play() for b in players)), 60)
    reached = results_pb2.TERMINATION_REASON_TARGET_REACHED
    assert all(tables[0].result.reason == reached for tables in finished)
    assert table.outcome is not None
    return players


def kinds(bot: RawBot) -> set[str]:
    return {str(message.WhichOneof("message")) for message in bot.received}


async def test_an_observations_only_session_gets_requests_and_no_events(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    quiet, *others = await play_one_game(server, bots, {0})
    assert "event" not in kinds(quiet)
    assert {"table_joined", "action_request", "table_finished"} <= kinds(quiet)
    for bot in others:  # the other seats still get every event, gap-free
        seqs = [event.seq for event in bot.events()]
        assert seqs == list(range(1, len(seqs) + 1)) and seqs


async def test_every_seat_may_ask_for_observations_only(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players = await play_one_game(server, bots, {0, 1, 2, 3})
    for bot in players:
        assert "event" not in kinds(bot)


async def test_a_resumed_observations_only_session_gets_a_snapshot_without_missed_events(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(action_ms=5_000, grace_ms=10_000)
    table, players = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
    first = table.game.current_player
    assert first is not None
    dropped = (first + 1) % 4
    old = players[dropped]
    await old.close()
    others = [asyncio.ensure_future(b.play()) for i, b in enumerate(players) if i != dropped]
    deadline = time.monotonic() + 10.0
    while table.game.current_player != dropped:  # the others play on until the seat is to act
        assert time.monotonic() < deadline, "the dropped seat never came to act"
        await asyncio.sleep(0.01)
    assert old.welcome is not None
    back = bots(server.target, old.name)
    resume = pb.Resume(session_id=old.welcome.session_id, resume_secret=old.welcome.resume_secret)
    await back.connect(
        pb.Hello(name=old.name, version="1.0", resume=resume, observations_only=True)
    )
    snapshot = await back.read_kind("table_snapshot")
    assert snapshot.observation.seat == dropped and not snapshot.missed_events
    await asyncio.wait_for(asyncio.gather(back.play(), *others), 60)
    assert "event" not in {str(m.WhichOneof("message")) for m in back.received}
    outcome = await table.wait_finished()
    assert outcome.termination == results_pb2.TERMINATION_REASON_TARGET_REACHED
