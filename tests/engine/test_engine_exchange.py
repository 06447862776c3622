"""RULES.md §4: nest, trump, burying."""

from __future__ import annotations

from math import comb

import pytest
from rookery.engine import (
    PRESETS,
    Bury,
    Game,
    IllegalActionError,
    MalformedActionError,
    NameTrump,
    Phase,
    Suit,
    mask_points,
    parse_cards,
)
from rookery.engine.testing import act, make_deal, small_rules

STANDARD = PRESETS["standard"]


def won_by_seat_1(name: str = "standard", seed: int = 3) -> Game:
    game = Game(PRESETS[name], seed)
    act(game, "bid 70", *["pass"] * (game.ruleset.players - 1))
    return game


def test_the_bidder_adds_the_nest_to_their_hand() -> None:
    game = won_by_seat_1()
    hand = game.observation_for(1).hand
    assert hand.bit_count() == STANDARD.hand_size + STANDARD.nest_size
    assert hand == game.deal.hands[1] | game.deal.nest


def test_only_the_bidder_sees_the_nest() -> None:
    game = won_by_seat_1()
    assert game.observation_for(1).nest == game.deal.nest
    for seat in (0, 2, 3, -1):
        assert game.observation_for(seat).nest == 0


def test_trump_first_names_trump_then_buries() -> None:
    game = won_by_seat_1()
    phases = [game.phase]
    game.apply(NameTrump(Suit.RED))
    phases.append(game.phase)
    assert phases == [Phase.NAME_TRUMP, Phase.BURY] and game.trump is Suit.RED
    legal = game.legal_actions()
    assert legal.bury_count == 5 and legal.bury_from == game.observation_for(1).hand


def test_traditional_buries_then_names_trump() -> None:
    game = won_by_seat_1("traditional")
    phases = [game.phase]
    hand = game.observation_for(1).hand
    game.apply(game.legal_actions()[0])
    phases.append(game.phase)
    assert phases == [Phase.BURY, Phase.NAME_TRUMP]
    assert game.observation_for(1).hand.bit_count() == PRESETS["traditional"].hand_size
    assert game.observation_for(1).nest == 0
    assert hand & game.observation_for(1).buried == game.observation_for(1).buried
    game.apply(NameTrump(Suit.GREEN))
    assert game.phase is Phase.PLAY


def test_the_bury_must_have_exactly_nest_size_cards() -> None:
    game = won_by_seat_1()
    game.apply(NameTrump(Suit.RED))
    hand = game.observation_for(1).hand
    four = parse_cards(" ".join(_names(hand)[:4]))
    with pytest.raises(MalformedActionError, match="exactly 5"):
        game.apply(Bury(four))
    six = parse_cards(" ".join(_names(hand)[:6]))
    with pytest.raises(MalformedActionError):
        game.apply(Bury(six))


def _names(mask: int) -> list[str]:
    from rookery.engine import format_cards

    return format_cards(mask).split()


def test_only_cards_in_hand_may_be_buried() -> None:
    game = won_by_seat_1()
    game.apply(NameTrump(Suit.RED))
    outside = game.deal.hands[0]
    with pytest.raises(IllegalActionError) as caught:
        game.apply(Bury(parse_cards(" ".join(_names(outside)[:5]))))
    assert caught.value.reason == "not_in_hand"


def test_point_cards_and_the_rook_may_be_buried() -> None:
    rules = small_rules()
    deal = make_deal(
        rules,
        ["ROOK B14 B13 B12", "R14 R13 R12 R11", "Y14 Y13 Y12 Y11", "G14 G13 G12 G11"],
        nest="B11",
    )
    game = Game.from_deal(rules, deal)
    act(game, "pass", "pass", "pass", "bid 5", "trump B", "bury ROOK")
    assert game.observation_for(0).buried == parse_cards("ROOK")
    assert game.phase is Phase.PLAY


def test_others_learn_only_how_many_cards_were_buried() -> None:
    game = won_by_seat_1()
    game.apply(NameTrump(Suit.RED))
    game.apply(game.legal_actions()[0])
    for seat in (0, 2, 3, -1):
        observation = game.observation_for(seat)
        assert observation.buried == 0 and observation.buried_count == 5
    assert game.observation_for(1).buried.bit_count() == 5


def test_without_a_nest_the_bidder_only_names_trump() -> None:
    game = won_by_seat_1("straight")
    phases = [game.phase]
    assert game.observation_for(1).hand.bit_count() == 14
    game.apply(NameTrump(Suit.YELLOW))
    phases.append(game.phase)
    assert phases == [Phase.NAME_TRUMP, Phase.PLAY]


def test_every_bury_is_enumerated_once() -> None:
    game = won_by_seat_1()
    game.apply(NameTrump(Suit.RED))
    legal = game.legal_actions()
    assert len(legal) == comb(18, 5)
    masks = {action.cards for action in legal}  # type: ignore[union-attr]
    assert len(masks) == comb(18, 5)
    assert all(mask & legal.bury_from == mask and mask.bit_count() == 5 for mask in masks)
    assert legal[-1] == legal[len(legal) - 1]


def test_buried_points_count_for_the_bidding_side() -> None:
    rules = small_rules()
    deal = make_deal(
        rules,
        ["ROOK B14 B13 B12", "R14 R13 R12 R11", "Y14 Y13 Y12 Y11", "G14 G13 G12 G11"],
        nest="B11",
    )
    game = Game.from_deal(rules, deal)
    act(game, "pass", "pass", "pass", "bid 5", "trump B", "bury ROOK")
    while game.hand_number == 0:
        game.apply(game.legal_actions()[0])
    result = game.hand_results[0]
    assert result.buried == parse_cards("ROOK")
    tricks_side_0 = result.points_per_side[0] - mask_points(result.buried)
    assert result.bidding_total == tricks_side_0 + 20
