"""Honest clocks: disconnecting buys no thinking time; a resume gets the time left, not more."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import grpc
from rookery.server import RookeryServer, TimeControl
from rookery.server.testing import RawBot, bot_names, reply_to, seat_raw_bots
from rookery.v1 import bot_service_pb2, replay_pb2, results_pb2

pb = bot_service_pb2
BotFactory = Callable[..., RawBot]


def resume_hello(bot: RawBot, table_id: str) -> pb.Hello:
    assert bot.welcome is not None
    last_seq = max((event.seq for event in bot.events()), default=0)
    return pb.Hello(
        name=bot.name,
        version="1.0",
        resume=pb.Resume(
            session_id=bot.welcome.session_id,
            resume_secret=bot.welcome.resume_secret,
            cursors=[pb.TableCursor(table_id=table_id, last_seq=last_seq)],
        ),
    )


async def think_while_away(
    bot: RawBot, make: BotFactory, table_id: str, away_s: float
) -> tuple[RawBot, pb.ActionRequest | None, pb.ActionRequest | None]:
    """The attack: on a request, drop the stream, think ``away_s``, resume; the request it was
    given, and the one the resumed stream gets (None when the server closed it meanwhile)."""
    request = await bot.read_kind("action_request", 30)
    await bot.close()
    await asyncio.sleep(away_s)
    back = make(bot.target, bot.name)
    await back.connect(resume_hello(bot, table_id))
    again: pb.ActionRequest | None = None
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            message = await back.read(1.0)
        except (TimeoutError, EOFError, grpc.aio.AioRpcError):
            break
        kind = message.WhichOneof("message")
        if kind == "action_request":
            again = message.action_request
            break
        if kind == "table_finished":
            break
    return back, request, again


async def test_thinking_while_disconnected_is_timed_like_thinking_while_connected(
    server: RookeryServer, bots: BotFactory
) -> None:
    clock = TimeControl(action_ms=400, strike_limit=1, grace_ms=10_000)
    table, players = await seat_raw_bots(
        server, bots, bot_names(4), time_control=clock, preset="standard"
    )
    attacker_seat = table.game.current_player
    assert attacker_seat is not None
    others = [asyncio.ensure_future(b.play()) for i, b in enumerate(players) if i != attacker_seat]
    bot = players[attacker_seat]
    accepted_late = 0
    for _ in range(3):
        back, first, again = await think_while_away(bot, bots, table.id, 1.0)
        bot = back
        if table.is_finished:
            break
        reply_request = again or first
        assert reply_request is not None
        await back.send(reply_to(reply_request))
        answer = await back.read(5)
        if answer.WhichOneof("message") != "action_rejected":
            accepted_late += 1
        if table.is_finished:
            break
    outcome = await asyncio.wait_for(table.wait_finished(), 30)
    for task in others:
        task.cancel()
    thinks = [
        action.think_ms
        for hand in outcome.replay.hands
        for action in hand.actions
        if action.seat == attacker_seat and action.outcome == replay_pb2.ACTION_OUTCOME_ACCEPTED
    ]
    stats = outcome.seat_stats[attacker_seat]
    print(
        f"moves thought 1 s away on a 400 ms clock: {accepted_late} accepted; "
        f"timeouts {stats.timeouts}; recorded think times {thinks}"
    )
    assert accepted_late == 0
    assert stats.timeouts >= 1
    assert outcome.termination in (
        results_pb2.TERMINATION_REASON_FORFEIT_STRIKES,  # struck out while connected
        results_pb2.TERMINATION_REASON_FORFEIT_DISCONNECT,  # or while away
    )
    assert outcome.forfeit_seat == attacker_seat


async def test_a_resumed_request_carries_only_the_time_left(
    server: RookeryServer, bots: BotFactory
) -> None:
    clock = TimeControl(action_ms=3000, grace_ms=10_000)
    table, players = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
    seat = table.game.current_player
    assert seat is not None
    others = [asyncio.ensure_future(b.play()) for i, b in enumerate(players) if i != seat]
    back, first, again = await think_while_away(players[seat], bots, table.id, 1.0)
    assert first is not None and again is not None and again.request_id == first.request_id
    left = again.deadline_ms + again.bank_ms
    print(f"a 3000 ms request resumed after 1 s carries {left} ms")
    assert left <= 2100
    assert first.deadline_ms + first.bank_ms == 3000
    await back.send(reply_to(again))
    await asyncio.wait_for(asyncio.gather(back.play(), *others), 60)
    outcome = await table.wait_finished()
    assert outcome.seat_stats[seat].timeouts == 0
    recorded = next(
        a.think_ms
        for hand in outcome.replay.hands
        for a in hand.actions
        if a.seat == seat and a.outcome == replay_pb2.ACTION_OUTCOME_ACCEPTED
    )
    assert recorded >= 1000  # the time away counts as thinking
