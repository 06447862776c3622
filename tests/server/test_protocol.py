"""The bot protocol's error paths: every rejection reason, and streams that break the rules."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import grpc
import pytest
from rookery.engine import Ruleset
from rookery.server import RookeryServer, ServerConfig, TableSpec, TableSpecError, TimeControl
from rookery.server.testing import RawBot, bot_names, reply_to, running_server, seat_raw_bots
from rookery.v1 import actions_pb2, bot_service_pb2, bot_service_pb2_grpc, cards_pb2

pb = bot_service_pb2
Reason = bot_service_pb2.RejectionReason
QUIET = ServerConfig(log_level="warning")


def reply(table_id: str, request_id: int, action: actions_pb2.Action) -> pb.ConnectRequest:
    return pb.ConnectRequest(
        action_reply=pb.ActionReply(table_id=table_id, request_id=request_id, action=action)
    )


def bid(amount: int) -> actions_pb2.Action:
    return actions_pb2.Action(bid=actions_pb2.Bid(amount=amount))


async def first_request(
    server: RookeryServer, bots: Callable[..., RawBot], **options: object
) -> tuple[list[RawBot], pb.ActionRequest]:
    table, players = await seat_raw_bots(server, bots, bot_names(4), **options)  # type: ignore[arg-type]
    to_act = table.game.current_player
    assert to_act is not None
    request = await players[to_act].read_kind("action_request")
    return players, request


async def test_a_reply_for_another_table_is_rejected_as_unknown_table(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players, request = await first_request(server, bots)
    actor = players[request.seat]
    await actor.send(reply("t-nonexistent", request.request_id, bid(70)))
    rejected = await actor.read_kind("action_rejected")
    assert rejected.reason == Reason.REJECTION_REASON_UNKNOWN_TABLE
    assert "t-nonexistent" in rejected.message


async def test_a_reply_from_a_seat_not_to_act_is_rejected_as_not_your_turn(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players, request = await first_request(server, bots)
    other = players[(request.seat + 1) % 4]
    await other.send(reply(request.table_id, request.request_id, bid(70)))
    rejected = await other.read_kind("action_rejected")
    assert rejected.reason == Reason.REJECTION_REASON_NOT_YOUR_TURN
    assert f"seat {request.seat} is to act" in rejected.message


async def test_a_reply_with_another_request_id_is_rejected_as_stale(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players, request = await first_request(server, bots)
    actor = players[request.seat]
    await actor.send(reply(request.table_id, request.request_id + 7, bid(70)))
    rejected = await actor.read_kind("action_rejected")
    assert rejected.reason == Reason.REJECTION_REASON_STALE_REQUEST
    assert rejected.request_id == request.request_id + 7


async def test_an_illegal_bid_is_rejected_with_the_engines_reason(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players, request = await first_request(server, bots)
    actor = players[request.seat]
    await actor.send(reply(request.table_id, request.request_id, bid(72)))
    rejected = await actor.read_kind("action_rejected")
    assert rejected.reason == Reason.REJECTION_REASON_ILLEGAL_ACTION
    assert "72" in rejected.message


async def test_an_action_with_no_kind_is_rejected_as_malformed(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players, request = await first_request(server, bots)
    actor = players[request.seat]
    await actor.send(reply(request.table_id, request.request_id, actions_pb2.Action()))
    rejected = await actor.read_kind("action_rejected")
    assert rejected.reason == Reason.REJECTION_REASON_MALFORMED_ACTION


async def test_an_impossible_card_is_rejected_as_malformed(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players, request = await first_request(server, bots)
    actor = players[request.seat]
    bad_card = cards_pb2.Card(suit=cards_pb2.SUIT_RED, rank=15)
    action = actions_pb2.Action(play_card=actions_pb2.PlayCard(card=bad_card))
    await actor.send(reply(request.table_id, request.request_id, action))
    rejected = await actor.read_kind("action_rejected")
    assert rejected.reason == Reason.REJECTION_REASON_MALFORMED_ACTION
    assert "rank" in rejected.message


async def test_the_request_stays_open_after_a_rejection(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players, request = await first_request(server, bots)
    actor = players[request.seat]
    await actor.send(reply(request.table_id, request.request_id, bid(71)))
    await actor.read_kind("action_rejected")
    await actor.send(reply_to(request))
    event = await actor.read_kind("event")
    while event.event.WhichOneof("kind") not in ("bid_made", "passed"):
        event = await actor.read_kind("event")
    assert event.event.bid_made.seat == request.seat


async def test_a_reply_after_the_deadline_is_rejected_as_late(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players, request = await first_request(
        server, bots, time_control=TimeControl(action_ms=100, strike_limit=0)
    )
    actor = players[request.seat]
    await asyncio.sleep(0.3)
    await actor.send(reply_to(request))
    rejected = await actor.read_kind("action_rejected")
    assert rejected.reason == Reason.REJECTION_REASON_LATE


async def test_a_reply_for_a_finished_game_is_rejected_as_game_over(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players, request = await first_request(server, bots)
    server.abort_table(request.table_id, "test")
    actor = players[request.seat]
    await actor.read_kind("table_finished")
    await actor.send(reply_to(request))
    rejected = await actor.read_kind("action_rejected")
    assert rejected.reason == Reason.REJECTION_REASON_GAME_OVER


async def test_replies_beyond_the_rate_limit_are_rejected_as_rate_limited(
    bots: Callable[..., RawBot],
) -> None:
    async with running_server(QUIET, action_rate=0.5, action_burst=2) as server:
        bot = bots(server.target, "flood")
        await bot.connect()
        for _ in range(3):
            await bot.send(reply("t-x", 1, bid(70)))
        reasons = [(await bot.read_kind("action_rejected")).reason for _ in range(3)]
    assert reasons == [
        Reason.REJECTION_REASON_UNKNOWN_TABLE,
        Reason.REJECTION_REASON_UNKNOWN_TABLE,
        Reason.REJECTION_REASON_RATE_LIMITED,
    ]


async def test_a_ping_is_answered_with_its_nonce(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(server.target, "pinger")
    await bot.connect()
    await bot.send(pb.ConnectRequest(ping=pb.Ping(nonce=424242)))
    assert (await bot.read_kind("pong")).nonce == 424242


async def test_the_welcome_states_the_sessions_limits(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(server.target, "greedy", max_tables=10_000)
    welcome = await bot.connect()
    assert welcome.max_tables == server.config.max_tables_per_session
    assert welcome.session_id and welcome.resume_secret
    assert welcome.grace_ms == server.config.time_control.grace_ms
    assert welcome.idle_timeout_ms == int(server.config.idle_timeout_s * 1000)
    assert not welcome.resumed


async def test_an_action_before_hello_ends_the_stream_with_invalid_argument(
    server: RookeryServer,
) -> None:
    async with grpc.aio.insecure_channel(server.target) as channel:
        call = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
        await call.write(reply("t-1", 1, bid(70)))
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await asyncio.wait_for(call.read(), 5)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "first message of a session must be a Hello" in (error.value.details() or "")


async def test_a_second_hello_ends_the_stream_precisely(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(server.target, "twice")
    await bot.connect()
    await bot.send(pb.ConnectRequest(hello=pb.Hello(name="twice")))
    assert await bot.status() == grpc.StatusCode.FAILED_PRECONDITION


async def test_an_empty_message_ends_the_stream_with_invalid_argument(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(server.target, "empty")
    await bot.connect()
    await bot.send(pb.ConnectRequest())
    assert await bot.status() == grpc.StatusCode.INVALID_ARGUMENT


async def test_an_invalid_bot_name_is_refused(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    bot = bots(server.target, "has space")
    await bot.connect(expect_welcome=False)
    assert await bot.status() == grpc.StatusCode.INVALID_ARGUMENT


async def test_a_stream_without_hello_times_out() -> None:
    async with (
        running_server(QUIET, hello_timeout_s=0.2) as server,
        grpc.aio.insecure_channel(server.target) as channel,
    ):
        call = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await asyncio.wait_for(call.read(), 5)
    assert error.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED


async def test_a_silent_session_is_closed_after_the_idle_timeout(
    bots: Callable[..., RawBot],
) -> None:
    async with running_server(QUIET, idle_timeout_s=0.3) as server:
        bot = bots(server.target, "sleepy")
        await bot.connect()
        assert await bot.status() == grpc.StatusCode.DEADLINE_EXCEEDED


async def test_sessions_beyond_the_limit_are_refused(bots: Callable[..., RawBot]) -> None:
    async with running_server(QUIET, max_sessions=1) as server:
        await bots(server.target, "first").connect()
        second = bots(server.target, "second")
        await second.connect(expect_welcome=False)
        assert await second.status() == grpc.StatusCode.RESOURCE_EXHAUSTED


async def test_an_oversized_message_is_refused(bots: Callable[..., RawBot]) -> None:
    async with running_server(QUIET, max_message_bytes=1024) as server:
        bot = bots(server.target, "verbose")
        await bot.connect(pb.Hello(name="verbose", client="x" * 4096), expect_welcome=False)
        assert await bot.status() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_a_table_needs_one_bot_per_seat() -> None:
    with pytest.raises(TableSpecError, match="4 seats"):
        TableSpec(Ruleset.preset("standard"), ("a", "b", "c"))
