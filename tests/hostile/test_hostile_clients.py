"""Hostile clients against a real server: each gets a precise answer, everything else goes on.

Every test runs an honest game beside the attack (``honest``) and requires it to finish with no
strike, rejection or disconnection.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import grpc
import pytest
from rookery.engine import Ruleset
from rookery.server import BotRegistry, RookeryServer, ServerConfig, TableSpec, TimeControl
from rookery.server.testing import RawBot, reply_to, running_server, simple_action
from rookery.v1 import actions_pb2, bot_service_pb2, bot_service_pb2_grpc, cards_pb2, replay_pb2

pb = bot_service_pb2
Reason = pb.RejectionReason
REJECTED = replay_pb2.ACTION_OUTCOME_REJECTED
PASS = actions_pb2.Action.FromString(b"\x12\x00")  # `pass` is a Python keyword
QUIET = ServerConfig(log_level="warning")
CONNECT = "/rookery.v1.BotService/Connect"
SHORT_CLOCK = TimeControl(action_ms=5000, grace_ms=5000)
HonestFactory = Callable[..., Any]
BotFactory = Callable[..., RawBot]


def raw_stream(channel: grpc.aio.Channel) -> Any:
    """BotService.Connect sending and receiving raw bytes (no serialization at all)."""
    return channel.stream_stream(
        CONNECT, request_serializer=lambda b: b, response_deserializer=lambda b: b
    )()


def hello_bytes(name: str, **fields: Any) -> bytes:
    return pb.ConnectRequest(hello=pb.Hello(name=name, **fields)).SerializeToString()


def bid(amount: int) -> actions_pb2.Action:
    return actions_pb2.Action(bid=actions_pb2.Bid(amount=amount))


def reply(table_id: str, request_id: int, action: actions_pb2.Action) -> Any:
    return pb.ConnectRequest(
        action_reply=pb.ActionReply(table_id=table_id, request_id=request_id, action=action)
    )


async def stream_status(call: Any, wait_s: float = 10.0) -> tuple[grpc.StatusCode, str, int]:
    """Reads a stream to its end: (status code, details, messages read before it)."""
    read = 0
    try:
        while True:
            message = await asyncio.wait_for(call.read(), wait_s)
            if message is grpc.aio.EOF:
                return await call.code(), await call.details(), read
            read += 1
    except grpc.aio.AioRpcError as error:
        return error.code(), error.details() or "", read


async def still_serves(server: RookeryServer) -> None:
    """A fresh bot is welcomed and pinged back: the server is alive."""
    bot = RawBot(server.target, "newcomer")
    try:
        await bot.connect()
        await bot.send(pb.ConnectRequest(ping=pb.Ping(nonce=7)))
        assert (await bot.read_kind("pong")).nonce == 7
    finally:
        await bot.close()


async def seat_four(
    server: RookeryServer, make: BotFactory, prefix: str, **spec: Any
) -> tuple[str, list[RawBot]]:
    """Four raw bots seated at one short table: (table id, bots by seat)."""
    names = tuple(f"{prefix}{seat}" for seat in range(4))
    players = [make(server.target, name) for name in names]
    for bot in players:
        await bot.connect()
    ruleset = Ruleset.preset("standard").replace(max_hands=spec.pop("max_hands", 1))
    table = await server.create_table(TableSpec(ruleset, names, seed=spec.pop("seed", 3), **spec))
    by_seat: list[RawBot] = list(players)
    for bot in players:
        joined = await bot.read_kind("table_joined")
        by_seat[joined.seat] = bot
    return table.id, by_seat


async def first_request(bots: list[RawBot]) -> tuple[RawBot, Any]:
    """The bot asked to act first, and its request."""
    asked = await asyncio.wait_for(
        asyncio.gather(*(bot.read_kind("action_request") for bot in bots[1:2])), 10
    )
    return bots[1], asked[0]


# Malformed bytes --------------------------------------------------------------------------------

GARBAGE = {
    "corrupt varint": b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
    "truncated hello": hello_bytes("truncated", version="1.0")[:-3],
    "bad UTF-8 in the name": b"\x0a\x05\x0a\x03\xc3\x28\x41",
    "length beyond the end": b"\x0a\x7f\x0a\x02ab",
    "random bytes": random.Random(5).randbytes(300),
}


@pytest.mark.parametrize("garbage", GARBAGE.values(), ids=list(GARBAGE))
async def test_garbage_bytes_instead_of_a_hello_end_the_stream_with_invalid_argument(
    server: RookeryServer, honest: HonestFactory, garbage: bytes
) -> None:
    game = await honest(server)
    async with grpc.aio.insecure_channel(server.target) as channel:
        call = raw_stream(channel)
        await call.write(garbage)
        code, details, read = await stream_status(call)
    assert code == grpc.StatusCode.INVALID_ARGUMENT, details
    assert read == 0
    assert "malformed" in details or "Hello" in details
    await game.finish()
    await still_serves(server)


async def test_garbage_bytes_mid_session_end_the_stream_and_the_session_resumes(
    server: RookeryServer, bots: BotFactory, honest: HonestFactory
) -> None:
    game = await honest(server)
    table_id, seated = await seat_four(server, bots, "mid")
    victim = seated[0]
    secret, session_id = victim.welcome.resume_secret, victim.welcome.session_id
    await victim.close()  # replaced by a raw-bytes stream of the same session
    async with grpc.aio.insecure_channel(server.target) as channel:
        call = raw_stream(channel)
        resume = pb.Hello(
            name="mid0", resume=pb.Resume(session_id=session_id, resume_secret=secret)
        )
        await call.write(pb.ConnectRequest(hello=resume).SerializeToString())
        welcome = pb.ConnectResponse.FromString(await asyncio.wait_for(call.read(), 10))
        assert welcome.welcome.resumed
        await call.write(b"\x12\x04\x0a\x02\xff\xfe")  # an action_reply with a bad table id
        code, details, _ = await stream_status(call)
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert "malformed" in details and "UTF-8" in details
    again = bots(server.target, "mid0")
    await again.connect(
        pb.Hello(name="mid0", resume=pb.Resume(session_id=session_id, resume_secret=secret))
    )
    assert again.welcome.resumed
    await asyncio.gather(again.play(), *(bot.play() for bot in seated[1:]))
    outcome = await server.get_table(table_id).wait_finished()
    assert outcome.seat_stats[0].timeouts == 0
    await game.finish()


@pytest.mark.parametrize(
    "method", ["/rookery.v1.ArenaService/CreateTable", "/rookery.v1.ArenaService/GetReplay"]
)
async def test_garbage_bytes_to_a_unary_rpc_are_invalid_argument(
    server: RookeryServer, method: str
) -> None:
    async with grpc.aio.insecure_channel(server.target) as channel:
        call = channel.unary_unary(
            method, request_serializer=lambda b: b, response_deserializer=lambda b: b
        )
        with pytest.raises(grpc.aio.AioRpcError) as error:
            await call(GARBAGE["corrupt varint"], timeout=10)
    assert error.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "malformed" in (error.value.details() or "")


async def test_garbage_bytes_to_watch_table_are_invalid_argument(server: RookeryServer) -> None:
    async with grpc.aio.insecure_channel(server.target) as channel:
        call = channel.unary_stream(
            "/rookery.v1.SpectatorService/WatchTable",
            request_serializer=lambda b: b,
            response_deserializer=lambda b: b,
        )
        code, details, _ = await stream_status(call(GARBAGE["bad UTF-8 in the name"]))
    assert code == grpc.StatusCode.INVALID_ARGUMENT, details


# Oversize messages and amplification ------------------------------------------------------------


async def test_an_oversize_message_mid_session_ends_only_that_stream(
    bots: BotFactory, honest: HonestFactory
) -> None:
    async with running_server(QUIET, max_message_bytes=64 * 1024) as server:
        game = await honest(server)
        big = bots(server.target, "big")
        await big.connect()
        await big.send(reply("t" * 100_000, 1, bid(70)))
        assert await big.status() == grpc.StatusCode.RESOURCE_EXHAUSTED
        await game.finish()
        await still_serves(server)


async def test_a_huge_table_id_is_not_echoed_back_in_full(
    server: RookeryServer, bots: BotFactory
) -> None:
    bot = bots(server.target, "echo")
    await bot.connect()
    await bot.send(reply("t" * 500_000, 1, bid(70)))
    rejected = await bot.read_kind("action_rejected")
    assert rejected.reason == Reason.REJECTION_REASON_UNKNOWN_TABLE
    assert rejected.ByteSize() < 1024
    assert "500000 characters" in rejected.message


async def test_rejected_replies_do_not_grow_the_replay_at_the_bots_will(
    server: RookeryServer, bots: BotFactory
) -> None:
    table_id, seated = await seat_four(server, bots, "grow")
    actor, request = await first_request(seated)
    padding = b"\xba\x3e" + b"\x80\x80\x04" + b"x" * 65536  # field 999, 64 KiB, unknown
    heavy = actions_pb2.Action.FromString(bid(1).SerializeToString() + padding)
    huge_bury = actions_pb2.Action()
    huge_bury.bury.cards.extend([cards_pb2.Card(suit=cards_pb2.SUIT_BLACK, rank=1)] * 20_000)
    for action in [heavy] * 20 + [huge_bury] * 5:
        await actor.send(reply_to(request, action))
    for _ in range(25):
        assert (await actor.read_kind("action_rejected")).request_id == request.request_id
    await actor.send(reply_to(request))
    await asyncio.gather(*(bot.play() for bot in seated))
    outcome = await server.get_table(table_id).wait_finished()
    replay: replay_pb2.Replay = outcome.replay
    rejected = [a for h in replay.hands for a in h.actions if a.outcome == REJECTED]
    assert len(rejected) == 8  # REJECTIONS_RECORDED_PER_REQUEST
    assert replay.ByteSize() < 64 * 1024
    assert outcome.seat_stats[1].illegal_replies + outcome.seat_stats[1].malformed_replies == 25


# Floods -----------------------------------------------------------------------------------------


async def test_a_flood_of_replies_is_answered_with_rate_limited_and_the_server_goes_on(
    bots: BotFactory, honest: HonestFactory
) -> None:
    async with running_server(QUIET, action_rate=200, action_burst=400) as server:
        game = await honest(server)
        flood = bots(server.target, "flood")
        await flood.connect()
        sent = 4000
        started = time.monotonic()

        async def answers() -> Counter[int]:
            reasons: Counter[int] = Counter()
            while sum(reasons.values()) < sent:
                reasons[(await flood.read_kind("action_rejected", wait_s=20)).reason] += 1
            return reasons

        reading = asyncio.create_task(answers())
        for number in range(sent):
            await flood.send(reply("t-none", number, bid(70)))
        reasons = await asyncio.wait_for(reading, 60)
        elapsed = time.monotonic() - started
        allowed = reasons[Reason.REJECTION_REASON_UNKNOWN_TABLE]
        assert set(reasons) == {
            Reason.REJECTION_REASON_UNKNOWN_TABLE,
            Reason.REJECTION_REASON_RATE_LIMITED,
        }
        assert 400 <= allowed <= 400 + 200 * elapsed + 20
        await game.finish()
        await asyncio.sleep(0.1)  # the bucket refills: the next reply is judged again
        await flood.send(reply("t-none", 1, bid(70)))
        assert (await flood.read_kind("action_rejected")).reason == (
            Reason.REJECTION_REASON_UNKNOWN_TABLE
        )


async def test_a_flood_of_pings_gets_at_most_the_burst_of_pongs(bots: BotFactory) -> None:
    async with running_server(QUIET, action_rate=1, action_burst=50) as server:
        pinger = bots(server.target, "pinger")
        await pinger.connect()
        for nonce in range(1000):
            await pinger.send(pb.ConnectRequest(ping=pb.Ping(nonce=nonce)))
        await pinger.send(reply("t-none", 1, bid(70)))  # a marker after the flood
        await pinger.read_kind("action_rejected")
        pongs = [m for m in pinger.received if m.WhichOneof("message") == "pong"]
        assert 50 <= len(pongs) <= 60


async def test_a_flood_of_illegal_replies_leaves_the_request_open_for_a_legal_one(
    server: RookeryServer, bots: BotFactory
) -> None:
    table_id, seated = await seat_four(server, bots, "spam")
    actor, request = await first_request(seated)
    for _ in range(300):
        await actor.send(reply_to(request, bid(1)))
    await actor.send(reply_to(request))
    await asyncio.gather(*(bot.play() for bot in seated))
    outcome = await server.get_table(table_id).wait_finished()
    assert outcome.seat_stats[1].illegal_replies == 300
    assert outcome.seat_stats[1].timeouts == 0
    first = outcome.replay.hands[0].actions
    accepted = [a for a in first if a.outcome != REJECTED]
    assert accepted[0].seat == 1


# Replies that are not the bot's to give ---------------------------------------------------------


async def test_replies_for_another_tables_requests_never_reach_that_table(
    server: RookeryServer, bots: BotFactory, honest: HonestFactory
) -> None:
    game = await honest(server)
    intruder = bots(server.target, "intruder")
    await intruder.connect()
    for request_id in range(1, 60):
        for action in (bid(70), PASS):
            await intruder.send(reply(game.table_id, request_id, action))
    reasons = {(await intruder.read_kind("action_rejected")).reason for _ in range(118)}
    assert reasons == {Reason.REJECTION_REASON_UNKNOWN_TABLE}
    await game.finish()


async def test_a_seat_cannot_answer_the_request_of_another_seat(
    server: RookeryServer, bots: BotFactory
) -> None:
    table_id, seated = await seat_four(server, bots, "other")
    actor, request = await first_request(seated)
    for bystander in (seated[0], seated[2], seated[3]):
        await bystander.send(reply_to(request))  # the right table and request id, wrong seat
        rejected = await bystander.read_kind("action_rejected")
        assert rejected.reason == Reason.REJECTION_REASON_NOT_YOUR_TURN
    await actor.send(reply_to(request))
    await asyncio.gather(*(bot.play() for bot in seated))
    outcome = await server.get_table(table_id).wait_finished()
    first = next(a for a in outcome.replay.hands[0].actions if a.outcome != REJECTED)
    assert first.seat == 1 and first.action == simple_action(request)


async def test_stale_future_and_duplicated_request_ids_are_refused_and_applied_once(
    server: RookeryServer, bots: BotFactory
) -> None:
    table_id, seated = await seat_four(server, bots, "dup")
    duplicated = 0

    async def twice(bot: RawBot) -> None:
        nonlocal duplicated
        while True:
            message = await bot.read(30)
            kind = message.WhichOneof("message")
            if kind == "table_finished":
                return
            if kind != "action_request":
                continue
            request = message.action_request
            for wrong in (request.request_id - 1, request.request_id + 1, 0, 2**64 - 1):
                await bot.send(reply(request.table_id, wrong, simple_action(request)))
            await bot.send(reply_to(request))
            await bot.send(reply_to(request))  # the same reply again
            duplicated += 1

    await asyncio.wait_for(asyncio.gather(*(twice(bot) for bot in seated)), 60)
    outcome = await server.get_table(table_id).wait_finished()
    accepted = sum(stats.actions for stats in outcome.seat_stats)
    assert accepted == duplicated  # each request applied exactly once
    assert all(stats.timeouts == 0 for stats in outcome.seat_stats)
    reasons: Counter[int] = Counter(
        m.action_rejected.reason
        for bot in seated
        for m in bot.received
        if m.WhichOneof("message") == "action_rejected"
    )
    assert set(reasons) <= {
        Reason.REJECTION_REASON_STALE_REQUEST,
        Reason.REJECTION_REASON_NOT_YOUR_TURN,
        Reason.REJECTION_REASON_GAME_OVER,
    }
    assert reasons[Reason.REJECTION_REASON_STALE_REQUEST] >= 4 * duplicated


# Protocol order ---------------------------------------------------------------------------------


@pytest.mark.parametrize("first", ["action_reply", "ping", "empty"])
async def test_anything_but_a_hello_first_ends_the_stream_with_invalid_argument(
    server: RookeryServer, honest: HonestFactory, first: str
) -> None:
    game = await honest(server)
    message = {
        "action_reply": reply(game.table_id, 1, bid(70)),
        "ping": pb.ConnectRequest(ping=pb.Ping(nonce=1)),
        "empty": pb.ConnectRequest(),
    }[first]
    async with grpc.aio.insecure_channel(server.target) as channel:
        call = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
        await call.write(message)
        code, details, read = await stream_status(call)
    assert code == grpc.StatusCode.INVALID_ARGUMENT and read == 0
    assert "must be a Hello" in details
    await game.finish()


async def test_a_second_hello_ends_the_stream_and_the_seat_may_resume(
    server: RookeryServer, bots: BotFactory
) -> None:
    table_id, seated = await seat_four(server, bots, "again")
    bot = seated[0]
    await bot.send(pb.ConnectRequest(hello=pb.Hello(name="someone-else")))
    assert await bot.status() == grpc.StatusCode.FAILED_PRECONDITION
    back = bots(server.target, "again0")
    resume = pb.Resume(session_id=bot.welcome.session_id, resume_secret=bot.welcome.resume_secret)
    await back.connect(pb.Hello(name="again0", resume=resume))
    await asyncio.gather(back.play(), *(b.play() for b in seated[1:]))
    outcome = await server.get_table(table_id).wait_finished()
    assert outcome.seat_stats[0].bot_name == "again0"
    assert outcome.seat_stats[0].disconnects == 1


# Identity ---------------------------------------------------------------------------------------


@pytest.fixture
async def token_server(tmp_path: Path) -> Any:
    db = tmp_path / "bots.db"
    registry = BotRegistry(db)
    issued = {name: registry.add(name)[1] for name in ("alpha", "beta", "gamma", "delta")}
    registry.close()
    config = ServerConfig(auth="token", db=str(db), admin_token="admin", log_level="warning")
    async with running_server(config, stop_grace_s=0.1) as server:
        server.issued = issued  # type: ignore[attr-defined]
        yield server


async def test_impostors_are_refused_and_never_see_the_victims_table(
    token_server: RookeryServer,
) -> None:
    issued: dict[str, str] = token_server.issued  # type: ignore[attr-defined]
    seated = [
        RawBot(token_server.target, name, token=issued[name])
        for name in ("alpha", "beta", "gamma", "delta")
    ]
    for bot in seated:
        await bot.connect()
    table = await token_server.create_table(
        TableSpec(
            Ruleset.preset("standard").replace(max_hands=1),
            ("alpha", "beta", "gamma", "delta"),
            seed=4,
        )
    )
    playing = [asyncio.create_task(bot.play()) for bot in seated]
    attempts = {
        "wrong token": pb.Hello(name="alpha", token="rk_" + "A" * 43),
        "another bot's token": pb.Hello(name="alpha", token=issued["beta"]),
        "no token": pb.Hello(name="alpha"),
        "another bot's session id with a guessed secret": pb.Hello(
            name="beta",
            token=issued["beta"],
            resume=pb.Resume(session_id=seated[0].welcome.session_id, resume_secret="guess"),
        ),
    }
    for what, hello in attempts.items():
        impostor = RawBot(token_server.target, hello.name)
        await impostor.connect(hello, expect_welcome=False)
        assert await impostor.status() == grpc.StatusCode.UNAUTHENTICATED, what
        assert impostor.received == [], what
        await impostor.close()
    await asyncio.wait_for(asyncio.gather(*playing), 60)
    outcome = await table.wait_finished()
    assert all(s.disconnects == 0 and s.timeouts == 0 for s in outcome.seat_stats)
    for bot in seated:
        await bot.close()


async def test_a_bots_own_token_cannot_take_over_another_bots_session(
    token_server: RookeryServer,
) -> None:
    issued: dict[str, str] = token_server.issued  # type: ignore[attr-defined]
    victim = RawBot(token_server.target, "alpha", token=issued["alpha"])
    await victim.connect()
    thief = RawBot(token_server.target, "beta", token=issued["beta"])
    resume = pb.Resume(
        session_id=victim.welcome.session_id, resume_secret=victim.welcome.resume_secret
    )
    await thief.connect(
        pb.Hello(name="beta", token=issued["beta"], resume=resume), expect_welcome=False
    )
    assert await thief.status() == grpc.StatusCode.FAILED_PRECONDITION
    await victim.send(pb.ConnectRequest(ping=pb.Ping(nonce=3)))
    assert (await victim.read_kind("pong")).nonce == 3
    for bot in (victim, thief):
        await bot.close()


# Clients that stop reading or stop answering ----------------------------------------------------


async def test_a_client_that_never_reads_is_cut_with_bounded_memory_and_tables_go_on(
    honest: HonestFactory,
) -> None:
    async with running_server(QUIET, send_queue_size=32) as server:
        game = await honest(server)
        options = [("grpc.http2.bdp_probe", 0)]
        async with grpc.aio.insecure_channel(server.target, options=options) as channel:
            call = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
            await call.write(pb.ConnectRequest(hello=pb.Hello(name="deaf")))
            await asyncio.sleep(0.2)
            (session,) = server.sessions["deaf"]
            number = 0
            for number in range(20_000):
                await asyncio.wait_for(call.write(reply("t-" + "x" * 100, number, bid(70))), 10)
                if not session.is_attached:
                    break
            assert not session.is_attached, "the stuck session was never cut"
            await asyncio.sleep(0.2)
            assert server.session(session.id) is None  # no seat: forgotten at once
            code, details, read = await stream_status(call)
        # What reached the bot is what the transport held plus the bounded queue, not the flood.
        assert read < min(number, 5000)
        assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "did not read its stream" in details
        await game.finish()
        await still_serves(server)


async def test_a_seated_client_that_never_reads_loses_its_seat_to_the_late_policy(
    bots: BotFactory,
) -> None:
    clock = TimeControl(action_ms=150, grace_ms=200, strike_limit=0)
    async with running_server(QUIET, send_queue_size=16) as server:
        names = ("deaf0", "ok1", "ok2", "ok3")
        okay = [bots(server.target, name) for name in names[1:]]
        for bot in okay:
            await bot.connect()
        options = [("grpc.http2.bdp_probe", 0)]
        async with grpc.aio.insecure_channel(server.target, options=options) as channel:
            call = bot_service_pb2_grpc.BotServiceStub(channel).Connect()
            await call.write(pb.ConnectRequest(hello=pb.Hello(name="deaf0")))
            await server.wait_for_bot("deaf0")
            ruleset = Ruleset.preset("standard").replace(max_hands=1)
            table = await server.create_table(TableSpec(ruleset, names, seed=9, time_control=clock))
            for number in range(20_000):  # fill its stream: rejections it never reads
                await asyncio.wait_for(call.write(reply("t-" + "x" * 100, number, bid(70))), 10)
                if not server.sessions.get("deaf0"):
                    break
            await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in okay)), 60)
        outcome = await table.wait_finished()
    assert outcome.seat_stats[0].disconnects == 1
    assert outcome.seat_stats[0].auto_plays > 0


async def test_a_bot_silent_mid_hand_meets_its_policy_and_its_partners_game_ends_cleanly(
    server: RookeryServer, bots: BotFactory, honest: HonestFactory
) -> None:
    game = await honest(server)
    clock = TimeControl(action_ms=100, strike_limit=2, grace_ms=1000)
    table_id, seated = await seat_four(server, bots, "mute", time_control=clock)
    answered = 0

    def goes_silent(request: Any) -> actions_pb2.Action:
        nonlocal answered
        answered += 1
        return simple_action(request)

    async def mute() -> None:  # answers three requests, then reads but never answers
        bot = seated[1]
        while True:
            message = await bot.read(30)
            kind = message.WhichOneof("message")
            if kind == "table_finished":
                return
            if kind == "action_request" and answered < 3:
                await bot.send(
                    reply_to(message.action_request, goes_silent(message.action_request))
                )

    others = [bot.play() for i, bot in enumerate(seated) if i != 1]
    await asyncio.wait_for(asyncio.gather(mute(), *others), 60)
    outcome = await server.get_table(table_id).wait_finished()
    assert outcome.forfeit_seat == 1
    assert outcome.seat_stats[1].auto_plays == 2 and outcome.seat_stats[1].timeouts == 3
    assert all(m.WhichOneof("message") != "action_rejected" for m in seated[0].received)
    await game.finish()
