"""RULES.md §5: leading, following suit, the Rook as the highest trump, and trick winners."""

from __future__ import annotations

import pytest
from rookery.engine import (
    PRESETS,
    FirstLead,
    IllegalActionError,
    Phase,
    PlayCard,
    format_cards,
    parse_card,
    parse_cards,
)
from rookery.engine.testing import act, fill_deal, make_deal, seat_zero_bids, small_rules

RULES = small_rules()
# Trump is red in these deals; seat 0 bids, buries the nest card G11 and leads.
ROOK_LEADS = make_deal(
    RULES,
    ["ROOK B14 B13 B12", "R11 B11 Y11 G12", "Y14 Y13 Y12 G13", "R14 R13 R12 G14"],
    nest="G11",
)


def legal_cards(game: object) -> str:
    return format_cards(game.legal_actions().play)  # type: ignore[attr-defined]


def test_the_bidder_leads_the_first_trick() -> None:
    game = seat_zero_bids(RULES, ROOK_LEADS, "R")
    assert game.phase is Phase.PLAY and game.current_player == 0


def test_left_of_bidder_leads_the_first_trick() -> None:
    game = seat_zero_bids(small_rules(first_lead=FirstLead.LEFT_OF_BIDDER), ROOK_LEADS, "R")
    assert game.current_player == 1
    assert game.public_view().current_trick.leader == 1


def test_the_leader_may_lead_any_card() -> None:
    game = seat_zero_bids(RULES, ROOK_LEADS, "R")
    assert legal_cards(game) == "B12 B13 B14 ROOK"


def test_leading_the_rook_is_leading_trump() -> None:
    game = seat_zero_bids(RULES, ROOK_LEADS, "R")
    act(game, "play ROOK")
    assert legal_cards(game) == "R11"  # seat 1 holds one trump: it must follow with it
    act(game, "play R11")
    assert game.legal_actions().play == parse_cards("Y12 Y13 Y14 G13")  # void in trump
    act(game, "play Y12")
    assert legal_cards(game) == "R12 R13 R14"


def test_the_rook_beats_the_trump_14() -> None:
    game = seat_zero_bids(RULES, ROOK_LEADS, "R")
    act(game, "play ROOK", "play R11", "play Y12", "play R14")
    trick = game.public_view().completed_tricks[0]
    assert trick.winner == 0 and trick.points == 30
    assert game.current_player == 0  # the winner leads the next trick


def test_the_rook_is_forced_when_it_is_the_only_trump_on_a_trump_lead() -> None:
    deal = make_deal(
        RULES,
        ["R14 R13 B14 B13", "ROOK B12 B11 Y11", "Y14 Y13 Y12 G13", "R12 R11 G14 G12"],
        nest="G11",
    )
    game = seat_zero_bids(RULES, deal, "R")
    act(game, "play R14")
    assert legal_cards(game) == "ROOK"
    with pytest.raises(IllegalActionError) as caught:
        game.apply(PlayCard(parse_card("B12")))
    assert caught.value.reason == "must_follow_suit"


def test_the_rook_thrown_on_a_void_is_a_trump_and_wins() -> None:
    deal = make_deal(
        RULES,
        ["B14 B13 R14 R13", "ROOK Y11 Y12 G12", "B12 Y14 Y13 G13", "B11 R12 R11 G14"],
        nest="G11",
    )
    game = seat_zero_bids(RULES, deal, "R")
    act(game, "play B14")
    assert legal_cards(game) == "Y11 Y12 G12 ROOK"  # void in black: anything
    act(game, "play ROOK", "play B12", "play B11")
    assert game.public_view().completed_tricks[0].winner == 1


ROOK_WITH_BLACK = make_deal(
    RULES,
    ["B14 B13 R14 R13", "ROOK B11 Y11 G12", "B12 Y14 Y13 G13", "R12 R11 G14 Y12"],
    nest="G11",
)


def test_without_rook_free_play_the_rook_must_not_revoke() -> None:
    game = seat_zero_bids(RULES, ROOK_WITH_BLACK, "R")
    act(game, "play B14")
    assert legal_cards(game) == "B11"
    with pytest.raises(IllegalActionError) as caught:
        game.apply(PlayCard(parse_card("ROOK")))
    assert caught.value.reason == "must_follow_suit"


