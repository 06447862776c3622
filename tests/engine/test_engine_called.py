"""RULES.md §6: the called partner."""

from __future__ import annotations

import pytest
from rookery.engine import (
    CallCard,
    Game,
    IllegalActionError,
    MalformedActionError,
    PartnerRevealed,
    Partnership,
    Phase,
    parse_card,
    parse_cards,
)
from rookery.engine.testing import act, make_deal, small_rules

RULES = small_rules(partnership=Partnership.CALLED)
DEAL = make_deal(
    RULES,
    ["ROOK B14 B13 B12", "R14 R13 R12 R11", "Y14 Y13 Y12 Y11", "G14 G13 G12 G11"],
    nest="B11",
)


def after_bury() -> Game:
    game = Game.from_deal(RULES, DEAL)
    act(game, "pass", "pass", "pass", "bid 5", "trump B", "bury B11")
    return game


def test_the_bidder_calls_a_card_after_burying() -> None:
    game = after_bury()
    assert game.phase is Phase.CALL and game.current_player == 0
    legal = game.legal_actions()
    assert legal.call_from == RULES.deck_mask & ~parse_cards("ROOK B14 B13 B12 B11")


def test_the_bidder_may_not_call_a_card_of_their_own_or_buried() -> None:
    game = after_bury()
    for card in ("B13", "B11"):
        with pytest.raises(IllegalActionError) as caught:
            game.apply(CallCard(parse_card(card)))
        assert caught.value.reason == "own_card"


def test_a_card_outside_the_deck_is_malformed() -> None:
    game = after_bury()
    with pytest.raises(MalformedActionError):
        game.apply(CallCard(parse_card("B5")))


def test_a_rook_card_may_be_called() -> None:
    deal = make_deal(
        RULES,
        ["R11 B14 B13 B12", "ROOK R14 R13 R12", "Y14 Y13 Y12 Y11", "G14 G13 G12 G11"],
        nest="B11",
    )
    game = Game.from_deal(RULES, deal)
    act(game, "pass", "pass", "pass", "bid 5", "trump B", "bury B11", "call ROOK")
    assert game.observation_for(1).partner == 1


def test_the_partner_is_secret_until_the_called_card_is_played() -> None:
    game = after_bury()
    act(game, "call R14")
    assert game.phase is Phase.PLAY
    assert game.observation_for(1).partner == 1  # the partner knows
    for seat in (0, 2, 3, -1):
        assert game.observation_for(seat).partner == -1
    assert all(game.observation_for(s).called_card == parse_card("R14") for s in (-1, 0, 1))
    act(game, "play ROOK", "play R14")
    for seat in (0, 1, 2, 3, -1):
        assert game.observation_for(seat).partner == 1
    revealed = [event for event in game.events if isinstance(event, PartnerRevealed)]
    assert [event.seat for event in revealed] == [1]


def test_bidder_and_partner_each_score_the_bidding_result() -> None:
    game = after_bury()
    act(game, "call R14")
    while game.hand_number == 0:
        game.apply(game.legal_actions()[0])
    result = game.hand_results[0]
    assert result.partner == 1
    bidding = result.bidding_total if result.made else -5
    assert result.score_deltas[0] == result.score_deltas[1] == bidding
    assert result.bidding_total == result.points_per_side[0] + result.points_per_side[1]
    assert result.score_deltas[2] == result.points_per_side[2]
    assert result.score_deltas[3] == result.points_per_side[3]


def test_a_called_card_in_the_dead_pile_leaves_the_bidder_alone() -> None:
    rules = small_rules(partnership=Partnership.CALLED, nest_size=0)
    deal = make_deal(
        rules,
        ["ROOK B14 B13 B12", "R14 R13 R12 R11", "Y14 Y13 Y12 Y11", "G14 G13 G12 B11"],
        dead="G11",
    )
    game = Game.from_deal(rules, deal)
    act(game, "pass", "pass", "pass", "bid 5", "trump B", "call G11")
    for seat in (-1, 0, 1, 2, 3):
        assert game.observation_for(seat).partner == -1
    while game.hand_number == 0:
        game.apply(game.legal_actions()[0])
    result = game.hand_results[0]
    assert result.partner == -1 and result.called_card == parse_card("G11")
    assert result.bidding_total == result.points_per_side[0]
    assert result.score_deltas[1:] == result.points_per_side[1:]
