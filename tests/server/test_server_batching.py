"""Hello.batching: several messages per gRPC message, both ways, with nothing else changed."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import grpc
from rookery.engine import Ruleset
from rookery.server import RookeryServer, ServerConfig, TableSpec, TimeControl
from rookery.server.testing import RawBot, bot_names, reply_to, running_server, seat_raw_bots
from rookery.v1 import actions_pb2, bot_service_pb2, bot_service_pb2_grpc

pb = bot_service_pb2
Reason = bot_service_pb2.RejectionReason
QUIET = ServerConfig(log_level="warning")


def without_table_id(message: pb.ConnectResponse) -> bytes:
    """A message's bytes with its table id and bot names cleared (two tables of the same seed
    differ in nothing else)."""
    copy = pb.ConnectResponse()
    copy.CopyFrom(message)
    inner = getattr(copy, str(copy.WhichOneof("message")))
    if inner.DESCRIPTOR.name == "TableSnapshot":
        inner = inner.table
    if "table_id" in inner.DESCRIPTOR.fields_by_name:
        inner.table_id = ""
    if inner.DESCRIPTOR.name == "TableJoined":
        for seat in inner.seats:
            seat.bot_name = ""
    return copy.SerializeToString(deterministic=True)


async def play(server: RookeryServer, bots: Callable[..., RawBot], *, batching: bool) -> list[Any]:
    """Four raw bots (batching or not) play a whole game of seed 9; the bots by seat."""
    names = tuple(f"{'batched' if batching else 'single'}{seat}" for seat in range(4))
    players = [bots(server.target, name, batching=batching) for name in names]
    for bot in players:
        welcome = await bot.connect()
        assert welcome.batching is batching
    table = await server.create_table(TableSpec(Ruleset.preset("standard"), names, seed=9))
    await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
    assert table.outcome is not None
    by_seat: list[Any] = [None] * 4
    for bot in players:
        joined = next(m for m in bot.received if m.WhichOneof("message") == "table_joined")
        by_seat[joined.table_joined.seat] = bot
    return by_seat


async def test_a_batching_session_gets_the_same_messages_in_the_same_order(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    batched = await play(server, bots, batching=True)
    single = await play(server, bots, batching=False)
    for seat in range(4):
        got = [without_table_id(m) for m in batched[seat].received[1:]]  # after the Welcome
        expected = [without_table_id(m) for m in single[seat].received[1:]]
        assert got == expected, f"seat {seat}"
        assert len(got) > 100
    # The batches were real: several messages in one, and none for the unbatched sessions.
    assert max(max(bot.batches) for bot in batched) > 1
    assert not any(bot.batches for bot in single)


async def test_replies_in_one_batch_are_each_handled_in_order(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    table, players = await seat_raw_bots(
        server, lambda target, name: bots(target, name, batching=True), bot_names(4)
    )
    to_act = table.game.current_player
    assert to_act is not None
    actor = players[to_act]
    request = await actor.read_kind("action_request")
    illegal = actions_pb2.Action(bid=actions_pb2.Bid(amount=1))
    first = reply_to(request, illegal).action_reply
    second = reply_to(request).action_reply
    await actor.send(pb.ConnectRequest(batch=pb.ReplyBatch(replies=[first, second])))
    rejected = await actor.read_kind("action_rejected")
    assert rejected.reason == Reason.REJECTION_REASON_ILLEGAL_ACTION
    assert rejected.request_id == request.request_id
    deadline = asyncio.get_running_loop().time() + 10
    while table.game.current_player == to_act:  # the second reply was applied
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.01)
    assert table.game.actions[-1][0] == to_act


async def test_each_reply_of_a_batch_counts_against_the_rate_limit(
    bots: Callable[..., RawBot],
) -> None:
    async with running_server(QUIET, action_rate=0.5, action_burst=2) as server:
        bot = bots(server.target, "flood", batching=True)
        await bot.connect()
        reply = pb.ActionReply(table_id="t-x", request_id=1)
        await bot.send(pb.ConnectRequest(batch=pb.ReplyBatch(replies=[reply] * 3)))
        reasons = [(await bot.read_kind("action_rejected")).reason for _ in range(3)]
    assert reasons == [
        Reason.REJECTION_REASON_UNKNOWN_TABLE,
        Reason.REJECTION_REASON_UNKNOWN_TABLE,
        Reason.REJECTION_REASON_RATE_LIMITED,
    ]


async def test_a_batch_without_batching_offered_ends_the_stream_with_invalid_argument(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(server.target, "unasked")
    await bot.connect()
    reply = pb.ActionReply(table_id="t-x", request_id=1)
    await bot.send(pb.ConnectRequest(batch=pb.ReplyBatch(replies=[reply])))
    assert await bot.status() == grpc.StatusCode.INVALID_ARGUMENT
    assert "did not offer batching" in (await bot.call.details())


async def test_an_empty_batch_ends_the_stream_with_invalid_argument(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(server.target, "empty", batching=True)
    await bot.connect()
    await bot.send(pb.ConnectRequest(batch=pb.ReplyBatch()))
    assert await bot.status() == grpc.StatusCode.INVALID_ARGUMENT
    assert "at least one reply" in (await bot.call.details())


async def test_a_resumed_batching_session_gets_its_welcome_alone_then_batches(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(action_ms=10_000, grace_ms=10_000)
    table, players = await seat_raw_bots(
        server,
        lambda target, name: bots(target, name, batching=True),
        bot_names(4),
        time_control=clock,
    )
    dropped = players[0]
    assert dropped.welcome is not None
    await dropped.close()
    resume = pb.Resume(
        session_id=dropped.welcome.session_id, resume_secret=dropped.welcome.resume_secret
    )
    async with grpc.aio.insecure_channel(server.target) as channel:
        call = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
        hello = pb.Hello(name=dropped.name, resume=resume, batching=True)
        await call.write(pb.ConnectRequest(hello=hello))
        first = await asyncio.wait_for(call.read(), 10)
        assert isinstance(first, pb.ConnectResponse)
        assert first.WhichOneof("message") == "welcome"
        assert first.welcome.resumed and first.welcome.batching
        # The snapshot follows (with the open request, if seat 0 is to act) in one batch or alone.
        second = await asyncio.wait_for(call.read(), 10)
        assert isinstance(second, pb.ConnectResponse)
        kinds = (
            [m.WhichOneof("message") for m in second.batch.messages]
            if second.WhichOneof("message") == "batch"
            else [second.WhichOneof("message")]
        )
        assert kinds[0] == "table_snapshot"
        if table.game.current_player == 0:
            assert kinds == ["table_snapshot", "action_request"]
        call.cancel()


async def test_a_batch_beyond_the_reply_limit_ends_the_stream_with_invalid_argument(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(server.target, "amplifier", batching=True)
    await bot.connect()
    reply = pb.ActionReply(table_id="t-x", request_id=1)
    await bot.send(pb.ConnectRequest(batch=pb.ReplyBatch(replies=[reply] * 1025)))
    assert await bot.status() == grpc.StatusCode.INVALID_ARGUMENT
    assert "at most 1024" in (await bot.call.details())
    rejections = [m for m in bot.received if m.WhichOneof("message") == "action_rejected"]
    assert not rejections  # refused whole: not one reply of it was handled
