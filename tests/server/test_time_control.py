"""Deadlines, the time bank and both late policies; the fallback action."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rookery.engine import (
    Bid,
    Bury,
    LegalActions,
    NameTrump,
    Pass,
    Phase,
    PlayCard,
    parse_card,
    parse_cards,
)
from rookery.server import LatePolicy, RookeryServer, TimeControl, fallback_action
from rookery.server.testing import RawBot, bot_names, reply_to, seat_raw_bots
from rookery.v1 import bot_service_pb2, replay_pb2, results_pb2

pb = bot_service_pb2


def never_act_for(seat: int, players: list[RawBot]) -> list[RawBot]:
    """The bots that answer (every seat but ``seat``)."""
    return [bot for index, bot in enumerate(players) if index != seat]


async def test_forfeit_policy_ends_the_game_at_the_first_missed_deadline(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(action_ms=100, late_policy=LatePolicy.FORFEIT)
    table, players = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
    late_seat = table.game.current_player
    assert late_seat is not None
    outcome = await asyncio.wait_for(table.wait_finished(), 5)
    assert outcome.termination == results_pb2.TERMINATION_REASON_FORFEIT_TIMEOUT
    assert outcome.forfeit_seat == late_seat
    assert outcome.result.winners == (1 - late_seat % 2,)
    assert outcome.seat_stats[late_seat].timeouts == 1
    finished = await players[late_seat].read_kind("table_finished")
    assert finished.result.reason == results_pb2.TERMINATION_REASON_FORFEIT_TIMEOUT


async def test_auto_play_policy_plays_a_fallback_and_counts_strikes_up_to_the_limit(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    # 500 ms: the answering seats are never late even on a loaded machine (at 50 ms a busy
    # worker once made one of them late too); only the silent seat runs out of time.
    clock = TimeControl(action_ms=500, late_policy=LatePolicy.AUTO_PLAY, strike_limit=2)
    table, players = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
    late_seat = 1
    answering = never_act_for(late_seat, players)
    tasks = [asyncio.ensure_future(bot.play()) for bot in answering]
    outcome = await asyncio.wait_for(table.wait_finished(), 10)
    await asyncio.wait_for(asyncio.gather(*tasks), 5)
    assert outcome.termination == results_pb2.TERMINATION_REASON_FORFEIT_STRIKES
    assert outcome.forfeit_seat == late_seat
    assert outcome.seat_stats[late_seat].auto_plays == 2
    assert outcome.seat_stats[late_seat].timeouts == 3
    auto = [
        action
        for hand in outcome.replay.hands
        for action in hand.actions
        if action.outcome == replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
    ]
    assert [action.seat for action in auto] == [late_seat, late_seat]


async def test_auto_play_without_a_strike_limit_finishes_the_game(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(action_ms=1, strike_limit=0)
    table, _ = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
    outcome = await asyncio.wait_for(table.wait_finished(), 30)
    assert outcome.termination in (
        results_pb2.TERMINATION_REASON_TARGET_REACHED,
        results_pb2.TERMINATION_REASON_MAX_HANDS,
    )
    assert all(stats.actions == 0 for stats in outcome.seat_stats)


async def test_the_time_bank_absorbs_an_overrun_and_shrinks(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    clock = TimeControl(action_ms=100, bank_ms=1000, late_policy=LatePolicy.FORFEIT)
    table, players = await seat_raw_bots(server, bots, bot_names(4), time_control=clock)
    seat = table.game.current_player
    assert seat is not None
    slow = players[seat]
    request = await slow.read_kind("action_request")
    assert request.bank_ms == 1000
    await asyncio.sleep(0.4)
    await slow.send(reply_to(request))
    others = never_act_for(seat, players)
    next_for_slow = asyncio.ensure_future(slow.read_kind("action_request"))
    tasks = [asyncio.ensure_future(bot.play()) for bot in others]
    request = await asyncio.wait_for(next_for_slow, 10)
    assert 500 <= request.bank_ms <= 700
    assert not table.is_finished
    for task in tasks:
        task.cancel()


def test_the_fallback_passes_in_the_auction_when_it_may() -> None:
    legal = LegalActions(Phase.BIDDING, 0, can_pass=True, bids=(70, 75))
    assert fallback_action(legal) == Pass()


def test_the_fallback_bids_the_minimum_when_passing_is_not_allowed() -> None:
    legal = LegalActions(Phase.BIDDING, 0, can_pass=False, bids=(70, 75))
    assert fallback_action(legal) == Bid(70)


def test_the_fallback_names_the_first_legal_suit() -> None:
    legal = LegalActions(Phase.NAME_TRUMP, 0)
    assert fallback_action(legal) == NameTrump(legal.suits[0])


def test_the_fallback_buries_the_lowest_cards_and_keeps_the_rook() -> None:
    candidates = parse_cards("ROOK B14 R2 Y3 G1 G2 B5")
    legal = LegalActions(Phase.BURY, 0, bury_from=candidates, bury_count=3)
    assert fallback_action(legal) == Bury(parse_cards("G1 G2 R2"))


def test_the_fallback_plays_the_lowest_ranked_card_and_the_rook_last() -> None:
    legal = LegalActions(Phase.PLAY, 0, play=parse_cards("ROOK B14 Y9"))
    assert fallback_action(legal) == PlayCard(parse_card("Y9"))
    assert fallback_action(LegalActions(Phase.PLAY, 0, play=parse_cards("ROOK"))) == PlayCard(
        parse_card("ROOK")
    )
