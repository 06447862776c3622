"""What keeps an SDK bot process playing: resume after a dropped stream, fallbacks, clear errors."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from rookery.engine import Termination
from rookery.server import RookeryServer, TimeControl
from rookery.server.testing import running_server


async def test_a_stream_cut_mid_game_is_resumed_and_the_game_finishes_normally(
    server: RookeryServer,
    bots: Any,
    proxy_factory: Any,
    create_table: Any,
    finished: Any,
    verify_replay: Any,
) -> None:
    proxy = await proxy_factory(server.target)
    cut_off = await bots.start("Steady", proxy.target, "north")
    await bots.start("Simple", server.target, "others", "--sessions", "3")
    table = await create_table(server, "standard", ("north", "others", "others", "others"))
    await asyncio.wait_for(_until_hand(table, 1), 30.0)

    assert proxy.cut() > 0
    outcome = await finished(table)

    assert outcome.result.reason is Termination.TARGET_REACHED
    north = outcome.seat_stats[0]
    assert north.disconnects >= 1
    assert (north.timeouts, north.auto_plays) == (0, 0)
    await cut_off.stop()
    messages = cut_off.messages()
    assert "stream lost; reconnecting" in messages
    assert "session resumed" in messages
    assert "table resumed" in messages
    await verify_replay(outcome.replay)


async def test_a_session_past_its_grace_period_is_replaced_by_a_new_one(
    bots: Any, proxy_factory: Any, create_table: Any, finished: Any
) -> None:
    clock = TimeControl(action_ms=5000, grace_ms=300, strike_limit=0)
    async with running_server(time_control=clock) as server:
        proxy = await proxy_factory(server.target)
        cut_off = await bots.start("Steady", proxy.target, "north")
        await bots.start("Simple", server.target, "others", "--sessions", "3")
        seats = ("north", "others", "others", "others")
        table = await create_table(server, "standard", seats, clock=clock)
        await asyncio.wait_for(_until_hand(table, 1), 30.0)

        proxy.refusing = True
        proxy.cut()
        await asyncio.sleep(0.8)  # the grace period (0.3 s) passes
        proxy.refusing = False
        first = await finished(table)
        second = await finished(await create_table(server, "standard", seats, seed=8, clock=clock))

    assert first.seat_stats[0].auto_plays > 0
    assert second.result.reason is Termination.TARGET_REACHED
    assert second.seat_stats[0].auto_plays == 0
    await cut_off.stop()
    messages = cut_off.messages()
    assert "resume refused; starting a new session" in messages
    assert "table lost with the session" in messages
    assert messages.count("session started") == 2


async def _until_hand(table: Any, hand_number: int) -> None:
    while table.game.hand_number < hand_number:  # noqa: ASYNC110 (polling the server's game)
        await asyncio.sleep(0.02)


async def test_a_bot_whose_act_raises_finishes_the_game_on_legal_fallbacks(
    server: RookeryServer, bots: Any, play: Any, verify_replay: Any
) -> None:
    failing = await bots.start("Raising", server.target, "failing")
    await bots.start("Simple", server.target, "others", "--sessions", "3")

    outcome = await play(server, "standard", ("failing", "others", "others", "others"))

    assert outcome.result.reason is Termination.TARGET_REACHED
    stats = outcome.seat_stats[0]
    assert stats.actions > 0
    assert (stats.auto_plays, stats.illegal_replies, stats.malformed_replies) == (0, 0, 0)
    await failing.stop()
    raised = [
        e
        for e in failing.log_events()
        if e.get("event") == "the bot raised; sent a fallback action"
    ]
    assert len(raised) == stats.actions
    assert "RuntimeError: this bot always fails" in raised[0]["exception"]
    await verify_replay(outcome.replay)


async def test_illegal_answers_are_replaced_before_the_server_sees_them(
    server: RookeryServer, bots: Any, play: Any
) -> None:
    await bots.start("Illegal", server.target, "illegal")
    await bots.start("Simple", server.target, "others", "--sessions", "3")

    outcome = await play(server, "standard", ("illegal", "others", "others", "others"))

    stats = outcome.seat_stats[0]
    assert (stats.auto_plays, stats.illegal_replies, stats.malformed_replies) == (0, 0, 0)


async def test_a_bad_token_exits_non_zero_with_a_clear_error(bots: Any, tmp_path: Path) -> None:
    async with running_server(auth="token", db=str(tmp_path / "bots.db")) as server:
        server.bots.add("north")
        process = await bots.start("Simple", server.target, "north", "--token", "rk_wrong")

        assert await process.wait() == 3
    assert "token rejected for bot north" in process.log()


async def test_an_unreachable_server_exits_non_zero_naming_the_address(
    bots: Any, unused_tcp_port: int
) -> None:
    address = f"127.0.0.1:{unused_tcp_port}"
    process = await bots.start("Simple", address, "north", "--connect-timeout", "1")

    assert await process.wait() == 4
    assert f"cannot reach the Rookery server at {address}" in process.log()


async def test_sigterm_stops_a_bot_cleanly(server: RookeryServer, bots: Any) -> None:
    process = await bots.start("Simple", server.target, "north", "--sessions", "2")
    await server.wait_for_bot("north", sessions=2, timeout=20.0)

    assert await process.stop() == 0
    assert "[rookery] done: games=0 actions=0 " in process.log()