def test_rook_free_play_lets_the_rook_be_played_on_any_trick() -> None:
    game = seat_zero_bids(small_rules(rook_free_play=True), ROOK_WITH_BLACK, "R")
    act(game, "play B14")
    assert legal_cards(game) == "B11 ROOK"
    act(game, "play ROOK", "play B12", "play R11")  # seat 3 is void in black and trumps
    assert game.public_view().completed_tricks[0].winner == 1


def test_rook_free_play_on_a_trump_lead_the_rook_follows_suit() -> None:
    deal = make_deal(
        RULES,
        ["R14 R13 B14 B13", "ROOK R11 Y11 G12", "B12 Y14 Y13 G13", "B11 R12 Y12 G14"],
        nest="G11",
    )
    game = seat_zero_bids(small_rules(rook_free_play=True), deal, "R")
    act(game, "play R14")
    assert legal_cards(game) == "R11 ROOK"


def test_follow_suit_when_able_any_card_when_void() -> None:
    game = seat_zero_bids(RULES, ROOK_WITH_BLACK, "R")
    act(game, "play R14")
    assert legal_cards(game) == "ROOK"  # trump led: the Rook is seat 1's only trump
    act(game, "play ROOK")
    assert legal_cards(game) == "B12 Y13 Y14 G13"  # seat 2 holds no trump
    act(game, "play Y13")
    assert legal_cards(game) == "R11 R12"


def test_without_trump_the_highest_card_of_the_led_suit_wins() -> None:
    deal = make_deal(
        RULES,
        ["B12 R14 R13 G14", "B11 R12 Y11 G12", "Y14 Y13 Y12 G13", "B13 B14 R11 ROOK"],
        nest="G11",
    )
    game = seat_zero_bids(RULES, deal, "R", bury="G11")
    act(game, "play B12", "play B11", "play Y14", "play B13")
    trick = game.public_view().completed_tricks[0]
    assert trick.winner == 3  # B13 beats B12; the higher Y14 is of another suit
    assert game.current_player == 3


def test_the_highest_trump_wins_the_trick() -> None:
    deal = make_deal(
        RULES,
        ["B12 B14 R14 G14", "R12 Y11 Y12 G12", "B11 Y14 Y13 G13", "R13 B13 R11 ROOK"],
        nest="G11",
    )
    game = seat_zero_bids(RULES, deal, "R")
    act(game, "play B14", "play R12", "play B11", "play B13")
    assert game.public_view().completed_tricks[0].winner == 1


def test_one_is_never_high() -> None:
    standard = PRESETS["standard"]
    # The fill gives B4..B14 to seat 0: seat 1 holds only B1, seat 2 only B3, seat 3 no black.
    deal = fill_deal(standard, {0: "B2 R5", 1: "B1 R1", 2: "B3 R2", 3: "R3 G1"})
    game = seat_zero_bids(standard, deal, "Y")
    act(game, "play B2", "play B1", "play B3", "play G1")
    assert game.public_view().completed_tricks[0].winner == 2


def test_double_bird_orders_rook_above_rook2_above_trump_14() -> None:
    rules = small_rules(rook_cards=2, nest_size=2)
    deal = make_deal(
        rules,
        ["R14 B14 B13 B12", "ROOK2 B11 Y11 G12", "ROOK Y14 Y13 G13", "R13 R12 R11 Y12"],
        nest="G11 G14",
    )
    game = seat_zero_bids(rules, deal, "R")
    act(game, "play R14", "play ROOK2", "play ROOK", "play R11")
    assert game.public_view().completed_tricks[0].winner == 2
    second = seat_zero_bids(rules, deal, "R")
    act(second, "play R14", "play ROOK2")
    assert second.legal_actions().play == parse_cards("ROOK")
    act(second, "play ROOK", "play R13")
    assert second.public_view().completed_tricks[0].points == 50


def test_a_hand_has_hand_size_tricks_and_every_card_is_played() -> None:
    game = seat_zero_bids(RULES, ROOK_LEADS, "R")
    while game.hand_number == 0:
        game.apply(game.legal_actions()[0])
    assert len(game.hand_results) == 1
    played = [event for event in game.events if type(event).__name__ == "CardPlayed"]
    assert len(played) == RULES.hand_size * RULES.players


def test_playing_a_card_not_held_is_illegal() -> None:
    game = seat_zero_bids(RULES, ROOK_LEADS, "R")
    with pytest.raises(IllegalActionError) as caught:
        game.apply(PlayCard(parse_card("R14")))
    assert caught.value.reason == "not_in_hand"
