"""Dropped streams: resuming within the grace period, and the late policy after it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import grpc
from rookery.server import LatePolicy, RookeryServer, Table, TimeControl
from rookery.server.testing import RawBot, bot_names, reply_to, seat_raw_bots
from rookery.v1 import bot_service_pb2, results_pb2

pb = bot_service_pb2


async def wait_until_seat_to_act(table: Table, seat: int, wait_s: float = 10.0) -> None:
    deadline = time.monotonic() + wait_s
    while table.game.current_player != seat:
        assert time.monotonic() < deadline, "the seat never came to act"
        await asyncio.sleep(0.01)


def resume_hello(bot: RawBot, table_id: str, last_seq: int) -> pb.Hello:
    assert bot.welcome is not None
    return pb.Hello(
        name=bot.name,
        version="1.0",
        resume=pb.Resume(
            session_id=bot.welcome.session_id,
            resume_secret=bot.welcome.resume_secret,
            cursors=[pb.TableCursor(table_id=table_id, last_seq=last_seq)],
        ),
    )


async def drop_a_seat(
    server: RookeryServer, bots: Callable[..., RawBot], clock: TimeControl
) -> tuple[Table, list[RawBot], int, list[asyncio.Future[object]]]:
    """Seats four bots, drops the stream of the third to act, lets the others play on."""
    table, players = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
    first = table.game.current_player
    assert first is not None
    dropped = (first + 2) % 4
    await players[dropped].close()
    others = [asyncio.ensure_future(b.play()) for i, b in enumerate(players) if i != dropped]
    return table, players, dropped, others  # type: ignore[return-value]


async def test_a_resumed_session_gets_a_snapshot_and_the_open_request_again(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(action_ms=3000, grace_ms=10_000)
    table, players, dropped, others = await drop_a_seat(server, bots, clock)
    old = players[dropped]
    cursor = max((event.seq for event in old.events()), default=0)
    await wait_until_seat_to_act(table, dropped)
    await asyncio.sleep(0.5)  # the clock runs on while the seat is away (within action_ms)
    back = bots(server.target, old.name)
    welcome = await back.connect(resume_hello(old, table.id, cursor))
    assert welcome.resumed and welcome.session_id == old.welcome.session_id
    snapshot = await back.read_kind("table_snapshot")
    assert snapshot.table.table_id == table.id and snapshot.table.seat == dropped
    assert snapshot.missed_events[0].event.seq == cursor + 1
    assert snapshot.observation.seat == dropped
    request = await back.read_kind("action_request")
    assert request.seat == dropped
    assert request.deadline_ms + request.bank_ms < 3000  # the time left, not a new deadline
    await back.send(reply_to(request))
    await asyncio.wait_for(asyncio.gather(back.play(), *others), 60)
    outcome = await table.wait_finished()
    assert outcome.termination == results_pb2.TERMINATION_REASON_TARGET_REACHED
    assert outcome.seat_stats[dropped].disconnects == 1
    assert outcome.seat_stats[dropped].timeouts == 0
    seqs = [event.seq for event in old.events() + back.events()]
    assert seqs == list(range(1, len(table.game.events) + 1))


async def test_resuming_with_a_wrong_secret_is_unauthenticated(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    first = bots(server.target, "alpha")
    welcome = await first.connect()
    await first.close()
    impostor = bots(server.target, "alpha")
    hello = pb.Hello(
        name="alpha", resume=pb.Resume(session_id=welcome.session_id, resume_secret="guess")
    )
    await impostor.connect(hello, expect_welcome=False)
    assert await impostor.status() in (
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.FAILED_PRECONDITION,  # a session without tables is forgotten at once
    )


async def test_resuming_an_unknown_session_fails_precondition(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(server.target, "alpha")
    hello = pb.Hello(name="alpha", resume=pb.Resume(session_id="s-unknown", resume_secret="x"))
    await bot.connect(hello, expect_welcome=False)
    assert await bot.status() == grpc.StatusCode.FAILED_PRECONDITION


async def test_resuming_with_a_wrong_secret_at_a_table_is_unauthenticated(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(grace_ms=10_000)
    table, players, dropped, others = await drop_a_seat(server, bots, clock)
    old = players[dropped]
    hello = resume_hello(old, table.id, 0)
    hello.resume.resume_secret = "not-the-secret"
    impostor = bots(server.target, old.name)
    await impostor.connect(hello, expect_welcome=False)
    assert await impostor.status() == grpc.StatusCode.UNAUTHENTICATED
    for task in others:
        task.cancel()


async def test_a_seat_that_does_not_resume_in_time_forfeits_by_disconnection(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(action_ms=5000, grace_ms=200, late_policy=LatePolicy.FORFEIT)
    table, _, dropped, others = await drop_a_seat(server, bots, clock)
    outcome = await asyncio.wait_for(table.wait_finished(), 10)
    await asyncio.wait_for(asyncio.gather(*others), 5)
    assert outcome.termination == results_pb2.TERMINATION_REASON_FORFEIT_DISCONNECT
    assert outcome.forfeit_seat == dropped
    assert "grace" in outcome.detail


async def test_under_auto_play_a_vanished_seat_is_played_for_until_the_end(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(action_ms=5000, grace_ms=100, strike_limit=0)
    table, _, dropped, others = await drop_a_seat(server, bots, clock)
    outcome = await asyncio.wait_for(table.wait_finished(), 30)
    await asyncio.wait_for(asyncio.gather(*others), 5)
    assert outcome.termination == results_pb2.TERMINATION_REASON_TARGET_REACHED
    assert outcome.seat_stats[dropped].auto_plays > 0
    assert outcome.seat_stats[dropped].actions == 0


async def test_a_resume_takes_over_a_stream_that_still_looks_alive(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    table, players = await seat_raw_bots(server, bots, bot_names(4))
    seat = table.game.current_player
    assert seat is not None
    old = players[seat]
    await old.read_kind("action_request")
    back = bots(server.target, old.name)
    await back.connect(resume_hello(old, table.id, 0))
    snapshot = await back.read_kind("table_snapshot")
    assert len(snapshot.missed_events) == len(table.game.events)
    assert (await back.read_kind("action_request")).seat == seat
    assert await old.status() == grpc.StatusCode.ABORTED


async def test_a_game_that_ended_while_the_bot_was_away_is_reported_on_resume(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    table, players, dropped, others = await drop_a_seat(server, bots, TimeControl())
    await asyncio.sleep(0.1)
    server.abort_table(table.id, "stopped by the organiser")
    await table.wait_finished()
    await asyncio.wait_for(asyncio.gather(*others), 5)
    back = bots(server.target, players[dropped].name)
    await back.connect(resume_hello(players[dropped], table.id, 0))
    snapshot = await back.read_kind("table_snapshot")
    assert snapshot.missed_events[-1].event.WhichOneof("kind") == "game_over"
    finished = await back.read_kind("table_finished")
    assert finished.result.reason == results_pb2.TERMINATION_REASON_ABORTED
    assert finished.result.detail == "stopped by the organiser"
