"""RULES.md §3: the auction."""

from __future__ import annotations

import pytest
from rookery.engine import (
    PRESETS,
    AllPass,
    AuctionWon,
    Bid,
    BidMade,
    Game,
    HandRedealt,
    IllegalActionError,
    MalformedActionError,
    Phase,
    deal_for_hand,
)
from rookery.engine.testing import act

STANDARD = PRESETS["standard"]


def test_the_player_left_of_the_dealer_bids_first() -> None:
    assert Game(STANDARD, 1).current_player == 1
    assert Game(STANDARD.replace(first_dealer=3), 1).current_player == 0


def test_bidding_goes_clockwise() -> None:
    game = Game(STANDARD, 1)
    act(game, "bid 70")
    assert game.current_player == 2
    act(game, "bid 75")
    assert game.current_player == 3


def test_first_bid_must_reach_the_minimum() -> None:
    game = Game(STANDARD, 1)
    with pytest.raises(IllegalActionError) as caught:
        game.apply(Bid(65))
    assert caught.value.reason == "bid_too_low"
    assert game.legal_actions().bids[0] == 70


def test_bids_must_be_multiples_of_the_step() -> None:
    game = Game(STANDARD, 1)
    with pytest.raises(IllegalActionError) as caught:
        game.apply(Bid(72))
    assert caught.value.reason == "bid_not_multiple"


def test_a_bid_must_be_strictly_above_the_high_bid() -> None:
    game = Game(STANDARD, 1)
    act(game, "bid 80")
    with pytest.raises(IllegalActionError) as caught:
        game.apply(Bid(80))
    assert caught.value.reason == "bid_too_low"
    assert game.legal_actions().bids == tuple(range(85, 121, 5))


def test_bids_stop_at_the_maximum() -> None:
    game = Game(STANDARD, 1)
    with pytest.raises(IllegalActionError) as caught:
        game.apply(Bid(125))
    assert caught.value.reason == "bid_too_high"
    act(game, "bid 120")
    legal = game.legal_actions()
    assert legal.bids == () and legal.can_pass and len(legal) == 1


def test_an_explicit_max_bid_is_the_ceiling() -> None:
    game = Game(STANDARD.replace(max_bid=90), 1)
    assert game.legal_actions().bids[-1] == 90


def test_a_bid_amount_that_is_not_an_int_is_malformed() -> None:
    game = Game(STANDARD, 1)
    with pytest.raises(MalformedActionError):
        game.apply(Bid("70"))  # type: ignore[arg-type]


def test_passed_players_are_skipped() -> None:
    game = Game(STANDARD, 1)
    act(game, "pass", "bid 70", "bid 75", "bid 80")  # seats 1 pass, 2, 3, 0 bid
    assert game.current_player == 2  # seat 1 passed: skipped


def test_the_auction_ends_when_all_but_one_passed_and_that_one_bid() -> None:
    game = Game(STANDARD, 1)
    act(game, "bid 70", "bid 75", "pass", "pass", "pass")  # 1:70 2:75 3,0,1 pass
    assert game.bidder == 2
    assert game.phase is Phase.NAME_TRUMP
    assert game.current_player == 2
    assert game.observation_for(0).bid == 75


def test_the_last_player_still_in_may_bid() -> None:
    game = Game(STANDARD, 1)
    act(game, "pass", "pass", "pass")  # seats 1, 2, 3
    legal = game.legal_actions()
    assert game.current_player == 0 and legal.can_pass and legal.bids[0] == 70
    act(game, "bid 90")
    assert game.bidder == 0
    assert game.observation_for(1).bid == 90


def test_a_bidder_may_raise_after_being_outbid() -> None:
    game = Game(STANDARD, 1)
    act(game, "bid 70", "bid 75", "pass", "pass", "bid 80", "pass")
    assert game.bidder == 1 and game.observation_for(1).bid == 80


def test_all_pass_redeal_deals_a_fresh_hand_with_the_same_dealer() -> None:
    game = Game(STANDARD, 5)
    act(game, "pass", "pass", "pass", "pass")
    assert game.hand_number == 1 and game.dealer == 0
    assert game.phase is Phase.BIDDING and game.current_player == 1
    assert game.deal == deal_for_hand(STANDARD, 5, 1)
    assert game.scores == (0, 0)
    (result,) = game.hand_results
    assert result.redeal and result.bidder == -1 and result.score_deltas == (0, 0)
    assert any(isinstance(event, HandRedealt) for event in game.events)


def test_all_pass_dealer_forced_makes_the_dealer_bid_the_minimum() -> None:
    game = Game(STANDARD.replace(all_pass=AllPass.DEALER_FORCED, first_dealer=2), 5)
    act(game, "pass", "pass", "pass", "pass")
    assert game.hand_number == 0 and game.bidder == 2
    assert game.observation_for(0).bid == 70
    won = [event for event in game.events if isinstance(event, AuctionWon)]
    assert won[-1].forced and won[-1].seat == 2


def test_bidding_in_another_phase_is_illegal() -> None:
    game = Game(STANDARD, 1)
    act(game, "bid 70", "pass", "pass", "pass")
    with pytest.raises(IllegalActionError) as caught:
        game.apply(Bid(75))
    assert caught.value.reason == "wrong_phase"


def test_the_auction_is_public() -> None:
    game = Game(STANDARD, 1)
    act(game, "bid 70", "pass", "bid 80")
    view = game.public_view()
    assert view.auction == ((1, 70), (2, 0), (3, 80))
    assert (view.high_bid, view.high_bidder, view.bidder) == (80, 3, -1)


def test_bids_of_any_size_are_logged_and_read_back_exactly() -> None:
    # The log packs an event's small fields into one int; an amount past its 16 bits is kept
    # whole, and the events and actions read back are the bids made.
    rules = STANDARD.replace(min_bid=65_530, bid_step=5, max_bid=200_000)
    game = Game(rules, 1)
    amounts = [65_530, 65_535, 65_540, 199_995]
    for amount in amounts:
        game.apply(Bid(amount))
    for _ in range(3):
        act(game, "pass")
    made = [(event.seat, event.amount) for event in game.events if isinstance(event, BidMade)]
    assert made == [(1, 65_530), (2, 65_535), (3, 65_540), (0, 199_995)]
    won = [event for event in game.events if isinstance(event, AuctionWon)]
    assert [(event.seat, event.amount, event.forced) for event in won] == [(0, 199_995, False)]
    assert [action for _, action in game.actions[:4]] == [Bid(amount) for amount in amounts]
    assert game.bidder == 0 and game.phase is not Phase.BIDDING
