"""RULES.md §7 (scoring a hand) and §8 (the end of the game)."""

from __future__ import annotations

import pytest
from rookery.engine import (
    PRESETS,
    BothOver,
    Game,
    Partnership,
    Ruleset,
    Termination,
    TrickWon,
    mask_points,
)
from rookery.engine.testing import act, make_deal, small_rules

# Sides {0, 2} and {1, 3}. Seat 0 bids, names black trump and buries Y11 (no points).
DEAL_RULES = small_rules()
DEAL = make_deal(
    DEAL_RULES,
    ["B14 B13 B12 Y11", "ROOK R14 R13 R12", "Y14 Y13 Y12 R11", "G14 G13 G12 G11"],
    nest="B11",
)
# Trick 1: seat 1 must take the trump lead with the Rook (50 points); trick 2: seat 0 trumps
# R14 (10); tricks 3 and 4 are worth nothing and won by seat 0.
PLAYS = (
    "play B14 play ROOK play Y14 play G14 "
    "play R14 play R11 play G11 play B12 "
    "play B13 play R12 play Y13 play G12 "
    "play B11 play R13 play Y12 play G13"
)


def scripted_hand(rules: Ruleset, bid: int, scores: tuple[int, ...] = (0, 0)) -> Game:
    game = Game.from_deal(rules, DEAL, scores=scores, seed=11)
    act(game, "pass", "pass", "pass", f"bid {bid}", "trump B", "bury Y11")
    words = PLAYS.split()
    act(game, *(f"{verb} {card}" for verb, card in zip(words[::2], words[1::2], strict=True)))
    return game


def test_a_made_bid_scores_the_whole_total() -> None:
    game = scripted_hand(DEAL_RULES, bid=10)
    (result,) = game.hand_results
    assert result.made and result.bidding_total == 10
    assert result.points_per_side == (10, 50)
    assert result.score_deltas == (10, 50)
    assert game.scores == (10, 50)


def test_the_total_may_exceed_the_bid() -> None:
    game = scripted_hand(DEAL_RULES, bid=5)
    assert game.hand_results[0].score_deltas == (10, 50)


def test_a_set_bid_scores_minus_the_bid_whatever_was_captured() -> None:
    game = scripted_hand(DEAL_RULES, bid=20)
    (result,) = game.hand_results
    assert not result.made and result.bidding_total == 10
    assert result.score_deltas == (-20, 50)


def test_defenders_always_score_what_they_captured() -> None:
    for bid in (5, 10, 20, 60):
        assert scripted_hand(DEAL_RULES, bid=bid).hand_results[0].score_deltas[1] == 50


def test_cumulative_scores_may_go_negative() -> None:
    game = scripted_hand(DEAL_RULES, bid=60, scores=(10, 0))
    assert game.scores == (-50, 50)


def test_the_last_trick_bonus_goes_to_the_winner_of_the_last_trick() -> None:
    game = scripted_hand(small_rules(last_trick_bonus=20), bid=30)
    (result,) = game.hand_results
    assert result.made and result.bidding_total == 30
    assert result.points_per_side == (30, 50)


def test_buried_points_count_for_the_bidding_side() -> None:
    rules = small_rules()
    game = Game.from_deal(rules, DEAL)
    act(game, "pass", "pass", "pass", "bid 5", "trump B", "bury B14")
    while game.hand_number == 0:
        game.apply(game.legal_actions()[0])
    result = game.hand_results[0]
    tricks = [event for event in game.events if isinstance(event, TrickWon)]
    side_0 = sum(event.points for event in tricks if event.seat % 2 == 0)
    assert result.bidding_total == side_0 + 10
    assert sum(result.points_per_side) == rules.deck_points


def test_per_player_scores_the_bidder_the_result_and_others_their_tricks() -> None:
    rules = PRESETS["cutthroat"]
    game = Game(rules, 8)
    act(game, "bid 70", "pass", "pass")
    while game.hand_number == 0:
        game.apply(game.legal_actions()[0])
    result = game.hand_results[0]
    tricks = [event for event in game.events if isinstance(event, TrickWon)]
    won = [sum(event.points for event in tricks if event.seat == seat) for seat in range(3)]
    assert result.bidder == 1
    assert result.bidding_total == result.points_per_side[1] == won[1] + mask_points(result.buried)
    for seat in (0, 2):
        assert result.score_deltas[seat] == won[seat] == result.points_per_side[seat]
    expected = result.bidding_total if result.made else -70
    assert result.score_deltas[1] == expected


# §8 ---------------------------------------------------------------------------------------


