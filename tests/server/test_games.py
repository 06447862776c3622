"""Whole games over real loopback streams with scripted raw clients."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from rookery.engine import Game, Ruleset
from rookery.server import RookeryServer, TableSpec, TableStatus, TimeControl
from rookery.server.testing import RawBot, bot_names, seat_raw_bots
from rookery.v1 import bot_service_pb2, replay_pb2, results_pb2
from rookery.wire import convert
from rookery.wire.replay import encode_replay, verify_replay


async def play_all(players: list[RawBot]) -> list[bot_service_pb2.TableFinished]:
    results = await asyncio.gather(*(bot.play() for bot in players))
    return [finished[0] for finished in results]


def resimulate(replay: replay_pb2.Replay) -> Game:
    """Replays the recorded (accepted and auto-played) actions on a fresh engine game."""
    game = Game(convert.ruleset_from_proto(replay.header.ruleset), replay.header.seed)
    for hand in replay.hands:
        for recorded in hand.actions:
            if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
                continue
            assert game.current_player == recorded.seat
            game.apply(convert.action_from_proto(recorded.action))
    return game


@pytest.mark.parametrize("preset", ["standard", "traditional", "cutthroat"])
async def test_a_whole_game_is_played_to_its_end(
    server: RookeryServer, bots: Callable[..., RawBot], preset: str
) -> None:
    players = Ruleset.preset(preset).players
    table, seated_bots = await seat_raw_bots(
        server, bots, bot_names(players), preset=preset, seed=11
    )
    finished = await asyncio.wait_for(play_all(seated_bots), 60)
    outcome = await table.wait_finished()
    assert outcome.termination == results_pb2.TERMINATION_REASON_TARGET_REACHED
    assert all(f.result == outcome.result_proto for f in finished)
    assert [f.seat for f in finished] == list(range(players))
    assert table.status is TableStatus.FINISHED


async def test_the_replay_resimulates_to_the_same_result(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    table, players = await seat_raw_bots(server, bots, bot_names(4), seed=5)
    await asyncio.wait_for(play_all(players), 60)
    outcome = await table.wait_finished()
    assert verify_replay(outcome.replay) == []
    game = resimulate(outcome.replay)
    assert game.result == outcome.result
    assert outcome.replay.result == outcome.result_proto
    assert outcome.replay.header.seed == 5
    assert outcome.replay is outcome.replay  # made once, on first use
    for compress in (True, False):  # the file's bytes, written without the message
        assert outcome.replay_bytes(compress=compress) == encode_replay(
            outcome.replay, compress=compress
        )


async def test_every_seat_gets_every_event_numbered_from_one_without_gaps(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    table, players = await seat_raw_bots(server, bots, bot_names(4), seed=3)
    await asyncio.wait_for(play_all(players), 60)
    total = len(table.game.events)
    for bot in players:
        assert [event.seq for event in bot.events()] == list(range(1, total + 1))


async def test_each_seat_sees_only_its_own_dealt_cards(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    table, players = await seat_raw_bots(server, bots, bot_names(4), seed=9)
    await asyncio.wait_for(play_all(players), 60)
    first_deal = table.game.hand_results[0].deal
    for seat, bot in enumerate(players):
        dealt = next(e.hand_dealt for e in bot.events() if e.WhichOneof("kind") == "hand_dealt")
        assert convert.mask_from_proto(dealt.your_cards) == first_deal.hands[seat]


async def test_an_action_request_carries_observation_legal_actions_and_clock(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(action_ms=3000, bank_ms=1500)
    table, players = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
    to_act = table.game.current_player
    assert to_act is not None
    request = await players[to_act].read_kind("action_request")
    assert request.table_id == table.id
    assert request.seat == to_act
    assert request.observation.seat == to_act
    assert len(request.observation.hand) == table.ruleset.hand_size
    assert request.legal_actions.can_pass
    assert (request.deadline_ms, request.bank_ms) == (3000, 1500)
    assert request.last_seq == 1


async def test_one_session_plays_several_tables_at_once(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    multi = [bots(server.target, f"bot{seat}", max_tables=2) for seat in range(4)]
    for bot in multi:
        await bot.connect()
    tables = [
        await server.create_table(TableSpec(Ruleset.preset("standard"), bot_names(4), seed=s))
        for s in (1, 2)
    ]
    await asyncio.wait_for(asyncio.gather(*(b.play(tables=2) for b in multi)), 60)
    for table in tables:
        outcome = await table.wait_finished()
        assert outcome.termination == results_pb2.TERMINATION_REASON_TARGET_REACHED


async def test_a_bot_partnering_itself_needs_a_session_per_seat(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    players = [bots(server.target, name) for name in ("alpha", "beta", "alpha", "beta")]
    for bot in players[:3]:
        await bot.connect()
    table = await server.create_table(
        TableSpec(Ruleset.preset("standard"), ("alpha", "beta", "alpha", "beta"), seed=1)
    )
    await asyncio.sleep(0.2)
    assert table.status is TableStatus.WAITING
    await players[3].connect()
    await asyncio.wait_for(asyncio.gather(*(b.play() for b in players)), 60)
    assert (await table.wait_finished()).termination == (
        results_pb2.TERMINATION_REASON_TARGET_REACHED
    )


async def test_a_silent_bot_does_not_hold_up_another_table(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    slow_clock = TimeControl(action_ms=30_000)
    silent = [bots(server.target, f"quiet{seat}") for seat in range(4)]
    for bot in silent:
        await bot.connect()
    stalled = await server.create_table(
        TableSpec(
            Ruleset.preset("standard"),
            tuple(f"quiet{s}" for s in range(4)),
            seed=1,
            time_control=slow_clock,
        )
    )
    table, players = await seat_raw_bots(server, bots, bot_names(4), seed=2)
    await asyncio.wait_for(play_all(players), 30)
    assert (await table.wait_finished()).result.winners
    assert stalled.status is TableStatus.PLAYING


async def test_a_table_whose_bots_never_come_is_aborted_with_a_reason(
    server: RookeryServer,
) -> None:
    table = await server.create_table(
        TableSpec(Ruleset.preset("standard"), bot_names(4), seed=1, join_timeout_s=0.2)
    )
    outcome = await asyncio.wait_for(table.wait_finished(), 5)
    assert outcome.termination == results_pb2.TERMINATION_REASON_ABORTED
    assert "bot0" in outcome.detail and "0.2 s" in outcome.detail
    assert outcome.replay.hands == []


async def test_seat_statistics_count_actions_and_think_time(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    table, players = await seat_raw_bots(server, bots, bot_names(4), seed=4)
    await asyncio.wait_for(play_all(players), 60)
    outcome = await table.wait_finished()
    actions = sum(len(hand.actions) for hand in outcome.replay.hands)
    assert sum(stats.actions for stats in outcome.seat_stats) == actions
    assert [stats.bot_name for stats in outcome.seat_stats] == list(bot_names(4))
    assert all(stats.bot_version == "1.0" for stats in outcome.seat_stats)
    assert all(stats.timeouts == 0 for stats in outcome.seat_stats)