def test_exactly_one_side_over_the_target_wins() -> None:
    game = scripted_hand(DEAL_RULES, bid=20, scores=(0, 260))
    assert game.is_over and game.phase.name == "GAME_OVER" and game.current_player is None
    assert game.result is not None
    assert game.result.winners == (1,) and game.result.reason is Termination.TARGET_REACHED
    assert game.result.scores == (-20, 310)


def test_no_side_over_the_target_deals_the_next_hand_left_of_the_dealer() -> None:
    game = scripted_hand(DEAL_RULES, bid=10)
    assert not game.is_over
    assert (game.hand_number, game.dealer, game.current_player) == (1, 1, 2)


def test_higher_total_wins_when_several_sides_are_over() -> None:
    game = scripted_hand(DEAL_RULES, bid=10, scores=(300, 300))
    assert game.result is not None and game.result.winners == (1,)


def test_an_exact_tie_over_the_target_plays_another_hand() -> None:
    game = scripted_hand(DEAL_RULES, bid=10, scores=(340, 300))
    assert game.scores == (350, 350)
    assert not game.is_over and game.hand_number == 1


def test_bidder_wins_policy_gives_the_game_to_the_bidding_side_over_the_target() -> None:
    rules = small_rules(both_over=BothOver.BIDDER_WINS)
    game = scripted_hand(rules, bid=10, scores=(300, 300))
    assert game.scores == (310, 350)
    assert game.result is not None and game.result.winners == (0,)


def test_bidder_wins_policy_when_the_bidding_side_is_not_over() -> None:
    rules = small_rules(both_over=BothOver.BIDDER_WINS)
    game = scripted_hand(rules, bid=20, scores=(300, 300))  # set: 280 against 350
    assert game.result is not None and game.result.winners == (1,)


def test_bidder_wins_policy_ties_between_other_sides_play_another_hand() -> None:
    rules = Ruleset(
        name="small-6",
        players=6,
        lowest_rank=11,
        nest_size=5,
        min_bid=5,
        bid_step=5,
        both_over=BothOver.BIDDER_WINS,
    )
    game = Game(rules, 3)
    act(game, *["pass"] * 5, "bid 5")  # seat 0 (side 0) bids
    first = game.clone()
    while first.hand_number == 0:
        first.apply(first.legal_actions()[0])
    deltas = first.hand_results[0].score_deltas
    # Make sides 1 and 2 tie above the target and keep side 0 under it.
    scores = (-1000, 400 - deltas[1], 400 - deltas[2])
    game = Game.from_deal(rules, game.deal, scores=scores)
    act(game, *["pass"] * 5, "bid 5")
    while game.hand_number == 0:
        game.apply(game.legal_actions()[0])
    assert not game.is_over


def test_max_hands_adjudicates_the_highest_score() -> None:
    game = scripted_hand(small_rules(max_hands=1), bid=10)
    assert game.result is not None
    assert game.result.reason is Termination.MAX_HANDS and game.result.winners == (1,)


def test_max_hands_with_an_exact_tie_is_a_draw() -> None:
    game = scripted_hand(small_rules(max_hands=1), bid=10, scores=(40, 0))
    assert game.result is not None
    assert game.result.reason is Termination.MAX_HANDS
    assert game.result.winners == () and game.result.is_draw


def test_max_hands_counts_redeals() -> None:
    game = Game(PRESETS["standard"].replace(max_hands=2), 1)
    act(game, *["pass"] * 8)
    assert game.result is not None
    assert game.result.reason is Termination.MAX_HANDS and game.result.hands_played == 2
    assert game.result.winners == ()


def test_called_partner_per_player_sides() -> None:
    assert PRESETS["called-partner"].partnership is Partnership.CALLED
    assert PRESETS["called-partner"].num_sides == 4


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
def test_forfeit_makes_every_other_side_win(seat: int) -> None:
    game = Game(PRESETS["standard"], 1)
    game.forfeit(seat, "timed out")
    assert game.result is not None and game.result.reason is Termination.FORFEIT
    assert game.result.winners == ((seat + 1) % 2,)
    per_player = Game(PRESETS["called-partner"], 1)
    per_player.forfeit(seat, "crashed")
    assert per_player.result is not None
    assert per_player.result.winners == tuple(s for s in range(4) if s != seat)


def test_abort_ends_the_game_without_a_winner() -> None:
    game = Game(PRESETS["standard"], 1)
    game.abort()
    assert game.result is not None
    assert game.result.reason is Termination.ABORTED and game.result.winners == ()
